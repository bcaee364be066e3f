// SPDX-License-Identifier: MIT
// axis_reach.hpp: how far each pair of an M-RoPE group's positions reach, for the turn counts of
// its tables and charts (docs/cli.md, "M-RoPE: turns over the axis each pair reads").
//
// In M-RoPE (posenc/multi_axis.hpp) pair i rotates by p[axis(i)] theta_i. A text token has the
// same position on every axis, so over text every pair spans the context; inside an image the
// height and width positions run over the patch rows and columns only (after the spatial merge:
// Qwen2-VL's get_rope_index gives an image of llm_grid_h x llm_grid_w merged patches the height
// positions 0 .. llm_grid_h - 1 and the width positions 0 .. llm_grid_w - 1 beside its start).
// So a pair's turns are counted over the positions its axis reaches:
//
//   turns_i = reach(axis(i)) x theta_i / 2 pi,   reach = L (temporal) or G (height, width)
//
// with L the group's original length and G the largest patch-grid side, in merged patches:
// --grid-side N, else the assumed 35 (assumed_grid_side below). config.json names no image size
// for these models (the processor's max_pixels lives in preprocessor_config.json), so the
// output always says which G it used and whether it was assumed.
//
// Layouts whose axes 1 and 2 are height and width (3 axes): sections (Qwen2-VL, Qwen2.5-VL),
// interleaved (Qwen3-VL) and height_width_alternating (ERNIE-4.5-VL). Other multi-axis layouts
// (XD-RoPE's 1 to 4 axes, HunYuan-VL's coordinate sections, custom) keep turns over L on every
// axis, and the text output says so.
#pragma once

#include <posenc/analysis/diagnostics.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspect/format.hpp"
#include "inspect/options.hpp"

namespace inspect {

/// The grid side assumed without --grid-side: a square image at the Qwen2-VL image processor's
/// default max_pixels, 28 x 28 x 1280 (transformers' Qwen2VLImageProcessor; 28 px = a 14 px patch
/// merged 2 x 2): smart_resize scales a larger square image to floor(sqrt(1280)) = 35 merged
/// patches per side.
inline constexpr std::int64_t assumed_grid_side = 35;

/// Why that side, in the output's words.
inline constexpr const char* assumed_grid_reason =
    "assumed: a square image at Qwen2-VL's default max_pixels 28 x 28 x 1280; config.json names no image size; "
    "--grid-side N sets it";

/// The largest --grid-side (positions stay exact in float32, as posenc/vision_tower.hpp's grids).
inline constexpr std::int64_t max_grid_side_option = (std::int64_t {1} << 24) - 1;

/// The reach of each axis of an M-RoPE group with height and width axes.
struct AxisReach {
    std::int64_t context = 0;  ///< L: the temporal axis's reach (and every axis's over text)
    std::int64_t grid_side = 0;  ///< G: the height and width axes' reach, in merged patches
    bool grid_assumed = true;  ///< G is assumed_grid_side, not --grid-side
    std::vector<int> pair_axis;  ///< the axis each pair reads (0 temporal, 1 height, 2 width)

    /// The positions pair `pair`'s axis reaches: G for height and width, else L.
    std::int64_t reach(int pair) const
    {
        const std::size_t i = static_cast<std::size_t>(pair);
        const int axis = i < pair_axis.size() ? pair_axis[i] : 0;
        return axis == 1 || axis == 2 ? grid_side : context;
    }

    /// reach x theta_i / 2 pi, theta_i the pair's trained frequency.
    double turns(const posenc::PairDiagnostics& p) const
    {
        return static_cast<double>(reach(p.index)) * p.inv_freq_original / (2.0 * 3.14159265358979323846);
    }

    /// Pairs whose turns within their reach are below 1.
    std::vector<int> incomplete(const posenc::ExtensionDiagnostics& d) const
    {
        std::vector<int> out;
        for (const posenc::PairDiagnostics& p : d.pairs)
            if (!(turns(p) >= 1.0)) out.push_back(p.index);
        return out;
    }
};

/// Whether a multi-axis layout of `kind` with `num_axes` axes has height and width as axes 1 and 2.
inline bool has_image_axes(const std::string& kind, int num_axes)
{
    return num_axes == 3 && (kind == "sections" || kind == "interleaved" || kind == "height_width_alternating");
}

/// The reach of a group of original length `context` for a model whose layout is `kind` /
/// `num_axes` / `pair_axis`; empty for a layout without height and width axes. Throws
/// UsageError for --grid-side on such a model.
inline std::optional<AxisReach> axis_reach(const Options& o, const std::string& model_name, const std::string& kind,
                                           int num_axes, const std::vector<int>& pair_axis, std::int64_t context)
{
    if (!has_image_axes(kind, num_axes)) {
        if (o.grid_side)
            throw UsageError("--grid-side applies to M-RoPE models with height and width axes; " +
                             detail::cut(detail::printable(model_name), 40) + " has " +
                             (kind.empty() ? std::string("none") : "the layout " + kind));
        return std::nullopt;
    }
    return AxisReach {context, o.grid_side.value_or(assumed_grid_side), !o.grid_side, pair_axis};
}

/// "temporal pairs L = 128000; height and width pairs G = 35 patch rows / columns (assumed: ...)".
inline std::string reach_summary(const AxisReach& a)
{
    return "temporal pairs L = " + std::to_string(a.context) + "; height and width pairs " +
           std::to_string(a.grid_side) + " patch rows / columns (" +
           (a.grid_assumed ? std::string(assumed_grid_reason) : std::string("--grid-side")) +
           "). Text advances every axis together: over text every pair spans L.";
}

}  // namespace inspect
