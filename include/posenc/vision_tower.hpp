// SPDX-License-Identifier: MIT
// posenc/vision_tower.hpp: the RoPE of a vision tower (the image / video encoder of a multimodal
// model), token by token, for one patch grid.
//
// A vision tower cuts an image (or each frame pair of a video) into patches and runs a ViT over
// them; its rotary embedding gives each patch an angle per rotated pair from the patch's row and
// column. One rule covers the towers of the Qwen2-VL line (VisionTowerRule::rows_columns_shared):
//
//   head H = hidden_size / num_heads (Qwen2-VL: embed_dim / num_heads); Q = H / 4;
//   frequencies f_j = theta^(-2j / (H/2)) = theta^(-4j / H), j in [0, Q), theta = 10,000 (the
//     constructor default of the tower's rotary module; no config key sets it);
//   pairs (i, i + H/2), i in [0, H/2) (rotate_half over the whole head):
//       i <  Q   angle = row    * f_i
//       i >= Q   angle = column * f_(i - Q)
//   patch order (the rows of pixel_values): block-major over m x m merge blocks
//   (m = spatial_merge_size): blocks row-major over the (rows / m) x (columns / m) block grid,
//   inside a block its m x m patches row-major; a video of T frames (temporal patches) repeats
//   the frame's order T times, every frame with the same (row, column): the tower has no
//   temporal axis. m = 1 is plain row-major order (PaddleOCR-VL, which merges after the encoder).
//   No CLS or register token; padding is not part of the grid.
// The other towers' rules follow (Pixtral, Llama 4, Gemma 4, Kimi K2.5, Muse Glimmer,
// MiniMax-M3-VL, SAM 3's ViT, DINOv3), each with its source file.
//   Source: transformers models/qwen2_vl/modeling_qwen2_vl.py (VisionRotaryEmbedding,
//   Qwen2VisionTransformerPretrainedModel.forward) and vision_utils.get_vision_position_ids; the
//   same in qwen2_5_vl, qwen2_5_omni, qwen3_vl(_moe), qwen3_5(_moe), qwen3_omni_moe, glm4v(_moe),
//   glm_ocr, ernie4_5_vl_moe, exaone4_5, cohere_compass, paddleocr_vl (merge 1), and Step 3.7's
//   tower (step3p7, Step3p7VisionRotaryEmbedding: merge 1, theta from rope_parameters).
//   Qwen2.5-VL's window attention reorders the rows internally (by windows of merge blocks) and
//   undoes it after the merger: each row of pixel_values keeps the angles above.
//
// Pixtral (VisionTowerRule::rows_columns_even_odd; models/pixtral/modeling_pixtral.py,
// PixtralRotaryEmbedding and position_ids_in_meshgrid): the same pairs and axes, but the
// frequencies are the head's 1-D table phi_k = theta^(-2k/H), k in [0, H/2), split by parity:
//       i <  Q   angle = row    * phi_(2i)
//       i >= Q   angle = column * phi_(2(i - Q) + 1)
//   theta from the config (rope_parameters; 10,000 by default), H = head_dim (or hidden_size /
//   num_attention_heads); patches row-major; the table holds image_size / patch_size rows and
//   columns (max_side): a larger grid is refused. Several images of one size (T > 1) repeat the
//   order. No CLS token.
//
// Llama 4 (VisionTowerRule::columns_rows_interleaved_cls; models/llama4/modeling_llama4.py,
// Llama4VisionRotaryEmbedding and vision_apply_rotary_emb): the Qwen2-VL frequencies
// f_j = theta^(-4j/H), j in [0, Q), on interleaved pairs (2i, 2i + 1) (the head read as H/2
// complex numbers), the column axis first and both coordinates offset by one:
//       i <  Q   angle = (column + 1) * f_i
//       i >= Q   angle = (row + 1)    * f_(i - Q)
//   theta from the config (rope_parameters; 10,000 by default), H = hidden_size /
//   num_attention_heads; patches row-major, then the CLS token the encoder appends last, at angle
//   0 on every pair (positions (0, 0)). The table is built for the whole image_size / patch_size
//   grid: a grid of any other rows or columns is refused. Several images (T > 1; Llama 4's tiles)
//   repeat the order, each with its CLS token. positions hold (column + 1, row + 1).
//
// Gemma 4 (VisionTowerRule::columns_rows_chunked; models/gemma4/modeling_gemma4.py,
// Gemma4VisionRotaryEmbedding and apply_multidimensional_rope): the head is cut into two
// contiguous chunks of H/2 dims, each its own 1-D RoPE with rotate_half inside the chunk, chunk 0
// the column (x), chunk 1 the row (y); each chunk's frequencies f_j = theta^(-2j/(H/2)), j in
// [0, Q) (the Qwen2-VL values for the same theta); pair i mixes
//       i <  Q   dims (i, i + Q),           angle = column * f_i
//       i >= Q   dims (Q + i, 2Q + i),      angle = row    * f_(i - Q)
//   theta from rope_parameters (100 by default), H = head_dim (else hidden_size /
//   num_attention_heads); patches row-major as the image processor numbers them; the padding
//   rows the processor adds (position -1, masked by the tower) are not part of the grid.
//   positions hold (column, row).
//
// Kimi K2.5 (VisionTowerRule::columns_rows_alternating; models/kimi_k25/modeling_kimi_k25.py,
// Kimi_K25VisionRotaryEmbedding and apply_rotary_pos_emb_vision): half_split pairs (i, i + H/2)
// over the head whose axis alternates pair by pair, the column first:
//       i even   angle = column * f_(i/2)
//       i odd    angle = row    * f_((i-1)/2)
//   f_j = theta^(-4j/H), j in [0, Q) (the Qwen2-VL values), theta from rope_parameters (10,000
//   by default), H = head_dim (else hidden_size / num_attention_heads); patches row-major (the
//   encoder's position ids with merge size 1, (row, column) flipped to (column, row)); a video's
//   frames repeat the order. positions hold (column, row).
//
// Muse Glimmer (VisionTowerRule::columns_rows_offset_shared; models/muse_glimmer/
// modeling_muse_glimmer.py, MuseGlimmerVisionRotaryEmbedding and MuseGlimmerVisionModel.forward):
// the Qwen2-VL pairs (i, i + H/2) and frequencies, the column first and both coordinates offset
// by one:
//       i <  Q   angle = (column + 1) * f_i
//       i >= Q   angle = (row + 1)    * f_(i - Q)
//   theta from rope_parameters (10,000), H = head_dim (else hidden_size / num_attention_heads);
//   patches row-major (its encoder numbers them with merge size 1), a video's frames repeated.
//   The tower permutes its rows into 32 x 32-patch attention windows before the rotary and undoes
//   it after the encoder: each row of pixel_values keeps the angles above. positions hold
//   (column + 1, row + 1).
//
// MiniMax-M3-VL (VisionTowerRule::frames_rows_columns_partial; models/minimax_m3_vl/
// modeling_minimax_m3_vl.py, MiniMaxM3VL3DRotaryEmbedding and apply_rotary_pos_emb_vision): three
// axes (frame, row, column), each its own band of F frequencies, on half_split pairs over the
// first 3A dims of the head; the rest of the head passes through unrotated:
//   A = 2 floor(floor(2 floor(H/2) / 3) / 2) (the axis width, H = 80: A = 26), F = A / 2,
//   g_j = theta^(-2j/A), j in [0, F); pairs (i, i + 3F), i in [0, 3F):
//       axis i / F (0 frame, 1 row, 2 column)   angle = coordinate * g_(i mod F)
//   theta from rope_parameters (10,000), H = hidden_size / num_attention_heads; patches
//   block-major over m x m merge blocks (spatial_merge_size), each frame (temporal patch) t of a
//   video at frame coordinate t. positions hold (frame, row, column). tower_angle, which has no
//   frame, refuses this rule: tower_token_angles gives every token's angles.
//
// SAM 3's ViT (VisionTowerRule::columns_rows_interleaved_scaled; models/sam3/modeling_sam3.py,
// Sam3ViTRotaryEmbedding, apply_rotary_pos_emb_2d, Sam3ViTLayer): axial RoPE on interleaved pairs
// (2i, 2i + 1), the column first, the coordinates times a float scale s:
//       i <  Q   angle = (s * column') * f_i
//       i >= Q   angle = (s * row')    * f_(i - Q)
//   f_j = theta^(-4j/H) (float32 exponent fl(4j) / fl(H)), theta = rope_theta (10,000), H =
//   hidden_size / num_attention_heads. Two tables: the global-attention layers
//   (global_attn_indexes) use the whole grid (side n = image_size / patch_size, exactly), column'
//   = column, row' = row, s = window_size / n; the windowed layers use each window_size x
//   window_size window (VisionTower::window), column' = column mod window, row' = row mod window,
//   s = 1 (each token keeps its own angles: the layer partitions into windows and back).
//   Patches row-major, no CLS token. positions hold (s * column', s * row'). In hf_float32 the
//   scaled coordinate is fl(fl(coordinate) * fl(s)).
//
// DINOv3 (VisionTowerRule::rows_columns_centres; models/dinov3_vit/modeling_dinov3_vit.py,
// DINOv3ViTRopePositionEmbedding, get_patches_center_coordinates, apply_rotary_pos_emb; the same
// in eomt_dinov3 and sapiens2): real-valued coordinates, the patch centres of an n-patch side
// normalised to [-1, 1],
//       c(i, n) = 2 (i + 0.5) / n - 1,   i in [0, n)     (y from the row, x from the column)
//   the frequencies f_j = theta^(-4j/H), j in [0, Q) (theta 100 by default), on half_split pairs
//   (i, i + H/2) over the head, rows first:
//       i <  Q   angle = 2 pi * y * f_i
//       i >= Q   angle = 2 pi * x * f_(i - Q)
//   H = hidden_size / num_attention_heads; in each image the prefix tokens (the CLS token and
//   num_register_tokens registers, VisionTower::prefix_tokens) come first and are not rotated
//   (angle 0, positions (0, 0)), then the patches row-major; positions hold (y, x). Any grid
//   side: the coordinates are recomputed per image. The training-time coordinate jitter (shift,
//   jitter, rescale of pos_embed_*) is not part of inference and not represented.
//   Precision::hf_float32: c = fl(fl(2 fl((i + 0.5) / n)) - 1), f_j = fl(1 / fl(fl(theta)^e_j)),
//   e_j = fl(4j / H), angle = fl(fl(fl(2 pi) c) f_j) (float32 as the module computes them; bit-equal
//   to transformers' in the towers sweep). Precision::exact: 2 pi c f_j in double (relative error
//   < 2^-50). The model's float32 angle differs from the exact one by at most 2^-20 * 2 pi * f_j
//   (absolute: |c| <= 1; the coordinate's three roundings are absolute errors below 2^-23) for
//   theta <= 10^4, any side up to 2^24 - 1 (tests/towers).
//
// Angle precision (tower_token_angles):
//   Precision::hf_float32 (default): what the model rotates by. f_j = fl(1 / fl(fl(theta)^e_j)),
//     e_j = fl(2j) / fl(H/2) (float32 as the rotary module builds inv_freq; the power in
//     double, rounded once), angle =
//     fl(fl(position) * f_j). Against transformers' own float32 output: |d| <= 2^-22 |angle|,
//     bit-equal except where torch's float32 pow rounds an inv_freq entry the other way (one
//     entry of a 224-wide head and one of a 96-wide head in the towers sweep: 1 ulp).
//   Precision::exact: the real-number angle position * theta^(-4j/H) in double (relative error
//     < 2^-50). The model's float32 angle differs from it by up to 2^-20 |angle| for theta 1e4
//     (the float32 exponent's rounding times ln theta, pow's, the division's and the product's
//     rounding).
// Integer coordinates stay at most 2^24 (float32 holds every integer there; a grid side is at
// most 2^24 - 1, Llama 4's and Muse Glimmer's + 1 reaches 2^24) and a grid's tokens x pairs
// below 2^28 entries (the record's size). The 2^-20 bound above holds for every integer-coordinate
// rule up to those coordinates (tests/towers).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/angle_precision.hpp"
#include "posenc/error.hpp"
#include "posenc/scaling/float32_emulation.hpp"
#include "posenc/token_angles.hpp"

