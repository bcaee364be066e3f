// SPDX-License-Identifier: MIT
// posenc/multi_axis.hpp: multi-axis RoPE. Every rotating pair reads the position of one axis,
// and every token has one position per axis.
//
// Pair i of a head (spec.hpp: (i, i + R/2) half_split, (2i, 2i + 1) interleaved) rotates by
//
//     angle_i = p[axis(i)] * theta_i
//
// where p[0 .. num_axes) are the token's positions and theta_i the frequency table's pair i.
// With one axis this is 1-D RoPE. A token whose positions are all equal (every text token of
// an M-RoPE model) rotates exactly as 1-D RoPE at that position, whatever the layout: each
// pair's angle is the same product. MultiAxisLayout says which axis each pair reads:
//
//   single(P)          every pair axis 0: ordinary RoPE.
//
//   sections(s, P)     Qwen2-VL, Qwen2.5-VL M-RoPE ("mrope_section": [s0, s1, s2], counted in
//                      pairs, s0 + s1 + s2 = P). Contiguous runs over the pairs:
//                          pairs [0, s0) axis 0 (temporal), [s0, s0 + s1) axis 1 (height),
//                          [s0 + s1, P) axis 2 (width).
//                      Hugging Face: models/qwen2_vl/modeling_qwen2_vl.py,
//                      apply_multimodal_rotary_pos_emb: the cos/sin of width R = cat(freqs,
//                      freqs) is split into chunks of mrope_section * 2 = [s0, s1, s2, s0, s1,
//                      s2] and chunk c takes axis c % 3; both halves therefore give pair i (and
//                      its partner i + R/2) the axis above. Qwen2.5-VL reuses that function.
//                      Example [16, 24, 24], P = 64: pairs 0-15 temporal, 16-39 height, 40-63 width.
//
//   interleaved(s, P)  Qwen3-VL interleaved M-RoPE ("mrope_interleaved": true; s0 + s1 + s2 = P).
//                      Round robin by pair, as Hugging Face's apply_interleaved_mrope
//                      (models/qwen3_vl/modeling_qwen3_vl.py) writes it:
//                          axis 1 (height) if i % 3 == 1 and i < 3 s1,
//                          axis 2 (width)  if i % 3 == 2 and i < 3 s2,
//                          axis 0 (temporal) otherwise.
//                      Example [24, 20, 20], P = 64: T H W T H W ... (pairs 0-59), then pairs
//                      60-63 temporal: 24 temporal, 20 height, 20 width pairs. (When 3 s1 > P + 1
//                      or 3 s2 > P the counts fall short of the section; the rule above, which is
//                      Hugging Face's, still decides.)
//
//   axial_2d(P)        2-D RoPE of image patches in vision towers: pairs [0, P/2) axis 0,
//                      [P/2, P) axis 1. What each axis holds and the frequency table differ by
//                      model (axial_2d_shared_frequencies, axial_2d_even_odd_frequencies below):
//                        Qwen2-VL, Qwen2.5-VL vision (modeling_qwen2_vl.py VisionRotaryEmbedding
//                          and rot_pos_emb; half_split pairs over the whole head):
//                          axis 0 = patch row, axis 1 = patch column, shared table.
//                        Pixtral (models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding;
//                          half_split): axis 0 = row, axis 1 = column, even/odd table.
//                        Llama 4 vision (models/llama4/modeling_llama4.py
//                          Llama4VisionRotaryEmbedding; complex pairs = interleaved pairing):
//                          axis 0 = column + 1 (x + 1), axis 1 = row + 1 (y + 1), shared table;
//                          the CLS token has angle 0 (positions 0, 0).
//
//   xd_sections(s, P)  HunYuan XD-RoPE as Tencent's released code and vLLM's XDRotaryEmbedding
//                      apply it ("xdrope_section": [s0, .., s_{n-1}], 1 to 4 axes, sum = P):
//                      `xdrope_section * 2` REPEATS the list, so both halves of the cos/sin give
//                      contiguous runs over the pairs: pairs [S_j, S_{j+1}) read axis j
//                      (S_j = s0 + .. + s_{j-1}). Example [16, 16, 16, 16], P = 64: pairs 0-15
//                      axis 0, 16-31 axis 1, 32-47 axis 2, 48-63 axis 3.
//
//   coordinate_sections(s, P)   HunYuan-VL as Hugging Face transformers 5.x defines it
//                      (models/hunyuan_vl/modeling_hunyuan_vl.py, apply_multimodal_rotary_pos_emb,
//                      "mrope_section" or legacy "xdrope_section", 1 to 4 axes, sum = P): the
//                      sections are DOUBLED element-wise ([2 s0, .., 2 s_{n-1}]) and cut the
//                      R = 2P coordinates of the half-split cos/sin (cat(freqs, freqs)) into
//                      contiguous runs: coordinate c in [2 S_j, 2 S_{j+1}) reads axis j. The two
//                      coordinates (i, i + P) of pair i can therefore read DIFFERENT axes:
//                      axis_of_pair(i) is the axis of coordinate i, partner_axis_of_pair(i) that
//                      of coordinate i + P, and pair i maps (a, b) to
//                          a' = a cos(p[A] theta_i) - b sin(p[A] theta_i)
//                          b' = b cos(p[B] theta_i) + a sin(p[B] theta_i)
//                      (A = axis_of_pair(i), B = partner_axis_of_pair(i)), a rotation only where
//                      p[A] = p[B] (every text token). Example [16, 16, 16, 16], P = 64: pairs
//                      0-31 read (axis 0, axis 2), pairs 32-63 (axis 1, axis 3). The SIMD
//                      multi-axis kernels route whole pairs: a layout with splits_pairs() is
//                      applied by apply_multi_axis_rope_reference here.
//                      Axes (HunYuan-VL get_rope_index): 4 sections = (position, width, height,
//                      image index), 3 = (width, height, image index); see
//                      multimodal_positions.hpp.
//
//   height_width_alternating(s, P)   ERNIE-4.5-VL 3-D RoPE (models/ernie4_5_vl_moe/
//                      modeling_ernie4_5_vl_moe.py, Ernie4_5_VLMoeTextRotaryEmbedding;
//                      "mrope_section": [s_h, s_w, s_t], s_h = s_w, sum = P; interleaved
//                      pairing, the plain table theta_k = base^(-2k/R)): HF pre-permutes the table
//                      (even k, then odd k, of the first s_h + s_w) and recomposes
//                      [h, w, t] -> stack(h, w).flatten(), t -> repeat_interleave(2), which
//                      amounts to, for pair k:
//                          axis 1 (height)   k < s_h + s_w, k even
//                          axis 2 (width)    k < s_h + s_w, k odd
//                          axis 0 (temporal) k >= s_h + s_w
//                      with positions (temporal, height, width) as get_rope_index builds them.
//                      Example [22, 22, 20], P = 64: pairs 0-43 alternate H W H W ..., 44-63 T.
//
//   from_pair_axes(a, n)  any explicit assignment (a[i] in [0, n)).
//
// The frequency table is the model's own (FrequencyTable, any scaling); a layout only routes
// positions to pairs. Positions are integers, as in every model above.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "posenc/angles.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// The most position axes a layout may have (M-RoPE uses 3, 2-D vision RoPE 2).
inline constexpr int max_position_axes = 4;

