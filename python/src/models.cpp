// SPDX-License-Identifier: MIT
// python/src/models.cpp: presets (submodule posenc.presets), the Hugging Face config reader, and
// frequency_table, which takes a spec or anything that stands for one.
#include "bindings.hpp"

#include <posenc/frequencies.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_config_file.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace posenc::python {

namespace {

FrequencyTable table_of(const RopeSpec& spec, const Scaling& scaling, std::optional<std::int64_t> sequence_length,
                        Precision precision)
{
    return sequence_length ? frequency_table(spec, scaling, *sequence_length, precision)
                           : frequency_table(spec, scaling, precision);
}

/// "qwen3.8-27b" -> "qwen3_8_27b": the preset's name as a Python identifier (the C++ variable's name).
std::string identifier_of(std::string_view name)
{
    std::string out(name);
    for (char& c : out)
        if (c == '-' || c == '.') c = '_';
    return out;
}

constexpr const char* frequency_table_doc =
    "The per-pair frequencies of a RoPE under a context extension, as a FrequencyTable:\n"
    "  none: theta_i = base^(-2i/R); each Scaling class documents its theta'_i and attention factor.\n"
    "The first argument is a RopeSpec, or a ModelPreset / HfModelRope standing for its RopeSpec; the\n"
    "scaling is always explicit (none by default), so frequency_table(presets.qwen3_8b()) is the\n"
    "native table (24 pairs never turn within 32,768) and preset.table() the shipped one.\n"
    "sequence_length: the table in effect for that many tokens (dynamic NTK, LongRoPE); None is\n"
    "Hugging Face's init table. precision: 'exact' (default) or 'hf_float32'.";

/// posenc.presets: ModelPreset and its functions.
void bind_presets(py::module_& m)
{
    // ---- presets ------------------------------------------------------------------------------
    py::module_ presets = m.def_submodule(
        "presets", "The lessons' models and real models as data: one function per preset (qwen3_8b(), ...),\n"
                   "all(), names() and find(name). Values no source states are marked in the C++ header.");
    bind_enum<PositionEncodingKind>(
        presets, "PositionEncodingKind", "rope or learned_absolute.",
        {{"rope", PositionEncodingKind::rope}, {"learned_absolute", PositionEncodingKind::learned_absolute}});
    py::class_<ModelPreset>(presets, "ModelPreset", "One model's position-encoding facts.")
        .def_property_readonly("name", [](const ModelPreset& p) { return std::string(p.name); })
        .def_property_readonly("display_name", [](const ModelPreset& p) { return std::string(p.display_name); })
        .def_readonly("kind", &ModelPreset::kind)
        .def_readonly("d_model", &ModelPreset::d_model)
        .def_readonly("num_heads", &ModelPreset::num_heads)
        .def_readonly("head_dim", &ModelPreset::head_dim)
        .def_readonly("rotary_dim", &ModelPreset::rotary_dim)
        .def_readonly("base", &ModelPreset::base)
        .def_readonly("pairing", &ModelPreset::pairing)
        .def_readonly("native_length", &ModelPreset::native_length)
        .def_readonly("extended_length", &ModelPreset::extended_length)
        .def_readonly("max_position_embeddings", &ModelPreset::max_position_embeddings)
        .def_readonly("qk_head_dim", &ModelPreset::qk_head_dim)
        .def("rope_spec", &ModelPreset::rope_spec, "The RopeSpec; raises posenc.Error for a learned-table preset.")
        .def("scaling", &ModelPreset::scaling, "The context extension the model ships (NoScaling if none).")
        .def(
            "table",
            [](const ModelPreset& p, std::optional<std::int64_t> sequence_length, Precision precision) {
                return table_of(p.rope_spec(), p.scaling(), sequence_length, precision);
            },
            py::arg("sequence_length") = py::none(), py::arg("precision") = Precision::exact,
            "frequency_table(rope_spec(), scaling()): the table with the shipped extension.")
        .def("learned_table_parameters", &ModelPreset::learned_table_parameters)
        .def("__repr__", [](const ModelPreset& p) { return "ModelPreset('" + std::string(p.name) + "')"; });
    for (const ModelPreset& preset : models::all_presets) {
        const ModelPreset* p = &preset;
        const std::string doc = std::string(preset.display_name) + " (preset '" + std::string(preset.name) + "').";
        presets.def(
            identifier_of(preset.name).c_str(), [p]() { return *p; }, doc.c_str());
    }
    presets.def(
        "all",
        []() {
            py::list out;
            for (const ModelPreset& p : models::all_presets) out.append(py::cast(p));
            return out;
        },
        "Every preset: the lessons' models in lesson order, then the real models.");
    presets.def(
        "names",
        []() {
            py::list out;
            for (const ModelPreset& p : models::all_presets) out.append(py::str(std::string(p.name)));
            return out;
        },
        "The presets' lookup names ('qwen3-8b', ...).");
    presets.def(
        "find", [](const std::string& name) { return models::find_preset(name); }, py::arg("name"),
        "The preset called `name` ('qwen3-8b'); raises posenc.Error listing the known names otherwise.");
}

/// ConfigWarning and HfModelRope.
void bind_reader_results(py::module_& m)
{
    // ---- the config reader ---------------------------------------------------------------------
    py::class_<hf::ConfigWarning>(m, "ConfigWarning", "A warning Hugging Face would log while loading the config.")
        .def_readonly("key", &hf::ConfigWarning::key)
        .def_readonly("message", &hf::ConfigWarning::message)
        .def("__repr__",
             [](const hf::ConfigWarning& w) { return "ConfigWarning('" + w.key + "', '" + w.message + "')"; });
    py::class_<hf::HfModelRope>(m, "HfModelRope",
                                "A model's rotary embedding read from a Hugging Face config.json, resolved as\n"
                                "transformers resolves it (rope_type, partial rotary, L0 priority, DeepSeek MLA).")
        .def_readonly("name", &hf::HfModelRope::name)
        .def_readonly("model_type", &hf::HfModelRope::model_type)
        .def_readonly("spec", &hf::HfModelRope::spec)
        .def_readonly("scaling", &hf::HfModelRope::scaling)
        .def_readonly("max_position_embeddings", &hf::HfModelRope::max_position_embeddings)
        .def_readonly("original_length", &hf::HfModelRope::original_length)
        .def_readonly("attention_factor", &hf::HfModelRope::attention_factor)
        .def_readonly("softmax_scale_multiplier", &hf::HfModelRope::softmax_scale_multiplier)
        .def_readonly("qk_head_dim", &hf::HfModelRope::qk_head_dim)
        .def_readonly("warnings", &hf::HfModelRope::warnings)
        .def_readonly("notes", &hf::HfModelRope::notes)
        .def("softmax_scale", &hf::HfModelRope::softmax_scale,
             "width^(-1/2) * softmax_scale_multiplier (width = qk_head_dim for MLA, else head_dim).")
        .def(
            "table",
            [](const hf::HfModelRope& r, std::optional<std::int64_t> sequence_length, Precision precision) {
                return table_of(r.spec, r.scaling, sequence_length, precision);
            },
            py::arg("sequence_length") = py::none(), py::arg("precision") = Precision::exact,
            "The table with the config's scaling, at init or for `sequence_length` tokens.")
        .def("__repr__", [](const hf::HfModelRope& r) {
            return "HfModelRope(name='" + r.name + "', rope_type='" + scaling_type_name(r.scaling) + "')";
        });
}

/// The config reader's entry points.
void bind_config_reader(py::module_& m)
{
    m.def(
        "_read_config_file",
        [](const py::bytes& path, const std::string& shown) {
            const std::string text = hf::read_config_file(std::string(path), shown);
            return py::bytes(text);
        },
        py::arg("path"), py::arg("shown"),
        "The bytes of the config file at `path` (the file system's bytes): posenc::hf::read_config_file's checks,\n"
        "with messages that start with `shown`. Raises posenc.Error (field 'path').");
    m.def(
        "parse_hf_config",
        [](const std::string& text, bool assume_half_split) {
            hf::ReadOptions options;
            options.assume_half_split = assume_half_split;
            return hf::single_group(hf::parse_model(text, options));
        },
        py::arg("text"), py::kw_only(), py::arg("assume_half_split") = false,
        "A config.json's text -> HfModelRope. Raises posenc.Error naming the key path. A model_type\n"
        "posenc does not know is refused unless assume_half_split=True (then read as half_split pairs\n"
        "with generic defaults, and a warning).");
    m.def(
        "from_hf_config",
        [](const py::object& source, bool assume_half_split) {
            hf::ReadOptions options;
            options.assume_half_split = assume_half_split;
            if (py::isinstance<py::dict>(source)) {
                const std::string text = py::module_::import("json").attr("dumps")(source).cast<std::string>();
                return hf::single_group(hf::parse_model(text, options));
            }
            const std::string path = py::module_::import("os").attr("fspath")(source).cast<std::string>();
            return hf::single_group(hf::read_model(path, options));
        },
        py::arg("source"), py::kw_only(), py::arg("assume_half_split") = false,
        "A Hugging Face config: a path (str or os.PathLike) to a config.json, or the config as a dict\n"
        "(serialised with json.dumps). Returns HfModelRope (spec, scaling, lengths, attention factor,\n"
        "softmax multiplier, warnings). Raises posenc.Error naming the key path, e.g.\n"
        "'rope_scaling.factor: expected a number >= 1, got \"four\"'. A model_type posenc does not know\n"
        "is refused (its code decides the pairing) unless assume_half_split=True: half_split pairs,\n"
        "generic defaults, and a warning.");
}

/// frequency_table of a spec, a preset or a model.
void bind_frequency_table_overloads(py::module_& m)
{
    // ---- frequency_table ----------------------------------------------------------------------
    const Scaling none = NoScaling {};
    m.def("frequency_table", &table_of, py::arg("spec"), py::arg("scaling") = none,
          py::arg("sequence_length") = py::none(), py::arg("precision") = Precision::exact, frequency_table_doc);
    m.def(
        "frequency_table",
        [](const ModelPreset& p, const Scaling& s, std::optional<std::int64_t> n, Precision precision) {
            return table_of(p.rope_spec(), s, n, precision);
        },
        py::arg("preset"), py::arg("scaling") = none, py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact);
    m.def(
        "frequency_table",
        [](const hf::HfModelRope& r, const Scaling& s, std::optional<std::int64_t> n, Precision precision) {
            return table_of(r.spec, s, n, precision);
        },
        py::arg("model"), py::arg("scaling") = none, py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact);
}

}  // namespace

void bind_models(py::module_& m)
{
    bind_presets(m);
    bind_reader_results(m);
    bind_config_reader(m);
    bind_frequency_table_overloads(m);
}

}  // namespace posenc::python