namespace posenc {

/// Which rotary rule a tower applies; see the file comment.
enum class VisionTowerRule {
    rows_columns_shared,  ///< Qwen2-VL line: one table for rows and columns, half_split pairs over the head
    rows_columns_even_odd,  ///< Pixtral: the head's 1-D table split by parity, even for rows, odd for columns
    columns_rows_interleaved_cls,  ///< Llama 4: (column + 1, row + 1) on interleaved pairs, a CLS token last at angle 0
    columns_rows_chunked,  ///< Gemma 4: two head chunks, a 1-D RoPE each (column, row), rotate_half inside the chunk
    rows_columns_centres,  ///< DINOv3: 2 pi x patch centres in [-1, 1], half_split pairs, CLS / registers unrotated
    columns_rows_alternating,  ///< Kimi K2.5: half_split pairs, the axis alternating pair by pair (column, row, ...)
    columns_rows_offset_shared,  ///< Muse Glimmer: the Qwen2-VL pairs over (column + 1, row + 1)
    frames_rows_columns_partial,  ///< MiniMax-M3-VL: (frame, row, column) bands over 3A dims, the tail unrotated
    columns_rows_interleaved_scaled,  ///< SAM 3's ViT: (s * column, s * row) on interleaved pairs, global or windowed
};

/// The rule's name ("rows_columns_shared", ...).
inline const char* to_string(VisionTowerRule rule) noexcept
{
    switch (rule) {
    case VisionTowerRule::rows_columns_shared: return "rows_columns_shared";
    case VisionTowerRule::rows_columns_even_odd: return "rows_columns_even_odd";
    case VisionTowerRule::columns_rows_interleaved_cls: return "columns_rows_interleaved_cls";
    case VisionTowerRule::columns_rows_chunked: return "columns_rows_chunked";
    case VisionTowerRule::rows_columns_centres: return "rows_columns_centres";
    case VisionTowerRule::columns_rows_alternating: return "columns_rows_alternating";
    case VisionTowerRule::columns_rows_offset_shared: return "columns_rows_offset_shared";
    case VisionTowerRule::frames_rows_columns_partial: return "frames_rows_columns_partial";
    case VisionTowerRule::columns_rows_interleaved_scaled: return "columns_rows_interleaved_scaled";
    }
    return "(not a VisionTowerRule)";
}

/// A vision tower's RoPE: what tower_token_angles needs (the reader hf::read_vision_tower fills it
/// from a model's config.json).
struct VisionTower {
    std::string model_type;  ///< the tower's model_type ("qwen2_5_vl_vision")
    VisionTowerRule rule = VisionTowerRule::rows_columns_shared;
    int head_dim = 0;  ///< H: hidden_size / num_heads
    double theta = 10000.0;  ///< the rotary base
    int merge_size = 1;  ///< m: patch order block-major over m x m blocks (1: row-major)
    std::int64_t max_side = 0;  ///< the largest grid side the tower's table holds (0: no limit; Llama 4: the only side)
    int prefix_tokens = 0;  ///< unrotated tokens before each image's patches (DINOv3: CLS + registers)
    double scale = 1.0;  ///< SAM 3: the coordinates' float scale s
    int window = 0;  ///< SAM 3's windowed layers: coordinates modulo this side (0: the whole grid)

