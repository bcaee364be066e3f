// SPDX-License-Identifier: MIT
// posenc-inspect --tower vision --grid T,H,W [--angles] [--json]: a config's vision tower
// (posenc/models/hf_vision_tower.hpp) and what each token of one patch grid gets
// (posenc/vision_tower.hpp), so that a user can diff posenc against an engine.
//
// JSON: {"tower": "vision", "model_type", "rule", "head_dim", "rotary_dim", "theta",
// "merge_size", "patch_order", "precision", "grid_thw": [T, H, W], "num_tokens", "warnings":
// [{"key", "message"}], "angles": {"pairs", "positions", "tokens"} (with --angles only)}.
// Angles are the model's float32 values (Precision::hf_float32). Text: the same facts, one per
// line, then with --angles one line per token: its index, row, column and angles.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <posenc/models/hf_vision_tower.hpp>
#include <posenc/vision_tower.hpp>

#include "inspect/audio_tower.hpp"
#include "inspect/options.hpp"
#include "inspect/render_json.hpp"

namespace inspect {

/// A tower's facts and, with --angles, its tokens (file comment).
struct TowerReport {
    posenc::hf::HfVisionTower read;
    posenc::PatchGrid grid;
    std::int64_t num_tokens = 0;
    std::optional<posenc::TokenAngles> angles;
};

/// Throws UsageError unless the tower options form one of the forms in the file comment.
inline void check_tower_options(const Options& o)
{
    if (o.tower.empty()) {
        if (o.grid) throw UsageError("--grid needs --tower vision");
        if (o.angles && !o.prompt) throw UsageError("--angles needs --prompt SEGMENTS or --tower vision");
        return;
    }
    if (o.tower == "audio") return check_audio_tower_options(o);  // inspect/audio_tower.hpp
    if (o.tower != "vision") throw UsageError("--tower: expected vision or audio, got " + detail::in_quotes(o.tower));
    if (o.config_path.empty()) throw UsageError("--tower applies to --config only (presets describe language models)");
    if (!o.grid) throw UsageError("--tower vision needs --grid T,H,W (the processor's grid_thw, in patches)");
    for (const char* other : {"--scaling", "--compare", "--factor", "--svg", "--csv", "--layer", "--length",
                              "--original-length", "--assume-half-split", "--bound-pairs", "--grid-side"})
        if (o.given(other)) throw UsageError(std::string(other) + " does not apply to --tower");
}

inline TowerReport build_tower_report(const Options& o)
{
    TowerReport r;
    r.read = posenc::hf::read_vision_tower(o.config_path);
    r.grid = {(*o.grid)[0], (*o.grid)[1], (*o.grid)[2]};
    // tower_token_angles checks the grid against the tower (merge blocks, size) either way
    posenc::TokenAngles a = posenc::tower_token_angles(r.read.tower, r.grid);
    r.num_tokens = static_cast<std::int64_t>(a.num_tokens());
    if (o.angles) r.angles = std::move(a);
    return r;
}

inline std::string tower_patch_order(const posenc::VisionTower& t)
{
    const std::string m = std::to_string(t.merge_size);
    return (t.merge_size == 1 ? std::string("row-major") : "block-major over " + m + "x" + m + " merge blocks") +
           (t.rule == posenc::VisionTowerRule::columns_rows_interleaved_cls ? ", a CLS token last" : "") +
           ", frames repeated";
}

/// The pair layout and axes in words: "pairs (i, i + 40), pairs 0-19 row, 20-39 column".
inline std::string tower_layout(const posenc::VisionTower& t)
{
    const int q = t.head_dim / 4;
    const auto pairs = posenc::tower_pairs(t);
    const bool rows_first = t.rule == posenc::VisionTowerRule::rows_columns_shared ||
                            t.rule == posenc::VisionTowerRule::rows_columns_even_odd;
    if (t.rule == posenc::VisionTowerRule::frames_rows_columns_partial)
        return "pairs (i, i + " + std::to_string(t.num_pairs()) + "), " + std::to_string(t.axis_frequencies()) +
               " per axis: frame, row, column; dims " + std::to_string(2 * t.num_pairs()) + "-" +
               std::to_string(t.head_dim - 1) + " unrotated";
    if (t.rule == posenc::VisionTowerRule::columns_rows_alternating)
        return "pairs (i, i + " + std::to_string(2 * q) + "), even pairs column, odd pairs row";
    const std::string offset = t.rule == posenc::VisionTowerRule::columns_rows_interleaved_cls ||
                                       t.rule == posenc::VisionTowerRule::columns_rows_offset_shared
                                   ? " + 1"
                               : t.rule == posenc::VisionTowerRule::columns_rows_interleaved_scaled
                                   ? " x " + std::to_string(t.scale)
                                   : "";
    return "pair 0 dims (" + std::to_string(pairs[0][0]) + ", " + std::to_string(pairs[0][1]) + "), pair " +
           std::to_string(q) + " dims (" + std::to_string(pairs[static_cast<std::size_t>(q)][0]) + ", " +
           std::to_string(pairs[static_cast<std::size_t>(q)][1]) + "); pairs 0-" + std::to_string(q - 1) + " " +
           (rows_first ? "row" : "column") + offset + ", " + std::to_string(q) + "-" + std::to_string(2 * q - 1) + " " +
           (rows_first ? "column" : "row") + offset;
}

inline std::string render_tower_json(const TowerReport& r)
{
    const posenc::VisionTower& t = r.read.tower;
    nlohmann::ordered_json j;
    j["tower"] = "vision";
    j["model_type"] = t.model_type;
    j["rule"] = posenc::to_string(t.rule);
    j["head_dim"] = t.head_dim;
    j["rotary_dim"] = 2 * t.num_pairs();
    j["theta"] = t.theta;
    j["merge_size"] = t.merge_size;
    j["patch_order"] = tower_patch_order(t);
    j["precision"] = "hf_float32";
    j["grid_thw"] = {r.grid.frames, r.grid.rows, r.grid.columns};
    j["num_tokens"] = r.num_tokens;
    nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
    for (const posenc::hf::ConfigWarning& w : r.read.warnings)
        warnings.push_back({{"key", w.key}, {"message", w.message}});
    j["warnings"] = warnings;
    if (r.angles) j["angles"] = angles_json(*r.angles);
    return dump(j);
}

inline std::string render_tower_text(const TowerReport& r)
{
    const posenc::VisionTower& t = r.read.tower;
    std::ostringstream s;
    s.precision(9);
    s << "vision tower " << t.model_type << " ("
      << (r.read.key_prefix.empty() ? "the config itself" : r.read.key_prefix) << ")\n"
      << "  rule        " << posenc::to_string(t.rule) << ": " << tower_layout(t) << "\n"
      << "  head_dim    " << t.head_dim << "\n"
      << "  theta       " << t.theta << "\n"
      << "  patch order " << tower_patch_order(t) << "\n"
      << "  grid_thw    " << r.grid.frames << "," << r.grid.rows << "," << r.grid.columns << ": " << r.num_tokens
      << " tokens\n";
    if (r.angles) {
        s << "\ntoken coordinates (as the rotary reads them) angles (rad, float32 as the model)\n";
        for (std::size_t n = 0; n < r.angles->num_tokens(); ++n) {
            s << n << " " << r.angles->positions[n][0] << " " << r.angles->positions[n][1];
            for (const double a : r.angles->tokens[n]) s << " " << a;
            s << "\n";
        }
    }
    return s.str();
}

}  // namespace inspect
