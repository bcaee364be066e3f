// SPDX-License-Identifier: MIT
// posenc/cuda/detail/rope_kernel_body.cuh: RopeKernel, the phases described in rope_kernel.cuh.
// Included by rope_kernel.cuh only.
#pragma once

namespace posenc::cuda {

/// The kernel body: operator()(phase, index, shared) runs one thread's share of one phase.
template <class T, class Angles, KernelMode Mode>
struct RopeKernel {
    RopeArgs<T, Angles> args;

    static constexpr int phases = 3;

    POSENC_HD void operator()(int phase, ThreadIndex ix, BlockShared& shared) const noexcept
    {
        const std::int64_t t = ix.block / args.head_groups;
        if (!token_is_served(t)) {
            if (phase == 0 && ix.thread == 0 && ix.block % args.head_groups == 0)
                report(args.status, status_position_outside_angles);
            return;
        }
        if (phase == 0) fill_angles(t, ix, shared);
        else if (phase == 1) norm_sums(t, ix, shared);
        else rotate_head(t, ix, shared);
    }

    /// Position of pair i of token t (the token's, or its axis's under multi-axis).
    POSENC_HD std::int64_t position_of(std::int64_t t, int i) const noexcept
    {
        if constexpr (Mode == KernelMode::multi_axis) return args.axis_positions(t, args.axis_of_pair[i]);
        else return args.positions[t];
    }

    /// Whether the angle source serves every position of token t.
    POSENC_HD bool token_is_served(std::int64_t t) const noexcept
    {
        if constexpr (Mode == KernelMode::multi_axis) {
            for (int a = 0; a < args.axis_positions.axes(); ++a)
                if (!args.angles.serves(args.axis_positions(t, a))) return false;
            return true;
        } else {
            return args.angles.serves(args.positions[t]);
        }
    }

    /// Phase 0: shared cos/sin of every pair at token t.
    POSENC_HD void fill_angles(std::int64_t t, ThreadIndex ix, BlockShared& shared) const noexcept
    {
        for (int i = ix.thread; i < args.rotary_dim / 2; i += ix.threads) {
            const FloatCosSin cs = args.angles.at(position_of(t, i), i);
            shared.cos[i] = cs.cos;
            shared.sin[i] = args.inverse ? -cs.sin : cs.sin;
        }
    }

    /// Head `head` of the launch (Q, then K, then V heads) for block ix.block and lane group w.
    POSENC_HD int head_of(ThreadIndex ix) const noexcept
    {
        return static_cast<int>(ix.block % args.head_groups) * args.heads_per_block + ix.thread / head_lanes;
    }

    /// Input row of a Q or K head h of token t.
    POSENC_HD const T* input_row(std::int64_t t, int h) const noexcept
    {
        return h < args.q_heads ? args.q_in.head(t, h) : args.k_in.head(t, h - args.q_heads);
    }

    /// Phase 1: lane partial sums of squares of the token's Q and K heads (QK-norm only).
    POSENC_HD void norm_sums(std::int64_t t, ThreadIndex ix, BlockShared& shared) const noexcept
    {
        if constexpr (Mode == KernelMode::norm_rope) {
            const int h = head_of(ix), lane = ix.thread % head_lanes;
            if (h >= args.q_heads + args.k_heads) return;
            const T* x = input_row(t, h);
            float sum = 0.0f;
            for (int d = lane; d < args.head_dim; d += head_lanes) {
                const float v = load_as_float(x[d]);
                sum += v * v;
            }
            shared.partial[ix.thread / head_lanes][lane] = sum;
        } else {
            (void)t, (void)ix, (void)shared;
        }
    }

    /// 1 / sqrt(sum / n + eps) of the head of lane group w, from the 32 partial sums in order.
    POSENC_HD float inverse_rms(int w, const BlockShared& shared) const noexcept
    {
        float sum = 0.0f;
        for (int l = 0; l < head_lanes; ++l) sum += shared.partial[w][l];
        return 1.0f / sqrtf(sum / static_cast<float>(args.head_dim) + args.eps);
    }

    /// The slot of token t if its K/V rows are written; -1 to skip them (reported if invalid).
    POSENC_HD std::int64_t slot_of(std::int64_t t, int lane) const noexcept
    {
        const std::int64_t s = args.slots[t];
        if (s == -1) return -1;
        if (s < 0 || s >= args.key_cache.slots() || (args.v_heads > 0 && s >= args.value_cache.slots())) {
            if (lane == 0) report(args.status, status_slot_outside_cache);
            return -1;
        }
        return s;
    }