    /// Throws posenc::error unless head_dim is a positive multiple of 4, theta finite and > 1,
    /// merge_size >= 1.
    void check() const
    {
        if (rule == VisionTowerRule::frames_rows_columns_partial) {
            if (head_dim < 6 || head_dim > (1 << 20))
                throw error("head_dim", std::to_string(head_dim),
                            "must be in [6, 2^20] (three axes of at least one pair)");
        } else if (head_dim <= 0 || head_dim % 4 != 0) {
            throw error("head_dim", std::to_string(head_dim),
                        "must be a positive multiple of 4 (two axes, each of head_dim / 4 half_split pairs)");
        }
        if (!std::isfinite(theta) || theta <= 1.0)
            throw error("theta", std::to_string(theta), "must be finite and > 1");
        if (merge_size < 1) throw error("merge_size", std::to_string(merge_size), "must be >= 1");
        if (static_cast<int>(rule) < 0 ||
            static_cast<int>(rule) > static_cast<int>(VisionTowerRule::columns_rows_interleaved_scaled))
            throw error("rule", std::to_string(static_cast<int>(rule)), "must name a VisionTowerRule");
        if (rule == VisionTowerRule::columns_rows_interleaved_cls && max_side < 1)
            throw error(
                "max_side", std::to_string(max_side),
                "must be >= 1 for columns_rows_interleaved_cls (the table's grid side, image_size / patch_size)");
        if (max_side < 0) throw error("max_side", std::to_string(max_side), "must be >= 0 (0: no limit)");
        const bool sam = rule == VisionTowerRule::columns_rows_interleaved_scaled;
        if (!(std::isfinite(scale) && scale > 0.0 && scale <= 65536.0) || (scale != 1.0 && !sam))
            throw error("scale", std::to_string(scale),
                        "must be in (0, 65536], and 1 unless the rule is columns_rows_interleaved_scaled");
        if (window < 0 || window > (1 << 24) - 1 || (window > 0 && !sam))
            throw error("window", std::to_string(window),
                        "must be >= 0, and 0 unless the rule is columns_rows_interleaved_scaled");
        if (prefix_tokens < 0 || (prefix_tokens > 0 && rule != VisionTowerRule::rows_columns_centres))
            throw error("prefix_tokens", std::to_string(prefix_tokens),
                        "must be >= 0, and 0 unless the rule is rows_columns_centres");
    }

