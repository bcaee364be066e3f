// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_reader.hpp: the JSON stage of the config reader: config.json text,
// a file or a parsed object in, the whole model's plain values (HfModelConfig) out. ModelReader
// runs the stages (the classes of hf_model_state.hpp and the headers that derive from it) in order.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_model_reader.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/detail/hf_attention_sizes_json.hpp"
#include "posenc/models/detail/hf_config_text.hpp"
#include "posenc/models/hf_config_file.hpp"

namespace posenc::hf::detail_json {

/// Parses config.json text (after scan_text) and hands the document, with its underflowing
/// literals registered in raw_literals() for the duration of the call, to `resolve`.
template <class Resolve>
auto with_parsed_text(std::string_view text, Resolve&& resolve) -> decltype(resolve(std::declval<const json&>()))
{
    require_no_nul(text, "config");
    const std::vector<LossyLiteral> lossy = scan_text(text);
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
        fail("config", "expected valid JSON (" + ellipsized(e.what(), 160) + ")", std::to_string(text.size()) + " bytes");
    }
    struct Registry {
        Registry() { raw_literals().clear(); }
        ~Registry() { raw_literals().clear(); }
    } registry;
    for (const LossyLiteral& l : lossy) {
        try {
            raw_literals()[&j.at(json::json_pointer(l.pointer))] = l.text;
        } catch (const json::exception&) {
            // a duplicate key the parser dropped, or a key the scan could not decode: nothing to show
        }
    }
    return resolve(j);
}

/// Reads a whole model out of a config object: one stage per concept (ModelState and the classes
/// deriving from it), one member function per section of the config, called in the order of read().
class ModelReader : private AttentionSizes
{
public:
    using AttentionSizes::AttentionSizes;

    HfModelConfig read()
    {
        if (!root.is_object()) fail_json("config", "expected a JSON object", root);
        read_identity();
        refuse_other_position_encodings();
        apply_family_refusal();
        check_rope_interleave();
        check_model_specific_keys();
        check_unknown_family();
        read_num_layers();
        read_attention_sizes();
        read_layer_types();
        decide_rotation();
        require_a_rope_layer();
        build_groups();
        build_layer_map();
        read_mrope();
        read_query_scale();
        // Key paths of a nested config carry its prefix.
        for (HfGroupConfig& g : out.groups)
            for (ConfigWarning& w : g.config.warnings) w.key = pre + w.key;
        return out;
    }

    /// The language model's key path ("", "text_config.", "thinker_config.text_config."), once
    /// read() has read the identity (also when it threw after that).
    const std::string& key_prefix() const noexcept { return out.key_prefix; }
};

/// The JSON stage of hf::read_model (hf_config.hpp): resolves a parsed config.json object into
/// the model's RoPE groups and layer map. Throws posenc::error with the key path (prefixed
/// "text_config." when nested) on wrong types, missing required keys, values outside what Hugging
/// Face or posenc accepts, and keys posenc cannot represent.
inline HfModelConfig resolve_model(const nlohmann::json& config, const ReadOptions& options)
{
    // Nested configs report key paths under the language model's path (text_config., ...).
    ModelReader reader(config, options);
    try {
        return reader.read();
    } catch (const nlohmann::json::exception& e) {
        fail("config", "expected JSON values nlohmann_json can read (" + ellipsized(e.what(), 160) + ")",
             "an unreadable value");
    } catch (const posenc::error& e) {
        const std::string field = e.field();
        const std::string& prefix = reader.key_prefix();
        if (prefix.empty() || field.rfind(prefix.substr(0, prefix.find('.')), 0) == 0 || field == "config" ||
            field == "model_type" || field == "_name_or_path")
            throw;
        const std::string path = prefix + field;
        throw posenc::error(path, e.value(), e.rule(), path + ": " + e.rule() + ", got " + e.value());
    }
}

/// Parses config.json text and resolves the whole model (resolve_model). Malformed JSON,
/// numbers outside double's range (named by their key, long literals cut with an ellipsis), and
/// nesting deeper than 64 levels are refused with posenc::error; a number that underflows
/// (1e-400) is refused, shown as written, when its key is read.
inline HfModelConfig parse_model_values(std::string_view text, const ReadOptions& options = {})
{
    return with_parsed_text(text, [&](const nlohmann::json& j) { return resolve_model(j, options); });
}

/// Reads and parses a config.json file (parse_model_values); an unreadable file or a directory
/// is a posenc::error naming the path.
inline HfModelConfig read_model_values(const std::string& path, const ReadOptions& options = {})
{
    return parse_model_values(read_config_file(path), options);
}

/// The JSON stage's single-group view, for the tests of this stage: the primary group (the only
/// one, else "full_attention"), with a warning naming the other groups and the NoPE layers when
/// there are any. hf::single_group gives the same view of the validated model.
inline HfRopeConfig primary_values(const HfModelConfig& model)
{
    HfRopeConfig out = model.primary_group().config;
    out.model_type = model.model_type;
    if (out.name_or_path.empty()) out.name_or_path = model.name_or_path;
    std::vector<ConfigWarning> warnings = model.warnings;
    if (model.groups.size() > 1) {
        std::string others;
        for (const HfGroupConfig& g : model.groups)
            if (&g != &model.primary_group()) others += (others.empty() ? "" : ", ") + g.name;
        warnings.push_back({model.key_prefix + "layer_types",
                            "this model has " + std::to_string(model.groups.size()) + " RoPE groups; this view shows \"" +
                                model.primary_group().name + "\" only (also: " + others + ")"});
    }
    std::string nope;
    for (std::size_t i = 0; i < model.layer_groups.size(); ++i)
        if (model.layer_groups[i] < 0) nope += (nope.empty() ? "" : ", ") + std::to_string(i);
    if (!nope.empty())
        warnings.push_back({model.key_prefix + "layers", "layers without RoPE (NoPE): " + ellipsized(nope, 60)});
    warnings.insert(warnings.end(), out.warnings.begin(), out.warnings.end());
    out.warnings = std::move(warnings);
    out.notes.insert(out.notes.begin(), model.notes.begin(), model.notes.end());
    return out;
}

}  // namespace posenc::hf::detail_json
