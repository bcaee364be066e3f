// SPDX-License-Identifier: MIT
// posenc/kernels/detail/axis_run_gather.hpp: a multi-axis row's cos/sin gathered from its axes'
// rows (multi_axis_rows.hpp): pair j of the row is pair j of the row of its run's axis, copied.
//
// On AVX-512 the row is formed a 16-float register at a time: one merge-masked load per cos and
// per sin from an axis's row for every run the register covers (sections: lanes from the run's
// bounds) or, where the runs are more than the axes (interleaved sections, runs of one pair
// alternating axes), for every axis (lanes: the layout's pair axes compared with it); lanes of
// other runs kept, nothing read outside the row's pairs; then one whole store of the register,
// the last one included: the output arrays are written up to `count` rounded up to 16 floats, so
// they must hold that many (MultiAxisRows' scratch arrays hold max_pairs_per_row, a multiple of
// 16). The
// rotation then loads the row a register at a time from where one store wrote it, so its loads
// take their bytes from that store rather than from several narrow copies of a run's pairs (a
// load fed by several stores waits until they reach the cache); a masked store of the last
// register measured no better than the copy loop. Elsewhere: a copy loop per run, or pair by
// pair where the runs are more than the axes. All copy the values, so the row's bits are the
// axes' rows' bits.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/axis_run_gather.hpp is internal to the kernels: include <posenc/kernels/multi_axis.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/multi_axis.hpp"

namespace posenc::kernels::detail {

/// A layout's runs of equal axes (covering its pairs once) and the axis of every pair.
struct LayoutRuns {
    const AxisRun* runs;
    int num_runs;
    const int* pair_axes;
    int num_axes;
};

/// The row's pairs [pair_begin, pair_begin + count): pair pair_begin + j from
/// rows[axis].cos[j] and .sin[j], axis = layout.pair_axes[pair_begin + j], into out_cos[j],
/// out_sin[j] (rows of `count` pairs from pair_begin). out_cos and out_sin hold `count` rounded
/// up to 16 floats (file comment).
template <class Arch>
POSENC_ALWAYS_INLINE void gather_axis_runs(const AngleRow* rows, const LayoutRuns& layout, int pair_begin, int count,
                                           float* out_cos, float* out_sin) noexcept
{
    const AxisRun* runs = layout.runs;
    const int num_runs = layout.num_runs;
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
        for (int j = 0; j < count; j += 16) {
            const int lo = pair_begin + j, n = count - j < 16 ? count - j : 16;
            __m512 c = _mm512_setzero_ps(), s = _mm512_setzero_ps();
            if (num_runs <= max_position_axes) {  // a section per axis: the runs' lanes from their bounds
                for (int r = 0; r < num_runs; ++r) {
                    const int begin = (runs[r].begin > lo ? runs[r].begin : lo) - lo;
                    const int end = (runs[r].end < lo + n ? runs[r].end : lo + n) - lo;
                    if (begin >= end) continue;
                    const auto lanes = static_cast<__mmask16>(((1u << end) - 1u) & ~((1u << begin) - 1u));
                    c = _mm512_mask_loadu_ps(c, lanes, rows[runs[r].axis].cos + j);
                    s = _mm512_mask_loadu_ps(s, lanes, rows[runs[r].axis].sin + j);
                }
            } else {  // runs of a pair or two (interleaved sections): each axis's lanes from pair_axes
                const auto valid = static_cast<__mmask16>((1u << n) - 1u);
                const __m512i axes = _mm512_maskz_loadu_epi32(valid, layout.pair_axes + lo);
                for (int a = 0; a < layout.num_axes; ++a) {
                    const __mmask16 lanes = _mm512_mask_cmpeq_epi32_mask(valid, axes, _mm512_set1_epi32(a));
                    c = _mm512_mask_loadu_ps(c, lanes, rows[a].cos + j);
                    s = _mm512_mask_loadu_ps(s, lanes, rows[a].sin + j);
                }
            }
            _mm512_storeu_ps(out_cos + j, c);
            _mm512_storeu_ps(out_sin + j, s);
        }
        return;
    }
#endif
    if (num_runs > max_position_axes) {  // runs of a pair or two (interleaved sections): pair by pair
        for (int j = 0; j < count; ++j) {
            const AngleRow& from = rows[layout.pair_axes[pair_begin + j]];
            out_cos[j] = from.cos[j];
            out_sin[j] = from.sin[j];
        }
        return;
    }
    const int pair_end = pair_begin + count;
    for (int r = 0; r < num_runs; ++r) {
        const int begin = (runs[r].begin > pair_begin ? runs[r].begin : pair_begin) - pair_begin;
        const int end = (runs[r].end < pair_end ? runs[r].end : pair_end) - pair_begin;
        const float* c = rows[runs[r].axis].cos;
        const float* s = rows[runs[r].axis].sin;
        for (int j = begin; j < end; ++j) {
            out_cos[j] = c[j];
            out_sin[j] = s[j];
        }
    }
}

}  // namespace posenc::kernels::detail