    /// The output row of head h of token t (h >= q_heads: K, into k_out or the cache); its
    /// `view` and `cache` both null when nothing is written.
    POSENC_HD OutRow<T> output_row(std::int64_t t, int h, int lane) const noexcept
    {
        OutRow<T> row;
        if (h < args.q_heads) {
            row.view = args.q_out.head(t, h);
            return row;
        }
        if (!args.to_cache) {
            row.view = args.k_out.head(t, h - args.q_heads);
            return row;
        }
        const std::int64_t slot = slot_of(t, lane);
        if (slot < 0) return row;
        const int hk = h - args.q_heads;
        row = cache_row<T>(args.key_cache, slot, hk);
        if (!usable_scale(row.scale)) {
            if (lane == 0) report(args.status, status_invalid_cache_scale);
            row.cache = nullptr;
        }
        return row;
    }

    /// Phase 2: one head's pass-through dims and rotated pairs, or a V head's copy.
    POSENC_HD void rotate_head(std::int64_t t, ThreadIndex ix, const BlockShared& shared) const noexcept
    {
        const int h = head_of(ix), lane = ix.thread % head_lanes;
        if (h >= args.q_heads + args.k_heads) {
            if (h < args.q_heads + args.k_heads + args.v_heads) copy_value(t, h - args.q_heads - args.k_heads, lane);
            return;
        }
        const OutRow<T> out = output_row(t, h, lane);
        if (out.view == nullptr && out.cache == nullptr) return;
        const T* x = input_row(t, h);
        float r = 1.0f;
        const float* weight = nullptr;
        if constexpr (Mode == KernelMode::norm_rope) {
            r = inverse_rms(ix.thread / head_lanes, shared);
            weight = h < args.q_heads ? args.q_weight : args.k_weight;
        }
        const bool write_through = weight != nullptr || out.cache != nullptr || out.view != static_cast<const void*>(x);
        if (write_through) pass_through(x, out, lane, r, weight);
        rotate_pairs(x, out, lane, r, weight, shared);
    }

    /// Coordinates outside the rotated slice: x (r w'_d) with the norm, x otherwise.
    POSENC_HD void pass_through(const T* x, const OutRow<T>& out, int lane, float r, const float* weight) const noexcept
    {
        const int end = args.rotary_offset + args.rotary_dim;
        for (int d = lane; d < args.head_dim; d += head_lanes) {
            if (d >= args.rotary_offset && d < end) continue;
            const float v = load_as_float(x[d]);
            out.put(d, weight != nullptr ? v * (r * (weight[d] + args.weight_offset)) : v);
        }
    }

    /// The rotated pairs of one head (apply.hpp's formula; qk_norm_rope.hpp's with a weight).
    POSENC_HD void rotate_pairs(const T* x, const OutRow<T>& out, int lane, float r, const float* weight,
                                const BlockShared& shared) const noexcept
    {
        const int pairs = args.rotary_dim / 2;
        for (int i = lane; i < pairs; i += head_lanes) {
            const int da = args.rotary_offset + (args.interleaved ? 2 * i : i);
            const int db = args.interleaved ? da + 1 : da + pairs;
            const float a = load_as_float(x[da]), b = load_as_float(x[db]);
            const float c = shared.cos[i], s = shared.sin[i];
            if (weight == nullptr) {
                const auto rotated = posenc::detail::rotate_pair(a, b, c, s);
                out.put(da, rotated.first);
                out.put(db, rotated.second);
            } else {
                const float wa = weight[da] + args.weight_offset, wb = weight[db] + args.weight_offset;
                // the weights folded into the coefficients: a c w_a - b s w_b, b c w_b + a s w_a
                const auto weighted = posenc::detail::rotate_pair(a, b, c * wa, s * wb, c * wb, s * wa);
                out.put(da, r * weighted.first);
                out.put(db, r * weighted.second);
            }
        }
    }

    /// V head hv of token t copied (rounded or quantised) into the value cache at its slot.
    POSENC_HD void copy_value(std::int64_t t, int hv, int lane) const noexcept
    {
        const std::int64_t slot = slot_of(t, lane);
        if (slot < 0) return;
        const OutRow<T> out = cache_row<T>(args.value_cache, slot, hv);
        if (!usable_scale(out.scale)) {
            if (lane == 0) report(args.status, status_invalid_cache_scale);
            return;
        }
        const T* v = args.v_in.head(t, hv);
        for (int d = lane; d < args.head_dim; d += head_lanes) out.put(d, load_as_float(v[d]));
    }
};

}  // namespace posenc::cuda