/// Which rule built a MultiAxisLayout; see the file comment.
enum class MultiAxisKind {
    single,
    sections,
    interleaved,
    axial_2d,
    custom,
    xd_sections,
    coordinate_sections,
    height_width_alternating
};

/// "single", "sections", "interleaved", "axial_2d", "custom", "xd_sections",
/// "coordinate_sections" or "height_width_alternating".
inline const char* to_string(MultiAxisKind kind) noexcept
{
    switch (kind) {
    case MultiAxisKind::single: return "single";
    case MultiAxisKind::sections: return "sections";
    case MultiAxisKind::interleaved: return "interleaved";
    case MultiAxisKind::axial_2d: return "axial_2d";
    case MultiAxisKind::custom: return "custom";
    case MultiAxisKind::xd_sections: return "xd_sections";
    case MultiAxisKind::coordinate_sections: return "coordinate_sections";
    case MultiAxisKind::height_width_alternating: return "height_width_alternating";
    }
    return "unknown";
}

namespace detail {
inline std::string list_text(const std::vector<int>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}
}  // namespace detail

/// Pairs [begin, end) that all read `axis`: a maximal run of equal axes (MultiAxisLayout::axis_runs).
struct AxisRun {
    int begin;
    int end;
    int axis;
};

/// A validated assignment of an axis to every rotating pair; see the file comment.
///
/// Invariants (posenc::error otherwise): num_pairs >= 1; 1 <= num_axes <= max_position_axes;
/// every pair's axes in [0, num_axes); for sections / interleaved, mrope_section has exactly
/// three entries, each >= 0, summing to num_pairs; for xd_sections / coordinate_sections, 1 to 4
/// entries, each >= 0, summing to num_pairs; for height_width_alternating, three entries
/// [s_h, s_w, s_t] >= 0 with s_h = s_w summing to num_pairs; for axial_2d, num_pairs even.
/// Only coordinate_sections can give a pair's two coordinates different axes (splits_pairs()).
class MultiAxisLayout
{
public:
    /// 1-D RoPE: every pair reads axis 0 (one axis).
    static MultiAxisLayout single(int num_pairs)
    {
        require_pairs(num_pairs);
        return MultiAxisLayout(MultiAxisKind::single, std::vector<int>(static_cast<std::size_t>(num_pairs), 0), 1, {});
    }

