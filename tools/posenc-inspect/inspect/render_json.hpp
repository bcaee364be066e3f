// SPDX-License-Identifier: MIT
// render_json.hpp: the report as exactly one JSON object (docs/cli.md lists the keys).
//
//   name, head_dim, rotary_dim, base, pairing ("half_split" | "interleaved"),
//   scaling {type, <resolved parameters under Hugging Face's key names>},
//   original_length, target_length, attention_factor, softmax_scale_multiplier,
//   pairs [{index, inv_freq_original, inv_freq, period, turns_original, completes_turn,
//           out_of_range, compression}],
//   summary {pairs, incomplete_pairs, out_of_range_pairs, compressed_pairs},
//     -- these describe the group in focus: --layer N's, else full_attention, else the only one
//   num_layers (or null), nope_layers [...],
//   rope_groups [{name, layers, head_dim, rotary_dim, rotary_offset, zero_freq_pairs,
//                 inverse_rope_on_output, base, pairing, scaling, attention_factor,
//                 original_length, target_length, pairs [{index, inv_freq_original, inv_freq}]}],
//     -- head_dim: the group's layers' head; the rotated slice is [rotary_offset,
//        rotary_offset + rotary_dim); zero_freq_pairs: its pairs with inv_freq exactly 0
//                 pair_axes [...] (or null), partner_pair_axes [...] (only when they differ)}],
//     -- pair_axes[i]: the position axis pair i reads (M-RoPE; null without it);
//        partner_pair_axes[i]: the axis of its second coordinate where that differs (XD-RoPE)
//   mrope_section [t, h, w] (or null), mrope_interleaved, multi_axis {kind, num_axes} (or null),
//   axis_reach {temporal, height, width, grid_side_source} (or null): the positions each axis of
//     an M-RoPE layout with height and width axes reaches (inspect/axis_reach.hpp); then each
//     entry of pairs (and of compare's) also has axis, reach, turns_in_reach = reach theta_i / 2 pi,
//     completes_turn_in_reach,
//   query_scale {beta, divisor, position_offset, layers} (or null): the query of each listed
//     layer times 1 + beta ln(1 + floor((pos + position_offset) / divisor)), pos from 0,
//   roformer_bound {pairs, u0, half, distances [1, 10, ...], series [{base, values, first_below_half}]},
//   compare [{scaling, original_length, target_length, attention_factor, pairs [...], summary}]
//     -- only with --compare
//   prompt {rule, tokens, rope_delta, next_position} -- only with --prompt (inspect/prompt.hpp):
//     decoded token n (n >= tokens) is at n + rope_delta on every axis; next_position = tokens + rope_delta
//   angles {pairs [[a, b], ...], positions [[...], ...], tokens [[...], ...]}
//     -- only with --angles (posenc/token_angles.hpp: the head dims each rotated pair mixes,
//        each token's coordinates, each token's angle per pair in radians)
// Numbers are written at full double precision (shortest text that reads back exactly); a value
// that is not finite (a period past 1.8e308 tokens) is written as null.
// A learned-table model (GPT-2) gives {name, position_encoding: "learned_absolute", positions,
// d_model, parameters} instead.
#pragma once

#include <nlohmann/json.hpp>

#include <posenc/scaling/scaling.hpp>
#include <posenc/token_angles.hpp>

#include <cmath>
#include <string>
#include <vector>
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

namespace detail {

/// The pairs of `d`; with `reach` (M-RoPE with height and width axes) each pair also gets its
/// axis, the positions it reaches, and its turns and full turn within them.
inline nlohmann::ordered_json pairs_json(const posenc::ExtensionDiagnostics& d, const AxisReach* reach = nullptr)
{
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
        if (reach) {
            q["axis"] = reach->pair_axis[static_cast<std::size_t>(p.index)];
            q["reach"] = reach->reach(p.index);
            q["turns_in_reach"] = reach->turns(p);
            q["completes_turn_in_reach"] = reach->turns(p) >= 1.0;
        }
        pairs.push_back(std::move(q));
    }
    return pairs;
}

inline nlohmann::ordered_json summary_json(const posenc::ExtensionDiagnostics& d)
{
    return {{"pairs", d.summary.pairs},
            {"incomplete_pairs", d.summary.incomplete_pairs},
            {"out_of_range_pairs", d.summary.out_of_range_pairs},
            {"compressed_pairs", d.summary.compressed_pairs}};
}

