// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_reader.hpp: the JSON stage of the config reader: config.json text,
// a file or a parsed object in, the whole model's plain values (HfModelConfig) out. resolve_model
// is the pipeline: one free function per step, in the headers it names.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_model_reader.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_attention_facts_json.hpp"
#include "posenc/models/detail/hf_attention_sizes_json.hpp"
#include "posenc/models/detail/hf_config_text.hpp"
#include "posenc/models/detail/hf_group_rules_json.hpp"
#include "posenc/models/detail/hf_indexer_json.hpp"
#include "posenc/models/detail/hf_layer_rules_json.hpp"
#include "posenc/models/detail/hf_model_checks_json.hpp"
#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/detail/hf_mrope_json.hpp"
#include "posenc/models/detail/hf_query_scale_json.hpp"
#include "posenc/models/hf_read_options.hpp"
#include "posenc/models/hf_config_file.hpp"

namespace posenc::hf::detail {

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
        fail("config", "expected valid JSON (" + ellipsized(e.what(), 160) + ")",
             std::to_string(text.size()) + " bytes");
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

/// The JSON stage of hf::read_model (hf_config.hpp): resolves a parsed config.json object into
/// the model's RoPE groups and layer map, one step per concept, each a function of what the steps
/// before it returned:
///   identity (hf_model_identity.hpp) -> checks (hf_model_checks_json.hpp) -> layer count, attention
///   sizes, layer map (hf_layer_rules_json.hpp, hf_attention_sizes_json.hpp) -> groups
///   (hf_group_rules_json.hpp) -> group per layer -> M-RoPE (hf_mrope_json.hpp) -> query scale
///   (hf_query_scale_json.hpp).
/// Throws posenc::error with the key path (prefixed "text_config." when nested) on wrong types,
/// missing required keys, values outside what Hugging Face or posenc accepts, and keys posenc
/// cannot represent.
inline HfModelConfig resolve_model(const nlohmann::json& config, const ReadOptions& options)
{
    std::string prefix;  // the language model's key path, once located; errors from later steps carry it
    try {
        ReadLog log;
        ModelIdentity id = locate_language_model(config, log);
        prefix = id.pre;
        id = with_family_rule(std::move(id), log);
        check_model(id, options, log);
        const std::optional<int> num_layers = read_num_layers(id, log);
        const AttentionSizes sizes = read_attention_sizes(id);
        const LayerMap map = read_layer_map(id, num_layers);
        RopeGroups groups = read_groups(id, map, log);

        HfModelConfig out;
        out.name_or_path = id.name_or_path;
        out.model_type = id.model_type;
        out.key_prefix = id.pre;
        out.num_layers = map.num_layers;
        out.groups = std::move(groups.groups);
        out.layer_groups = layer_groups_of(map, groups.layer_types);
        const MropeLayout mrope = read_mrope(id, out.primary_group().config, log);
        out.mrope_section = mrope.section;
        out.mrope_interleaved = mrope.interleaved;
        out.mrope_coordinate_sections = mrope.coordinate_sections;
        out.mrope_height_width_alternating = mrope.height_width_alternating;
        out.query_scale = read_query_scale(id, out.primary_group().config, out.layer_groups);
        out.num_attention_heads = sizes.num_attention_heads;
        out.num_key_value_heads = sizes.num_key_value_heads;
        out.hidden_size = sizes.hidden_size;
        out.rms_norm_eps = sizes.rms_norm_eps;
        out.attention = read_attention_facts(id);
        out.indexer = read_indexer(id, log.warnings);
        out.notes = std::move(log.notes);
        out.warnings = std::move(log.warnings);
        // Key paths of a nested config carry its prefix.
        for (HfGroupConfig& g : out.groups)
            for (ConfigWarning& w : g.config.warnings) w.key = id.pre + w.key;
        return out;
    } catch (const nlohmann::json::exception& e) {
        fail("config", "expected JSON values nlohmann_json can read (" + ellipsized(e.what(), 160) + ")",
             "an unreadable value");
    } catch (const posenc::error& e) {
        const std::string field = e.field();
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
        warnings.push_back({model.key_prefix + "layer_types", "this model has " + std::to_string(model.groups.size()) +
                                                                  " RoPE groups; this view shows \"" +
                                                                  model.primary_group().name +
                                                                  "\" only (also: " + others + ")"});
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

}  // namespace posenc::hf::detail