    /// Qwen2-VL / Qwen2.5-VL M-RoPE: contiguous sections [temporal, height, width] in pairs.
    static MultiAxisLayout sections(std::vector<int> mrope_section, int num_pairs)
    {
        require_mrope_section(mrope_section, num_pairs);
        std::vector<int> axes;
        axes.reserve(static_cast<std::size_t>(num_pairs));
        for (int a = 0; a < 3; ++a)
            append_copies(axes, static_cast<std::size_t>(mrope_section[static_cast<std::size_t>(a)]), a);
        return MultiAxisLayout(MultiAxisKind::sections, std::move(axes), 3, std::move(mrope_section));
    }

    /// Qwen3-VL interleaved M-RoPE: height on pairs i % 3 == 1 below 3 * section[1], width on
    /// pairs i % 3 == 2 below 3 * section[2], temporal elsewhere (Hugging Face's rule).
    static MultiAxisLayout interleaved(std::vector<int> mrope_section, int num_pairs)
    {
        require_mrope_section(mrope_section, num_pairs);
        std::vector<int> axes(static_cast<std::size_t>(num_pairs), 0);
        for (int i = 0; i < num_pairs; ++i) {
            if (i % 3 == 1 && i < 3 * mrope_section[1]) axes[static_cast<std::size_t>(i)] = 1;
            else if (i % 3 == 2 && i < 3 * mrope_section[2]) axes[static_cast<std::size_t>(i)] = 2;
        }
        return MultiAxisLayout(MultiAxisKind::interleaved, std::move(axes), 3, std::move(mrope_section));
    }

    /// 2-D axial RoPE of vision towers: pairs [0, P/2) axis 0, [P/2, P) axis 1.
    static MultiAxisLayout axial_2d(int num_pairs)
    {
        require_pairs(num_pairs);
        detail::require(num_pairs % 2 == 0, "num_pairs", num_pairs,
                        "must be even for 2-D axial RoPE (half the pairs per axis)");
        std::vector<int> axes(static_cast<std::size_t>(num_pairs), 0);
        for (int i = num_pairs / 2; i < num_pairs; ++i) axes[static_cast<std::size_t>(i)] = 1;
        return MultiAxisLayout(MultiAxisKind::axial_2d, std::move(axes), 2, {});
    }