inline nlohmann::ordered_json group_json(const GroupReport& g)
{
    const posenc::ExtensionDiagnostics& d = g.diagnostics;
    nlohmann::ordered_json j;
    j["name"] = g.name;
    j["layers"] = g.layers;
    j["head_dim"] = d.head_dim;
    j["rotary_dim"] = d.rotary_dim;
    j["rotary_offset"] = g.rotary_offset;
    j["zero_freq_pairs"] = g.zero_freq_pairs();
    j["inverse_rope_on_output"] = g.inverse_rope_on_output;
    j["base"] = d.base;
    j["pairing"] = posenc::to_string(d.pairing);
    j["scaling"] = scaling_json(g.scaling);
    j["attention_factor"] = d.attention_factor;
    j["original_length"] = d.training_length;  // the group's own L and L' (--list-presets gives the same)
    j["target_length"] = d.target_length;
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const posenc::PairDiagnostics& p : d.pairs)
        pairs.push_back({{"index", p.index}, {"inv_freq_original", p.inv_freq_original}, {"inv_freq", p.inv_freq}});
    j["pairs"] = std::move(pairs);
    return j;
}

inline nlohmann::ordered_json bound_json(const BoundReport& b)
{
    nlohmann::ordered_json j;
    j["pairs"] = b.pairs;
    j["u0"] = b.start;
    j["half"] = b.start / 2;
    j["distances"] = b.decades;
    nlohmann::ordered_json series = nlohmann::ordered_json::array();
    for (const BoundSeries& s : b.series) {
        nlohmann::ordered_json e;
        e["base"] = s.base;
        e["model_base"] = s.model_base;
        e["values"] = s.decade_values;
        e["first_below_half"] = s.first_below_half ? nlohmann::ordered_json(*s.first_below_half) : nullptr;
        series.push_back(std::move(e));
    }
    j["series"] = std::move(series);
    return j;
}

}  // namespace detail

/// posenc::TokenAngles as the "angles" object: {"pairs", "positions", "tokens"}, each a list of
/// lists (checked first, so a malformed record is refused rather than written).
inline nlohmann::ordered_json angles_json(const posenc::TokenAngles& a)
{
    a.check();
    nlohmann::ordered_json j;
    j["pairs"] = a.pairs;
    j["positions"] = a.positions;
    j["tokens"] = a.tokens;
    return j;
}

