// SPDX-License-Identifier: MIT
// render_json.hpp: the report as exactly one JSON object (docs/cli.md lists the keys).
//
//   name, head_dim, rotary_dim, base, pairing ("half_split" | "interleaved"),
//   scaling {type, <resolved parameters under Hugging Face's key names>},
//   original_length, target_length, attention_factor, softmax_scale_multiplier,
//   pairs [{index, inv_freq_original, inv_freq, period, turns_original, completes_turn,
//           out_of_range, compression}],
//   summary {pairs, incomplete_pairs, out_of_range_pairs, compressed_pairs}
// Numbers are written at full double precision (shortest text that reads back exactly); a value
// that is not finite (a period past 1.8e308 tokens) is written as null.
// A learned-table model (GPT-2) gives {name, position_encoding: "learned_absolute", positions,
// d_model, parameters} instead.
#pragma once

#include <nlohmann/json.hpp>

#include <posenc/scaling/scaling.hpp>

#include <string>
#include <type_traits>
#include <variant>

#include "inspect/report.hpp"

namespace inspect {

/// The scaling as a JSON object: {"type": ..., then scaling_parameters in order}.
inline nlohmann::ordered_json scaling_json(const posenc::Scaling& scaling)
{
    nlohmann::ordered_json j;
    j["type"] = posenc::scaling_type_name(scaling);
    for (const posenc::ScalingParameter& p : posenc::scaling_parameters(scaling))
        std::visit([&](const auto& v) { j[p.name] = v; }, p.value);
    return j;
}

/// Indented by 2, ending in a newline; invalid UTF-8 in names (a config's bytes) becomes U+FFFD
/// instead of an exception.
inline std::string dump(const nlohmann::ordered_json& j)
{
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

/// The report as a JSON document (see the file comment).
inline std::string render_json(const Report& r)
{
    nlohmann::ordered_json j;
    j["name"] = r.name;
    if (r.learned_table) {
        j["position_encoding"] = "learned_absolute";
        j["positions"] = r.learned_table->positions;
        j["d_model"] = r.learned_table->width;
        j["parameters"] = r.learned_table->parameters();
        return dump(j);
    }
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    j["head_dim"] = d.head_dim;
    j["rotary_dim"] = d.rotary_dim;
    j["base"] = d.base;
    j["pairing"] = posenc::to_string(d.pairing);
    j["scaling"] = scaling_json(r.scaling);
    j["original_length"] = d.training_length;
    j["target_length"] = d.target_length;
    j["attention_factor"] = d.attention_factor;
    j["softmax_scale_multiplier"] = d.softmax_scale_multiplier;
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const posenc::PairDiagnostics& p : d.pairs) {
        nlohmann::ordered_json q;
        q["index"] = p.index;
        q["inv_freq_original"] = p.inv_freq_original;
        q["inv_freq"] = p.inv_freq;
        q["period"] = p.period;
        q["turns_original"] = p.turns_original;
        q["completes_turn"] = p.completes_turn;
        q["out_of_range"] = p.out_of_range;
        q["compression"] = p.compression;
        pairs.push_back(std::move(q));
    }
    j["pairs"] = std::move(pairs);
    j["summary"] = {{"pairs", d.summary.pairs},
                    {"incomplete_pairs", d.summary.incomplete_pairs},
                    {"out_of_range_pairs", d.summary.out_of_range_pairs},
                    {"compressed_pairs", d.summary.compressed_pairs}};
    return dump(j);
}

}  // namespace inspect