    /// HunYuan XD-RoPE, Tencent / vLLM form: contiguous runs over the pairs, section j on axis j
    /// (1 to 4 sections summing to num_pairs); see the file comment.
    static MultiAxisLayout xd_sections(std::vector<int> sections, int num_pairs)
    {
        require_axis_sections(sections, num_pairs, "xdrope_section");
        std::vector<int> axes;
        axes.reserve(static_cast<std::size_t>(num_pairs));
        for (std::size_t a = 0; a < sections.size(); ++a)
            append_copies(axes, static_cast<std::size_t>(sections[a]), static_cast<int>(a));
        const int n = static_cast<int>(sections.size());
        return MultiAxisLayout(MultiAxisKind::xd_sections, std::move(axes), n, std::move(sections));
    }

    /// HunYuan-VL, Hugging Face transformers 5.x form: the doubled sections cut the 2P
    /// coordinates, so a pair's two coordinates may read different axes; see the file comment.
    static MultiAxisLayout coordinate_sections(std::vector<int> sections, int num_pairs)
    {
        require_axis_sections(sections, num_pairs, "mrope_section");
        std::vector<int> coordinate_axes;  // axis of coordinate c in [0, 2P)
        coordinate_axes.reserve(2 * static_cast<std::size_t>(num_pairs));
        for (std::size_t a = 0; a < sections.size(); ++a)
            append_copies(coordinate_axes, 2 * static_cast<std::size_t>(sections[a]), static_cast<int>(a));
        const auto half = coordinate_axes.begin() + num_pairs;
        std::vector<int> first(coordinate_axes.begin(), half);
        std::vector<int> second(half, coordinate_axes.end());
        const int n = static_cast<int>(sections.size());
        MultiAxisLayout layout(MultiAxisKind::coordinate_sections, std::move(first), n, std::move(sections));
        layout.partner_axes_ = std::move(second);
        return layout;
    }

    /// ERNIE-4.5-VL 3-D RoPE: [s_h, s_w, s_t] with s_h = s_w; pairs below s_h + s_w alternate
    /// height (even) and width (odd), the rest temporal (axis 0); see the file comment.
    static MultiAxisLayout height_width_alternating(std::vector<int> mrope_section, int num_pairs)
    {
        require_mrope_section(mrope_section, num_pairs);
        if (mrope_section[0] != mrope_section[1])
            detail::raise("mrope_section[1]", mrope_section[1],
                          "must equal mrope_section[0] " + std::to_string(mrope_section[0]) +
                              " (ERNIE-4.5-VL interleaves height and width pairs one for one)");
        const int hw = mrope_section[0] + mrope_section[1];
        std::vector<int> axes(static_cast<std::size_t>(num_pairs), 0);
        for (int k = 0; k < hw; ++k) axes[static_cast<std::size_t>(k)] = k % 2 == 0 ? 1 : 2;
        return MultiAxisLayout(MultiAxisKind::height_width_alternating, std::move(axes), 3, std::move(mrope_section));
    }

    /// Any explicit assignment: axis_of_pair[i] in [0, num_axes) for every pair.
    static MultiAxisLayout from_pair_axes(std::vector<int> axis_of_pair, int num_axes)
    {
        require_pairs(static_cast<long long>(axis_of_pair.size()));
        detail::require(num_axes >= 1 && num_axes <= max_position_axes, "num_axes", num_axes,
                        ("must be in [1, " + std::to_string(max_position_axes) + "]").c_str());
        for (std::size_t i = 0; i < axis_of_pair.size(); ++i)
            if (axis_of_pair[i] < 0 || axis_of_pair[i] >= num_axes)
                detail::raise("axis_of_pair[" + std::to_string(i) + "]", axis_of_pair[i],
                              "must be in [0, " + std::to_string(num_axes) + ") (num_axes " + std::to_string(num_axes) +
                                  ")");
        return MultiAxisLayout(MultiAxisKind::custom, std::move(axis_of_pair), num_axes, {});
    }

