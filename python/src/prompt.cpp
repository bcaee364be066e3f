// SPDX-License-Identifier: MIT
// python/src/prompt.cpp: a multimodal prompt's position ids and per-token pair angles from a
// config (posenc/models/hf_prompt_rule.hpp, posenc/prompt_angles.hpp, posenc/prompt_segments.hpp).
#include "bindings.hpp"

#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_config_file.hpp>
#include <posenc/models/hf_prompt_rule.hpp>
#include <posenc/multimodal_positions.hpp>
#include <posenc/prompt_angles.hpp>
#include <posenc/prompt_segments.hpp>
#include <posenc/scaling/scaling.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace posenc::python {

namespace prompt_bindings {

/// config.json text from a path (str or os.PathLike) or a dict (json.dumps).
std::string config_text(const py::object& source)
{
    if (py::isinstance<py::dict>(source)) return py::module_::import("json").attr("dumps")(source).cast<std::string>();
    const std::string path = py::module_::import("os").attr("fspath")(source).cast<std::string>();
    return hf::read_config_file(path, path);
}

/// A SEGMENTS string or a list of PromptSegment, refused when it may hold more than `most` tokens.
std::vector<PromptSegment> segments_of(const py::object& prompt, double most)
{
    std::vector<PromptSegment> out = py::isinstance<py::str>(prompt) ? parse_prompt_segments(prompt.cast<std::string>())
                                                                     : prompt.cast<std::vector<PromptSegment>>();
    const double bound = prompt_tokens_upper_bound(out);
    if (bound > most)
        throw error("prompt", posenc::detail::format_value(bound),
                    "may hold more tokens than " + posenc::detail::format_value(most) +
                        " (2 t h w per vision segment before merging), the most this function returns");
    return out;
}

py::dict angles_result(const TokenAngles& a, const AxisPositionIds& ids, const std::string& rule)
{
    const auto n = static_cast<py::ssize_t>(a.num_tokens()), p = static_cast<py::ssize_t>(a.num_pairs());
    const auto axes = static_cast<py::ssize_t>(ids.num_axes);
    py::array_t<std::int64_t> pairs({p, py::ssize_t {2}});
    py::array_t<double> positions({n, axes}), tokens({n, p});
    for (py::ssize_t k = 0; k < p; ++k) {
        pairs.mutable_at(k, 0) = a.pairs[static_cast<std::size_t>(k)][0];
        pairs.mutable_at(k, 1) = a.pairs[static_cast<std::size_t>(k)][1];
    }
    for (py::ssize_t t = 0; t < n; ++t) {
        for (py::ssize_t x = 0; x < axes; ++x)
            positions.mutable_at(t, x) = a.positions[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)];
        for (py::ssize_t k = 0; k < p; ++k)
            tokens.mutable_at(t, k) = a.tokens[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
    }
    py::dict out;
    out["pairs"] = pairs;
    out["positions"] = positions;
    out["tokens"] = tokens;
    out["rope_delta"] = ids.rope_delta;
    out["rule"] = rule;
    return out;
}

}  // namespace prompt_bindings

void bind_prompt(py::module_& m)
{
    using namespace prompt_bindings;
    m.def("parse_prompt_segments", &parse_prompt_segments, py::arg("text"),
          "'text:3;image:1x28x28;video:2x4x4@0.5' -> list of PromptSegment (docs/models.md, Multimodal).\n"
          "Raises posenc.Error naming a malformed segment as written.");
    m.def(
        "prompt_position_ids",
        [](const py::object& source, const py::object& prompt) {
            const AxisPositionIds ids =
                hf::prompt_position_ids(hf::parse_prompt_rule(config_text(source)), segments_of(prompt, 16777216.0));
            py::array_t<std::int64_t> out(
                {static_cast<py::ssize_t>(ids.num_axes), static_cast<py::ssize_t>(ids.tokens)});
            std::int64_t* data = out.mutable_data();
            for (std::size_t i = 0; i < ids.ids.size(); ++i) data[i] = ids.ids[i];
            return py::make_tuple(out, ids.rope_delta);
        },
        py::arg("source"), py::arg("prompt"),
        "The prompt's position ids as the model's get_rope_index builds them: (int64 array [axes, tokens],\n"
        "rope_delta). source: a config.json path or dict; prompt: a SEGMENTS string or a list of\n"
        "PromptSegment (at most 2^24 tokens by the bound 2 t h w per vision segment). Decoded token n\n"
        "(n >= tokens) is at n + rope_delta on every axis.");
    m.def(
        "prompt_angles",
        [](const py::object& source, const py::object& prompt) {
            const std::string text = config_text(source);
            const hf::HfModel model = hf::parse_model(text);
            if (!model.rope.multi_axis())
                throw error("model_type", '"' + model.model_type + '"', "has no M-RoPE",
                            "model_type \"" + model.model_type + "\" has no M-RoPE: each token is at its index");
            const hf::HfPromptRule rule = hf::parse_prompt_rule(text);
            const AxisPositionIds ids = hf::prompt_position_ids(rule, segments_of(prompt, 1048576.0));
            const RopeGroup& g = model.rope.primary_group();
            const TokenAngles a =
                prompt_token_angles(g.spec, frequency_table(g.spec, g.scaling), *model.rope.multi_axis(), ids);
            return angles_result(a, ids, hf::rule_name(rule));
        },
        py::arg("source"), py::arg("prompt"),
        "Each prompt token's coordinates and angle per rotated pair, as posenc-inspect --prompt ... --angles\n"
        "writes them: dict with 'pairs' (int64 [P, 2], the head dims each pair mixes), 'positions'\n"
        "(float64 [tokens, axes]), 'tokens' (float64 [tokens, P], radians, attention scaling excluded),\n"
        "'rope_delta' and 'rule'. At most 2^20 tokens (as posenc-inspect). Raises posenc.Error for a model\n"
        "without M-RoPE or a refused prompt.");
}

}  // namespace posenc::python