    /// The rotated pairs: head_dim / 2, or 3F for frames_rows_columns_partial (file comment).
    int num_pairs() const noexcept
    {
        return rule == VisionTowerRule::frames_rows_columns_partial ? 3 * axis_frequencies() : head_dim / 2;
    }

    /// F = A / 2 of frames_rows_columns_partial: A = 2 floor(floor(2 floor(H/2) / 3) / 2).
    int axis_frequencies() const noexcept { return ((2 * (head_dim / 2)) / 3) / 2; }
};

/// A patch grid as the processor reports it (grid_thw): frames (temporal patches), rows and
/// columns, in patches before the spatial merge.
struct PatchGrid {
    std::int64_t frames = 1;
    std::int64_t rows = 1;
    std::int64_t columns = 1;
};

/// The largest grid side: positions stay exact in float32 (2^24 - 1).
inline constexpr std::int64_t max_grid_side = (std::int64_t {1} << 24) - 1;
/// The most tokens x pairs entries one TokenAngles record may hold.
inline constexpr std::int64_t max_token_angle_entries = std::int64_t {1} << 28;

namespace detail {

/// Throws posenc::error unless the grid is positive, within max_grid_side, its rows and columns
/// multiples of merge_size (the tower's reshape into merge blocks fails otherwise), and
/// frames x rows x columns x pairs within max_token_angle_entries. exact_side: rows and columns
/// must equal max_side (a table built for one grid).
inline void require_patch_grid(const PatchGrid& g, int merge_size, int num_pairs, std::int64_t max_side = 0,
                               bool exact_side = false, int extra_tokens = 1)
{
    const std::int64_t sides[3] = {g.frames, g.rows, g.columns};
    const char* names[3] = {"grid.frames", "grid.rows", "grid.columns"};
    for (int a = 0; a < 3; ++a)
        if (sides[a] < 1 || sides[a] > max_grid_side)
            throw error(names[a], std::to_string(sides[a]), "must be in [1, 2^24 - 1]");
    if (exact_side && (g.rows != max_side || g.columns != max_side))
        throw error("grid", std::to_string(g.rows) + "x" + std::to_string(g.columns),
                    "must be " + std::to_string(max_side) + "x" + std::to_string(max_side) +
                        " (image_size / patch_size: the tower's table covers exactly that grid)");
    if (max_side > 0 && (g.rows > max_side || g.columns > max_side))
        throw error("grid", std::to_string(g.rows) + "x" + std::to_string(g.columns),
                    "rows and columns must be at most " + std::to_string(max_side) +
                        " (image_size / patch_size: the tower's table has no row beyond)");
    if (g.rows % merge_size != 0 || g.columns % merge_size != 0)
        throw error("grid", std::to_string(g.rows) + "x" + std::to_string(g.columns),
                    "rows and columns must be multiples of the spatial merge size " + std::to_string(merge_size) +
                        " (the tower groups patches in merge blocks)");
    const double entries = static_cast<double>(g.frames) *
                           (static_cast<double>(g.rows) * static_cast<double>(g.columns) + extra_tokens) *
                           static_cast<double>(num_pairs);
    if (entries > static_cast<double>(max_token_angle_entries))
        throw error("grid", std::to_string(g.frames) + "," + std::to_string(g.rows) + "," + std::to_string(g.columns),
                    "must hold at most 2^28 token x pair angles");
}

/// The frequency of pair i (Q = H/4 pairs per axis, j = i mod Q):
///   rows_columns_shared, columns_rows_interleaved_cls, columns_rows_chunked, rows_columns_centres,
///   columns_rows_offset_shared
///                          theta^(-4j/H)          (a rotary module of width H/2, index j;
///                          rows_columns_centres's float32 exponent is fl(4j/H))
///   columns_rows_alternating  theta^(-4j/H) with j = i / 2 (integer division)
///   frames_rows_columns_partial  theta^(-2j/A) with j = i mod F (a band of width A per axis)
///   rows_columns_even_odd  theta^(-2k/H), k = 2j for rows (i < Q), 2j + 1 for columns
///                          (the head's 1-D table of width H, index k)
/// exact in double, or the model's float32 fl(1 / fl(fl(theta) ^ fl(fl(2k) / fl(width)))).
inline double tower_frequency(const VisionTower& tower, int i, Precision precision)
{
    const int q = tower.head_dim / 4;
    const bool shared = tower.rule != VisionTowerRule::rows_columns_even_odd;
    const bool bands = tower.rule == VisionTowerRule::frames_rows_columns_partial;
    const int index = tower.rule == VisionTowerRule::columns_rows_alternating ? i / 2
                      : bands                                                 ? i % tower.axis_frequencies()
                      : shared                                                ? i % q
                                                                              : 2 * (i % q) + (i < q ? 0 : 1);
    const int width = bands ? 2 * tower.axis_frequencies() : shared ? tower.head_dim / 2 : tower.head_dim;
    if (precision == Precision::exact) return std::pow(tower.theta, -2.0 * index / static_cast<double>(width));
    const float e = tower.rule == VisionTowerRule::rows_columns_centres ? hf32::round(index * (4.0 / tower.head_dim))
                    : tower.rule == VisionTowerRule::columns_rows_interleaved_scaled
                        ? hf32::div(hf32::round(4.0 * index), hf32::round(tower.head_dim))
                        : hf32::div(hf32::round(2.0 * index), hf32::round(width));
    return static_cast<double>(hf32::div(1.0f, hf32::pow(hf32::round(tower.theta), e)));
}

}  // namespace detail

/// (row, column) of every patch of one frame, in the order of the rows of pixel_values:
/// block-major over merge_size x merge_size blocks (row-major for merge_size 1).
inline std::vector<std::array<std::int64_t, 2>> patch_positions(std::int64_t rows, std::int64_t columns, int merge_size)
{
    std::vector<std::array<std::int64_t, 2>> out;
    out.reserve(static_cast<std::size_t>(rows * columns));
    const std::int64_t m = merge_size;
    for (std::int64_t br = 0; br < rows / m; ++br)
        for (std::int64_t bc = 0; bc < columns / m; ++bc)
            for (std::int64_t r = 0; r < m; ++r)
                for (std::int64_t c = 0; c < m; ++c) out.push_back({br * m + r, bc * m + c});
    return out;
}

/// The head dims each pair of a tower mixes, in the model's layout (Q = H/4):
///   rows_columns_shared, rows_columns_even_odd   (i, i + H/2)      rotate_half over the head
///   columns_rows_interleaved_cls                 (2i, 2i + 1)      complex pairs
///   columns_rows_chunked   i < Q: (i, i + Q); i >= Q: (Q + i, 2Q + i)   rotate_half inside each chunk
inline std::vector<std::array<int, 2>> tower_pairs(const VisionTower& tower)
{
    tower.check();
    const int q = tower.head_dim / 4;
    std::vector<std::array<int, 2>> pairs;
    for (int i = 0; i < tower.num_pairs(); ++i) {
        switch (tower.rule) {
        case VisionTowerRule::columns_rows_interleaved_cls:
        case VisionTowerRule::columns_rows_interleaved_scaled: pairs.push_back({2 * i, 2 * i + 1}); break;
        case VisionTowerRule::columns_rows_chunked:
            pairs.push_back(i < q ? std::array<int, 2> {i, i + q} : std::array<int, 2> {q + i, 2 * q + i});
            break;
        default: pairs.push_back({i, i + tower.num_pairs()}); break;  // frames_rows_columns_partial: (i, i + 3F)
        }
    }
    return pairs;
}

namespace detail {

/// A coordinate times the tower's scale: exact, or fl(fl(c) * fl(s)) as SAM 3 computes it (the
/// coordinate itself for every other rule, whose scale is 1).
inline double scaled_coordinate(const VisionTower& tower, std::int64_t c, Precision precision)
{
    if (tower.scale == 1.0) return static_cast<double>(c);
    if (precision == Precision::exact) return static_cast<double>(c) * tower.scale;
    return static_cast<double>(hf32::mul(hf32::round(static_cast<double>(c)), hf32::round(tower.scale)));
}

}  // namespace detail

/// The centre of patch i of an n-patch side in [-1, 1]: 2 (i + 0.5) / n - 1, exact in double or
/// as the model's float32 computes it (file comment). Throws posenc::error unless 1 <= n <=
/// max_grid_side and 0 <= i < n.
inline double patch_centre(std::int64_t i, std::int64_t n, Precision precision = Precision::hf_float32)
{
    detail::require_precision(precision);
    if (n < 1 || n > max_grid_side) throw error("n", std::to_string(n), "must be in [1, 2^24 - 1]");
    if (i < 0 || i >= n) throw error("i", std::to_string(i), "must be in [0, n - 1] (n = " + std::to_string(n) + ")");
    const double half = static_cast<double>(i) + 0.5;
    if (precision == Precision::exact) return 2.0 * half / static_cast<double>(n) - 1.0;
    const float q = hf32::div(hf32::round(half), hf32::round(static_cast<double>(n)));
    return static_cast<double>(hf32::sub(hf32::mul(2.0f, q), 1.0f));
}

/// The angle of pair `pair` at the real-valued coordinates (y, x) of a rows_columns_centres tower:
/// 2 pi y f_pair for pair < H/4, 2 pi x f_(pair - H/4) otherwise; in hf_float32 y and x are taken
/// as the float32 values the model holds (patch_centre) and the products are rounded as the model
/// rounds them (file comment). Throws posenc::error for another rule, a pair out of range or a
/// coordinate that is not finite or outside [-1, 1].
inline double tower_centre_angle(const VisionTower& tower, double y, double x, int pair,
                                 Precision precision = Precision::hf_float32)
{
    tower.check();
    detail::require_precision(precision);
    if (tower.rule != VisionTowerRule::rows_columns_centres)
        throw error("rule", to_string(tower.rule), "must be rows_columns_centres for real-valued coordinates");
    if (pair < 0 || pair >= tower.num_pairs())
        throw error("pair", std::to_string(pair), "must be in [0, head_dim / 2)");
    for (const double c : {y, x})
        if (!(c >= -1.0 && c <= 1.0)) throw error("coordinate", std::to_string(c), "must be in [-1, 1]");
    const double c = pair < tower.head_dim / 4 ? y : x;
    const double f = detail::tower_frequency(tower, pair, precision);
    const double two_pi = 6.283185307179586476925286766559;
    if (precision == Precision::exact) return two_pi * c * f;
    const float scaled = hf32::mul(hf32::round(two_pi), static_cast<float>(c));
    return static_cast<double>(hf32::mul(scaled, static_cast<float>(f)));
}

/// The coordinates of the patch at (row, column) as the tower's rotary reads them, in its axis
/// order: (row, column) for the Qwen2-VL line and Pixtral, (column + 1, row + 1) for Llama 4 and
/// Muse Glimmer,
/// (column, row) for Gemma 4 and Kimi K2.5.
inline std::array<std::int64_t, 2> tower_coordinates(const VisionTower& tower, std::int64_t row,
                                                     std::int64_t column) noexcept
{
    switch (tower.rule) {
    case VisionTowerRule::columns_rows_interleaved_cls:
    case VisionTowerRule::columns_rows_offset_shared: return {column + 1, row + 1};
    case VisionTowerRule::columns_rows_chunked:
    case VisionTowerRule::columns_rows_alternating: return {column, row};
    case VisionTowerRule::columns_rows_interleaved_scaled:
        return tower.window > 0 ? std::array<std::int64_t, 2> {column % tower.window, row % tower.window}
                                : std::array<std::int64_t, 2> {column, row};
    default: return {row, column};
    }
}

/// The angle of pair `pair` (in [0, H/2)) of the patch at (row, column): the first coordinate of
/// tower_coordinates x f_pair for pair < H/4, the second otherwise (detail::tower_frequency), in
/// the given precision (file comment).
/// Throws posenc::error for a tower that fails check(), a pair out of range or a coordinate
/// outside [0, max_grid_side].
inline double tower_angle(const VisionTower& tower, std::int64_t row, std::int64_t column, int pair,
                          Precision precision = Precision::hf_float32)
{
    tower.check();
    detail::require_precision(precision);
    if (pair < 0 || pair >= tower.num_pairs())
        throw error("pair", std::to_string(pair), "must be in [0, head_dim / 2)");
    for (const std::int64_t c : {row, column})
        if (c < 0 || c > max_grid_side) throw error("coordinate", std::to_string(c), "must be in [0, 2^24 - 1]");
    if (tower.rule == VisionTowerRule::rows_columns_centres)
        throw error(
            "rule", to_string(tower.rule),
            "reads real-valued patch centres that depend on the grid: use tower_centre_angle or tower_token_angles");
    if (tower.rule == VisionTowerRule::frames_rows_columns_partial)
        throw error("rule", to_string(tower.rule), "rotates the frame axis too: use tower_token_angles");
    const int q = tower.head_dim / 4;
    const auto xy = tower_coordinates(tower, row, column);
    const int axis = tower.rule == VisionTowerRule::columns_rows_alternating ? pair % 2 : (pair < q ? 0 : 1);
    const double p = detail::scaled_coordinate(tower, xy[static_cast<std::size_t>(axis)], precision);
    const double f = detail::tower_frequency(tower, pair, precision);
    return precision == Precision::exact ? p * f
                                         : static_cast<double>(hf32::mul(static_cast<float>(p), static_cast<float>(f)));
}

namespace detail {

/// tower_token_angles for rows_columns_centres: per image, prefix_tokens unrotated tokens, then the
/// patches row-major at (y, x) = (patch_centre(row, rows), patch_centre(column, columns)).
inline TokenAngles centre_token_angles(const VisionTower& tower, const PatchGrid& grid, Precision precision)
{
    TokenAngles out;
    out.pairs = tower_pairs(tower);
    const auto pairs = static_cast<std::size_t>(tower.num_pairs());
    std::vector<std::vector<double>> positions, tokens;
    for (int k = 0; k < tower.prefix_tokens; ++k) {
        positions.push_back({0.0, 0.0});
        tokens.emplace_back(pairs, 0.0);
    }
    for (std::int64_t r = 0; r < grid.rows; ++r)
        for (std::int64_t c = 0; c < grid.columns; ++c) {
            const double y = patch_centre(r, grid.rows, precision), x = patch_centre(c, grid.columns, precision);
            positions.push_back({y, x});
            std::vector<double> row(pairs);
            for (std::size_t i = 0; i < pairs; ++i)
                row[i] = tower_centre_angle(tower, y, x, static_cast<int>(i), precision);
            tokens.push_back(std::move(row));
        }
    for (std::int64_t t = 0; t < grid.frames; ++t) {
        out.positions.insert(out.positions.end(), positions.begin(), positions.end());
        out.tokens.insert(out.tokens.end(), tokens.begin(), tokens.end());
    }
    return out;
}

/// tower_token_angles for frames_rows_columns_partial: frame by frame, the frame's patches in
/// block-major order, pair i at coordinate (t, row, column)[i / F] times g_(i mod F).
inline TokenAngles band_token_angles(const VisionTower& tower, const PatchGrid& grid, Precision precision)
{
    TokenAngles out;
    out.pairs = tower_pairs(tower);
    const int f = tower.axis_frequencies();
    std::vector<double> freq(static_cast<std::size_t>(tower.num_pairs()));
    for (int i = 0; i < tower.num_pairs(); ++i)
        freq[static_cast<std::size_t>(i)] = tower_frequency(tower, i, precision);
    const auto frame = patch_positions(grid.rows, grid.columns, tower.merge_size);
    for (std::int64_t t = 0; t < grid.frames; ++t)
        for (const auto& rc : frame) {
            const double xyz[3] = {static_cast<double>(t), static_cast<double>(rc[0]), static_cast<double>(rc[1])};
            out.positions.push_back({xyz[0], xyz[1], xyz[2]});
            std::vector<double> row(freq.size());
            for (std::size_t i = 0; i < freq.size(); ++i) {
                const double p = xyz[i / static_cast<std::size_t>(f)];
                row[i] = precision == Precision::exact
                             ? p * freq[i]
                             : static_cast<double>(hf32::mul(static_cast<float>(p), static_cast<float>(freq[i])));
            }
            out.tokens.push_back(std::move(row));
        }
    return out;
}

}  // namespace detail

/// Every token of one grid (see the file comment): positions (tower_coordinates) and the angle of
/// each pair (tower_angle), tokens in the order of the rows of pixel_values (Llama 4: each frame's
/// CLS token last, positions (0, 0), angle 0). Throws posenc::error for a tower that fails
/// check() or a grid outside detail::require_patch_grid.
inline TokenAngles tower_token_angles(const VisionTower& tower, const PatchGrid& grid,
                                      Precision precision = Precision::hf_float32)
{
    tower.check();
    detail::require_precision(precision);
    const bool cls = tower.rule == VisionTowerRule::columns_rows_interleaved_cls;
    const bool fixed = cls || (tower.rule == VisionTowerRule::columns_rows_interleaved_scaled && tower.max_side > 0);
    const bool centres = tower.rule == VisionTowerRule::rows_columns_centres;
    detail::require_patch_grid(grid, tower.merge_size, tower.num_pairs(), tower.max_side, fixed,
                               centres ? tower.prefix_tokens : 1);
    if (centres) return detail::centre_token_angles(tower, grid, precision);
    if (tower.rule == VisionTowerRule::frames_rows_columns_partial)
        return detail::band_token_angles(tower, grid, precision);
    TokenAngles out;
    out.pairs = tower_pairs(tower);
    const auto frame = patch_positions(grid.rows, grid.columns, tower.merge_size);
    std::vector<std::vector<double>> frame_angles;
    frame_angles.reserve(frame.size());
    for (const auto& rc : frame) {
        std::vector<double> row(static_cast<std::size_t>(tower.num_pairs()));
        for (int i = 0; i < tower.num_pairs(); ++i)
            row[static_cast<std::size_t>(i)] = tower_angle(tower, rc[0], rc[1], i, precision);
        frame_angles.push_back(std::move(row));
    }
    for (std::int64_t t = 0; t < grid.frames; ++t) {
        for (std::size_t k = 0; k < frame.size(); ++k) {
            const auto xy = tower_coordinates(tower, frame[k][0], frame[k][1]);
            out.positions.push_back({detail::scaled_coordinate(tower, xy[0], precision),
                                     detail::scaled_coordinate(tower, xy[1], precision)});
            out.tokens.push_back(frame_angles[k]);
        }
        if (cls) {
            out.positions.push_back({0.0, 0.0});
            out.tokens.emplace_back(static_cast<std::size_t>(tower.num_pairs()), 0.0);
        }
    }
    return out;
}

}  // namespace posenc