    MultiAxisKind kind() const noexcept { return kind_; }
    int num_axes() const noexcept { return num_axes_; }
    int num_pairs() const noexcept { return static_cast<int>(axes_.size()); }
    /// The axis pair `pair` reads. Precondition: 0 <= pair < num_pairs().
    int axis_of_pair(int pair) const noexcept { return axes_[static_cast<std::size_t>(pair)]; }
    /// axis_of_pair(i) for every pair i.
    const std::vector<int>& pair_axes() const noexcept { return axes_; }
    /// The axis the SECOND coordinate of pair `pair` reads: axis_of_pair(pair) except under
    /// coordinate_sections. Precondition: 0 <= pair < num_pairs().
    int partner_axis_of_pair(int pair) const noexcept
    {
        return partner_axes_.empty() ? axis_of_pair(pair) : partner_axes_[static_cast<std::size_t>(pair)];
    }
    /// partner_axis_of_pair(i) for every pair i.
    const std::vector<int>& partner_axes() const noexcept { return partner_axes_.empty() ? axes_ : partner_axes_; }
    /// True when some pair's two coordinates read different axes (coordinate_sections with
    /// sections that do not line up): such a pair is not a rotation where those positions differ.
    bool splits_pairs() const noexcept { return !partner_axes_.empty() && partner_axes_ != axes_; }
    /// The sections as given: [temporal, height, width] (sections, interleaved), [s_h, s_w, s_t]
    /// (height_width_alternating), one per axis (xd_sections, coordinate_sections); empty otherwise.
    const std::vector<int>& mrope_section() const noexcept { return mrope_section_; }
    bool is_interleaved() const noexcept { return kind_ == MultiAxisKind::interleaved; }
    /// The pairs as maximal runs of one axis, in pair order (sections [16, 24, 24]: three runs;
    /// interleaved: mostly runs of one pair).
    const std::vector<AxisRun>& axis_runs() const noexcept { return runs_; }
    /// Number of pairs that read `axis`.
    int pairs_on_axis(int axis) const noexcept
    {
        int n = 0;
        for (int a : axes_) n += a == axis ? 1 : 0;
        return n;
    }

    /// Same axes for every pair and partner coordinate (and the same number of axes); the rule
    /// that built them is not compared.
    friend bool operator==(const MultiAxisLayout& a, const MultiAxisLayout& b) noexcept
    {
        return a.num_axes_ == b.num_axes_ && a.axes_ == b.axes_ && a.partner_axes() == b.partner_axes();
    }
    friend bool operator!=(const MultiAxisLayout& a, const MultiAxisLayout& b) noexcept { return !(a == b); }

private:
    MultiAxisLayout(MultiAxisKind kind, std::vector<int> axes, int num_axes, std::vector<int> section)
        : kind_(kind), axes_(std::move(axes)), num_axes_(num_axes), mrope_section_(std::move(section))
    {
        for (int i = 0; i < static_cast<int>(axes_.size()); ++i) {
            const int a = axes_[static_cast<std::size_t>(i)];
            if (runs_.empty() || runs_.back().axis != a) runs_.push_back({i, i + 1, a});
            else runs_.back().end = i + 1;
        }
    }

    /// `count` copies of `value` at the end of `v` (push_back rather than a fill insert: one
    /// fewer vector member for every includer to compile).
    static void append_copies(std::vector<int>& v, std::size_t count, int value)
    {
        for (std::size_t k = 0; k < count; ++k) v.push_back(value);
    }

    static void require_pairs(long long num_pairs)
    {
        detail::require(num_pairs >= 1, "num_pairs", num_pairs, "must be >= 1");
    }