namespace detail {

/// A config's attention facts: qk_head_dim, the QK-norm (null: a model_type posenc does not know)
/// and MLA's layout (null without MLA); optional sizes are null when the config does not give them.
inline nlohmann::ordered_json attention_json(const AttentionFacts& a)
{
    const auto size = [](const std::optional<int>& v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json j;
    j["qk_head_dim"] = a.qk_head_dim;
    if (a.qk_norm) {
        j["qk_norm"] = {{"kind", posenc::hf::to_string(a.qk_norm->kind)}};
        if (a.qk_norm->present()) {
            j["qk_norm"]["scope"] = posenc::hf::to_string(a.qk_norm->scope);
            j["qk_norm"]["place"] = posenc::hf::to_string(a.qk_norm->place);
        }
        j["qk_norm"]["source"] = a.qk_norm->source;
    } else {
        j["qk_norm"] = nullptr;
    }
    if (a.mla)
        j["mla"] = {{"qk_nope_head_dim", a.mla->qk_nope_head_dim}, {"qk_rope_head_dim", a.mla->qk_rope_head_dim},
                    {"v_head_dim", size(a.mla->v_head_dim)},       {"kv_lora_rank", size(a.mla->kv_lora_rank)},
                    {"q_lora_rank", size(a.mla->q_lora_rank)},     {"query_rope_offset", a.mla->query_rope_offset},
                    {"key_rope_offset", a.mla->key_rope_offset},   {"key_rope_shared", a.mla->key_rope_shared}};
    else j["mla"] = nullptr;
    if (const auto& x =
            a.indexer)  // the indexer's head, rotated slice, pairing and key positions (hf_indexer_rope.hpp)
        j["indexer"] = {{"head_dim", x->spec.head_dim()},
                        {"rotary_dim", x->spec.rotary_dim()},
                        {"rotary_offset", x->spec.rotary_offset()},
                        {"pairing", posenc::to_string(x->spec.pairing())},
                        {"group", x->group},
                        {"keys", posenc::hf::to_string(x->keys)},
                        {"compress_ratio", x->compress_ratio},
                        {"head_dim_key", x->head_dim_key},
                        {"source", x->source}};
    else j["indexer"] = nullptr;
    return j;
}

}  // namespace detail

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
    const AxisReach* reach = r.axis_reach ? &*r.axis_reach : nullptr;
    j["pairs"] = detail::pairs_json(d, reach);
    j["summary"] = detail::summary_json(d);
    j["num_layers"] = r.num_layers ? nlohmann::ordered_json(*r.num_layers) : nullptr;
    j["nope_layers"] = r.nope_layers;
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const GroupReport& g : r.groups) {
        // The multi-axis layout is the model's: every group's pairs read the same axes.
        nlohmann::ordered_json group = detail::group_json(g);
        group["pair_axes"] =
            r.pair_axis.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.pair_axis);
        if (!r.partner_pair_axis.empty()) group["partner_pair_axes"] = r.partner_pair_axis;
        groups.push_back(std::move(group));
    }
    j["rope_groups"] = std::move(groups);
    j["mrope_section"] = r.mrope_section ? nlohmann::ordered_json(*r.mrope_section) : nullptr;
    j["mrope_interleaved"] = r.mrope_interleaved;
    if (r.multi_axis_kind.empty()) j["multi_axis"] = nullptr;
    else j["multi_axis"] = {{"kind", r.multi_axis_kind}, {"num_axes", r.num_axes}};
    if (reach)
        j["axis_reach"] = {{"temporal", reach->context},
                           {"height", reach->grid_side},
                           {"width", reach->grid_side},
                           {"grid_side_source", reach->grid_assumed ? assumed_grid_reason : "--grid-side"}};
    else j["axis_reach"] = nullptr;
    if (r.query_scale)
        j["query_scale"] = {{"beta", r.query_scale->beta},
                            {"divisor", r.query_scale->divisor},
                            {"position_offset", r.query_scale->position_offset},
                            {"layers", r.query_scale->layers}};
    else j["query_scale"] = nullptr;
    if (r.attention) j["attention"] = detail::attention_json(*r.attention);
    j["roformer_bound"] = detail::bound_json(r.bound);
    if (!r.compared.empty()) {
        nlohmann::ordered_json compare = nlohmann::ordered_json::array();
        for (const GroupReport& g : r.compared) {
            nlohmann::ordered_json c;
            c["scaling"] = scaling_json(g.scaling);
            c["original_length"] = g.diagnostics.training_length;
            c["target_length"] = g.diagnostics.target_length;
            c["attention_factor"] = g.diagnostics.attention_factor;
            c["pairs"] = detail::pairs_json(g.diagnostics, reach);
            c["summary"] = detail::summary_json(g.diagnostics);
            compare.push_back(std::move(c));
        }
        j["compare"] = std::move(compare);
    }
    if (r.prompt)
        j["prompt"] = {{"rule", r.prompt->rule},
                       {"tokens", r.prompt->tokens},
                       {"rope_delta", r.prompt->rope_delta},
                       {"next_position", r.prompt->tokens + r.prompt->rope_delta}};
    if (r.angles) j["angles"] = angles_json(*r.angles);
    return dump(j);
}

/// The pair table as CSV: a header row, then one row per pair (with --compare, per scaling and
/// pair). Column names are the JSON keys; the first column is the group (or the scaling).
inline std::string render_csv(const Report& r)
{
    const bool compare = !r.compared.empty();
    std::string out =
        std::string(compare ? "scaling" : "group") +
        ",pair,inv_freq_original,inv_freq,period,turns_original,completes_turn,out_of_range,compression\n";
    const auto csv_field = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    const auto num = [](double x) { return std::isfinite(x) ? detail::number_text(x) : std::string(); };
    const std::vector<GroupReport> rows = compare ? r.compared : std::vector<GroupReport> {r.groups[r.focus]};
    for (const GroupReport& g : rows)
        for (const posenc::PairDiagnostics& p : g.diagnostics.pairs)
            out += csv_field(detail::printable(g.name)) + "," + std::to_string(p.index) + "," +
                   num(p.inv_freq_original) + "," + num(p.inv_freq) + "," + num(p.period) + "," +
                   num(p.turns_original) + "," + (p.completes_turn ? "true" : "false") + "," +
                   (p.out_of_range ? "true" : "false") + "," + num(p.compression) + "\n";
    return out;
}

}  // namespace inspect