    static void require_axis_sections(const std::vector<int>& s, int num_pairs, const char* name)
    {
        require_pairs(num_pairs);
        if (s.empty() || s.size() > static_cast<std::size_t>(max_position_axes))
            throw error(name, detail::list_text(s),
                        "must have 1 to 4 entries (one per position axis), counted in pairs");
        long long sum = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] < 0)
                detail::raise(std::string(name) + "[" + std::to_string(i) + "]", s[i],
                              "must be >= 0 (pairs of that axis)");
            sum += s[i];
        }
        if (sum != num_pairs)
            detail::raise(std::string(name) + " sum", sum,
                          "must equal num_pairs " + std::to_string(num_pairs) + " (" + name + " " +
                              detail::list_text(s) + " counts pairs: rotary_dim / 2)");
    }

    static void require_mrope_section(const std::vector<int>& s, int num_pairs)
    {
        require_pairs(num_pairs);
        if (s.size() != 3)
            throw error("mrope_section", detail::list_text(s),
                        "must have 3 entries [temporal, height, width], counted in pairs");
        long long sum = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            if (s[i] < 0)
                detail::raise("mrope_section[" + std::to_string(i) + "]", s[i], "must be >= 0 (pairs of that axis)");
            sum += s[i];
        }
        if (sum != num_pairs)
            detail::raise("mrope_section sum", sum,
                          "must equal num_pairs " + std::to_string(num_pairs) + " (mrope_section " +
                              detail::list_text(s) + " counts pairs: rotary_dim / 2)");
    }

    MultiAxisKind kind_;
    std::vector<int> axes_;
    int num_axes_;
    std::vector<int> mrope_section_;
    std::vector<AxisRun> runs_;
    std::vector<int> partner_axes_;  // empty: the partner reads the pair's axis
};

namespace detail {
inline void require_vision_head_dim(int head_dim, double base)
{
    require(head_dim > 0 && head_dim % 4 == 0, "head_dim", head_dim,
            "must be a positive multiple of 4 for 2-D axial RoPE (two axes of head_dim / 4 pairs)");
    require(std::isfinite(base) && base > 1.0, "base", base, "must be finite and > 1");
}
}  // namespace detail

/// The frequency table of 2-D axial RoPE where both axes share one 1-D table of head_dim / 2
/// rotary dims (Q = head_dim / 4 pairs per axis), repeated for the second axis:
///     theta_i = base^(-2 (i mod Q) / (head_dim / 2)),   i in [0, 2Q)
/// Sources: Qwen2-VL / Qwen2.5-VL vision (VisionRotaryEmbedding(head_dim // 2), theta 10000,
/// models/qwen2_vl/modeling_qwen2_vl.py; rows then columns) and Llama 4 vision
/// (Llama4VisionRotaryEmbedding: freq_dim = head_dim / 2, base^(-arange(0, freq_dim, 2) /
/// freq_dim); x then y). Use with MultiAxisLayout::axial_2d(head_dim / 2).
/// Throws posenc::error unless head_dim is a positive multiple of 4 and base finite and > 1.
inline FrequencyTable axial_2d_shared_frequencies(int head_dim, double base = 10000.0)
{
    detail::require_vision_head_dim(head_dim, base);
    const int q = head_dim / 4;
    const double axis_dim = static_cast<double>(head_dim / 2);
    std::vector<double> f(static_cast<std::size_t>(2 * q));
    for (int i = 0; i < 2 * q; ++i)
        f[static_cast<std::size_t>(i)] = std::pow(base, -2.0 * static_cast<double>(i % q) / axis_dim);
    return FrequencyTable(std::move(f));
}

/// The frequency table of Pixtral's 2-D RoPE: the 1-D table of the whole head,
/// phi_k = base^(-2k / head_dim) (k in [0, head_dim / 2)), split by parity: the even k for
/// rows, the odd k for columns (Q = head_dim / 4 pairs each):
///     theta_i = phi_{2i}             i in [0, Q)     (axis 0, row)
///     theta_i = phi_{2(i - Q) + 1}   i in [Q, 2Q)    (axis 1, column)
/// Source: models/pixtral/modeling_pixtral.py, PixtralRotaryEmbedding (freqs[::2] for h,
/// freqs[1::2] for w, concatenated). Use with MultiAxisLayout::axial_2d(head_dim / 2).
/// Throws posenc::error unless head_dim is a positive multiple of 4 and base finite and > 1.
inline FrequencyTable axial_2d_even_odd_frequencies(int head_dim, double base = 10000.0)
{
    detail::require_vision_head_dim(head_dim, base);
    const int q = head_dim / 4;
    std::vector<double> f(static_cast<std::size_t>(2 * q));
    for (int i = 0; i < 2 * q; ++i) {
        const int k = i < q ? 2 * i : 2 * (i - q) + 1;
        f[static_cast<std::size_t>(i)] = std::pow(base, -2.0 * static_cast<double>(k) / static_cast<double>(head_dim));
    }
    return FrequencyTable(std::move(f));
}

namespace detail {
inline void require_layout_matches(const RopeSpec& spec, const FrequencyTable& table, const MultiAxisLayout& layout)
{
    if (table.num_pairs() != spec.num_pairs())
        raise("table.num_pairs", table.num_pairs(),
              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
    if (layout.num_pairs() != spec.num_pairs())
        raise("layout.num_pairs", layout.num_pairs(),
              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
}
}  // namespace detail

/// Rotates one head vector head[0 .. head_dim) in place: pair i by positions[axis_of_pair(i)]
/// (positions holds layout.num_axes() values; under coordinate_sections the pair's second
/// coordinate takes the cos/sin of positions[partner_axis_of_pair(i)], see the file comment),
/// otherwise exactly apply_rope_reference
/// (rotation.hpp): cos/sin of the exactly reduced angle times the attention factor, math in
/// double, one rounding into T. With every position equal to m it performs the same operations
/// as apply_rope_reference at m, so the results are identical. Error < 1e-14 |x| per pair in double.
/// Throws posenc::error, before writing, if the table's or the layout's pair count differs from
/// the spec's, or an axis's position lies outside the exact reduction's range for that axis's
/// pairs (require_exact_angle_range, named positions[<axis>]).
/// Precondition: positions points to layout.num_axes() values.
template <class T>
void apply_multi_axis_rope_reference(const RopeSpec& spec, const FrequencyTable& table, const MultiAxisLayout& layout,
                                     T* head, const std::int64_t* positions)
{
    static_assert(std::is_floating_point_v<T>,
                  "apply_multi_axis_rope_reference rotates float, double or long double data.");
    detail::require_layout_matches(spec, table, layout);
    for (int a = 0; a < layout.num_axes(); ++a) {
        double largest = 0.0;
        for (int i = 0; i < spec.num_pairs(); ++i)
            if (layout.axis_of_pair(i) == a || layout.partner_axis_of_pair(i) == a)
                largest = std::max(largest, table.inv_freq(i));
        require_exact_angle_range("positions[" + std::to_string(a) + "]", positions[a], largest);
    }
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const CosSin cs = cos_sin(table, positions[layout.axis_of_pair(i)], i);
        const CosSin partner = layout.partner_axis_of_pair(i) == layout.axis_of_pair(i)
                                   ? cs
                                   : cos_sin(table, positions[layout.partner_axis_of_pair(i)], i);
        const PairCoordinates p = spec.pair_coordinates(i);
        const double a = static_cast<double>(head[p.first]);
        const double b = static_cast<double>(head[p.second]);
        const detail::RotatedPair<double> rotated = detail::rotate_pair(a, b, cs.cos, cs.sin, partner.cos, partner.sin);
        head[p.first] = static_cast<T>(rotated.first);
        head[p.second] = static_cast<T>(rotated.second);
    }
}

/// The same with the positions as a vector; throws posenc::error unless it holds exactly
/// layout.num_axes() values.
template <class T>
void apply_multi_axis_rope_reference(const RopeSpec& spec, const FrequencyTable& table, const MultiAxisLayout& layout,
                                     T* head, const std::vector<std::int64_t>& positions)
{
    if (positions.size() != static_cast<std::size_t>(layout.num_axes()))
        detail::raise("positions.size", positions.size(), "must equal num_axes " + std::to_string(layout.num_axes()));
    apply_multi_axis_rope_reference(spec, table, layout, head, positions.data());
}

}  // namespace posenc
