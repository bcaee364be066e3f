// SPDX-License-Identifier: MIT
// posenc/kernels/detail/rotation_skeleton.hpp: the rotation skeleton. Every kernel (apply, the one-token
// decode step, the fused QK-norm + RoPE, the KV-cache write, multi-axis apply) rotates heads
// through rotate_row and rotate_group below, with two policies:
//
//   pairing   how a group of registers of a head is loaded, rotated and stored:
//             HalfSplitPairs (pair i is (i, i + half)), InterleavedPairs (pair i is (2i, 2i + 1),
//             with the row's cos duplicated and sin sign-folded), and bfloat16 on AVX-512 BF16's
//             even/odd forms (bfloat16_even_odd.hpp);
//   epilogue  what the rotation's result is multiplied by: nothing (Plain), or a head's 1 / rms
//             with the norm weights folded into cos and sin once per group (Normed).
//
// The heads come as a run (HeadRun: in and out pointers and strides; InPlaceRun: one pointer)
// and the store order as a tag (GroupedStores: a group's a registers, then its b registers;
// PairStores: each register's a and b together). A new pairing is one policy struct with
// coefficients / load / rotate / store; a new epilogue is one struct the policies' coefficients
// and rotate understand. docs/architecture.md draws the map.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/rotation_skeleton.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <cstddef>
#include <type_traits>
#include <utility>

#include "posenc/angles.hpp"
#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"

namespace posenc::kernels::detail {

// ---- widths: a whole register, or the first `count` lanes of one (a row's tail) -------------

struct FullWidth {};
struct PartialWidth {
    int count;
};

template <class A, class T>
POSENC_ALWAYS_INLINE simd::floats<A> load_lanes(const T* p, FullWidth) noexcept
{
    return simd::load_as_floats<A>(p);
}
template <class A, class T>
POSENC_ALWAYS_INLINE simd::floats<A> load_lanes(const T* p, PartialWidth w) noexcept
{
    return simd::load_first<A>(p, w.count);
}
template <class A, class T>
POSENC_ALWAYS_INLINE void store_lanes(T* p, const simd::floats<A>& v, FullWidth) noexcept
{
    simd::store_rounded<A>(p, v);
}
template <class A, class T>
POSENC_ALWAYS_INLINE void store_lanes(T* p, const simd::floats<A>& v, PartialWidth w) noexcept
{
    simd::store_first<A>(p, v, w.count);
}

/// Registers k < N from p + k * lanes, two per access where simd::paired_access holds.
template <class A, class T, class Width, std::size_t... K>
POSENC_ALWAYS_INLINE void load_registers(const T* p, simd::floats<A> (&v)[sizeof...(K)], Width width,
                                         std::index_sequence<K...>) noexcept
{
    constexpr std::ptrdiff_t lanes = simd::float_lanes<A>;
    if constexpr (std::is_same_v<Width, FullWidth> && simd::paired_access<A, T> && sizeof...(K) % 2 == 0)
        simd::load_pairs_as_floats<A>(p, v);
    else ((v[K] = load_lanes<A>(p + static_cast<int>(K) * lanes, width)), ...);
}

// ---- store orders ------------------------------------------------------------------------------

/// A group's results stored all a registers, then all b registers (several tokens: the order
/// the prefill was measured with).
struct GroupedStores {};
/// Each register's a and b stored as soon as they are formed, so the stores of a head interleave
/// with its arithmetic (one token: docs/benchmarks.md, "Measurements behind the kernels' choices").
struct PairStores {};

template <class A, class T, class Width, std::size_t... K>
POSENC_ALWAYS_INLINE void store_registers(T* p, const simd::floats<A> (&v)[sizeof...(K)], Width width,
                                          std::index_sequence<K...>) noexcept
{
    constexpr std::ptrdiff_t lanes = simd::float_lanes<A>;
    if constexpr (std::is_same_v<Width, FullWidth> && simd::paired_access<A, T> && sizeof...(K) % 2 == 0)
        simd::store_rounded_pairs<A>(p, v);
    else (store_lanes<A>(p + static_cast<int>(K) * lanes, v[K], width), ...);
}

// ---- epilogues -----------------------------------------------------------------------------------

/// The rotation's result stored as it is.
struct Plain {};

/// A tensor's norm weights as the formula scales by them: (w[j] + offset) * scale (offset 0:
/// x / rms * w; 1: x / rms * (1 + w); scale a per-token query multiplier, 1 otherwise, which
/// changes no bit), formed where a register of weights is loaded (once per group of pairs and
/// run of heads, never once per head).
struct NormWeights {
    const float* w = nullptr;
    float offset = 0.0f;
    float scale = 1.0f;
    template <class A, class Width>
    POSENC_ALWAYS_INLINE simd::floats<A> load(std::ptrdiff_t j, Width width) const noexcept
    {
        return (load_lanes<A>(w + j, width) + simd::floats<A>(offset)) * simd::floats<A>(scale);
    }
    /// The weights from coordinate j on (null stays null: a call without the norm has none).
    POSENC_ALWAYS_INLINE NormWeights from(int j) const noexcept
    {
        return {w == nullptr ? nullptr : w + j, offset, scale};
    }
};

/// The RMS norm: each head's result times its 1 / rms, the weights folded into cos and sin
/// (RoPE(x r w) = r RoPE(x w) with the weights in the coefficients: qk_norm_rope.hpp's bound).
/// inv_rms: one value per head of the run; null: formed from the head's own registers (a pairing
/// whose one group holds the whole head, forms_inv_rms).
struct Normed {
    NormWeights weights;
    const float* inv_rms;
    float eps;
    int head_dim;
    /// The same norm for the run's heads from head i on (inv_rms null stays null).
    POSENC_ALWAYS_INLINE Normed from_head(std::ptrdiff_t i) const noexcept
    {
        return {weights, inv_rms == nullptr ? nullptr : inv_rms + i, eps, head_dim};
    }
};

struct NoScale {};
template <class A>
POSENC_ALWAYS_INLINE simd::floats<A> scaled(NoScale, const simd::floats<A>& v) noexcept
{
    return v;
}
template <class A>
POSENC_ALWAYS_INLINE simd::floats<A> scaled(const simd::floats<A>& r, const simd::floats<A>& v) noexcept
{
    return r * v;
}

/// What multiplies head h's results: nothing (Plain) or its 1 / rms (Normed).
template <class A, class Pairs, class Regs>
POSENC_ALWAYS_INLINE NoScale scale_of(const Plain&, std::ptrdiff_t, const Regs&) noexcept
{
    return {};
}
template <class A, class Pairs, class Regs>
POSENC_ALWAYS_INLINE simd::floats<A> scale_of(const Normed& e, std::ptrdiff_t h, const Regs& x) noexcept
{
    if constexpr (Pairs::forms_inv_rms) {
        if (e.inv_rms == nullptr) return Pairs::inv_rms_of(x, e.eps, e.head_dim);
    }
    return simd::floats<A>(e.inv_rms[h]);
}

// ---- runs of heads -------------------------------------------------------------------------------

/// Heads at constant strides: head h reads in + h in_stride and writes out + h out_stride.
/// prefetch: hint the head simd::prefetch_heads_ahead heads on.
template <class T, class Out = T>
struct HeadRun {
    const T* in;
    Out* out;
    std::ptrdiff_t in_stride, out_stride, heads;
    bool prefetch = false;
    POSENC_ALWAYS_INLINE const T* source() const noexcept { return in; }
    POSENC_ALWAYS_INLINE Out* target() const noexcept { return out; }
    POSENC_ALWAYS_INLINE std::ptrdiff_t source_stride() const noexcept { return in_stride; }
    POSENC_ALWAYS_INLINE void next() noexcept { in += in_stride, out += out_stride; }
    /// The same heads from coordinate `offset` of each on.
    POSENC_ALWAYS_INLINE HeadRun from(std::ptrdiff_t offset) const noexcept
    {
        return {in + offset, out + offset, in_stride, out_stride, heads, prefetch};
    }
};

/// Heads rotated in place (the decode step): one pointer and one stride, nothing else to keep.
template <class T>
struct InPlaceRun {
    T* x;
    std::ptrdiff_t stride, heads;
    static constexpr bool prefetch = false;
    POSENC_ALWAYS_INLINE const T* source() const noexcept { return x; }
    POSENC_ALWAYS_INLINE T* target() const noexcept { return x; }
    POSENC_ALWAYS_INLINE std::ptrdiff_t source_stride() const noexcept { return stride; }
    POSENC_ALWAYS_INLINE void next() noexcept { x += stride; }
    POSENC_ALWAYS_INLINE InPlaceRun from(std::ptrdiff_t offset) const noexcept { return {x + offset, stride, heads}; }
};

// ---- pairings in element order -------------------------------------------------------------------
//
// A pairing policy has a chunk (row units per register), Regs<N> (a group's data registers of
// one head) and Coefficients<N> (the group's cos and sin, weights folded in), and fills them in
// place: coefficients(), load(), rotate_store(). Everything goes through references to the
// skeleton's own objects, never by aggregate copies, which compilers may leave in memory.

/// Pair i is (i, i + half) of the slice: a group of N registers is N registers of a (at j) and N
/// of b (at half + j), j counted in pairs. Plain: a' = a c - b s, b' = b c + a s. Normed:
/// a' = r (a ca - b sb), b' = r (b cb + a sa) with ca = c w_a, sb = s w_b, cb = c w_b, sa = s w_a.
template <class A>
struct HalfSplitPairs {
    using vec = simd::floats<A>;
    static constexpr int lanes = simd::float_lanes<A>;
    static constexpr int chunk = lanes;  ///< row units (pairs) per register
    static constexpr bool forms_inv_rms = true;
    std::ptrdiff_t half;  ///< elements from a pair's a to its b

    template <std::size_t N>
    struct Regs {
        vec a[N], b[N];
    };
    template <std::size_t N>
    struct Coefficients {
        vec ca[N], sb[N], cb[N], sa[N];  ///< Plain fills ca (cos) and sb (sin) only
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return j; }  ///< the element of row unit j (its a)

    template <class Epilogue, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Epilogue& e, int j, Width width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        ((c.ca[K] = load_lanes<A>(row.cos + j + static_cast<int>(K) * lanes, width)), ...);
        ((c.sb[K] = load_lanes<A>(row.sin + j + static_cast<int>(K) * lanes, width)), ...);
        if constexpr (std::is_same_v<Epilogue, Normed>) {
            const vec w_a[] = {e.weights.template load<A>(j + static_cast<int>(K) * lanes, width)...};
            const vec w_b[] = {e.weights.template load<A>(half + j + static_cast<int>(K) * lanes, width)...};
            ((c.cb[K] = c.ca[K] * w_b[K], c.sa[K] = c.sb[K] * w_a[K], c.ca[K] = c.ca[K] * w_a[K],
              c.sb[K] = c.sb[K] * w_b[K]),
             ...);
        }
    }

    template <class T, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const T* head, Width width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...> k) const noexcept
    {
        load_registers<A>(head, x.a, width, k);
        load_registers<A>(head + half, x.b, width, k);
    }

    /// The rotated group of one head, scaled and stored in the order Order. PairStores stores each
    /// register's a' before forming its b', so x's registers stay loaded once (an in-place head's
    /// memory has changed under them).
    template <class Epilogue, class Order, class Scale, class Out, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c,
                                           const Scale& r, Out* head, Width width,
                                           std::index_sequence<K...> k) const noexcept
    {
        constexpr bool plain = std::is_same_v<Epilogue, Plain>;
        const auto& cb = plain ? c.ca : c.cb;
        const auto& sa = plain ? c.sb : c.sa;
        auto a_of = [&](std::size_t i) { return scaled<A>(r, simd::mul_sub<A>(x.a[i], c.ca[i], x.b[i] * c.sb[i])); };
        auto b_of = [&](std::size_t i) { return scaled<A>(r, simd::mul_add<A>(x.b[i], cb[i], x.a[i] * sa[i])); };
        if constexpr (std::is_same_v<Order, PairStores> && !(simd::paired_access<A, Out> && sizeof...(K) % 2 == 0)) {
            ((store_lanes<A>(head + static_cast<int>(K) * lanes, a_of(K), width),
              store_lanes<A>(head + half + static_cast<int>(K) * lanes, b_of(K), width)),
             ...);
        } else {
            const vec a[] = {a_of(K)...}, b[] = {b_of(K)...};
            store_registers<A>(head, a, width, k);
            store_registers<A>(head + half, b, width, k);
        }
    }

    template <class T, std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const T* head, std::ptrdiff_t stride, std::index_sequence<K...> k) const noexcept
    {
        simd::prefetch_halves_ahead<lanes>(head, head + half, stride, k);
    }

    /// 1 / sqrt(sum / n + eps) of a head held whole in the registers of one group: the squares
    /// summed in partial sums (chunk k with chunk k + N, the order of the tile's head_sum_squares),
    /// then across lanes; each step one float rounding.
    template <std::size_t N>
    static POSENC_ALWAYS_INLINE vec inv_rms_of(const Regs<N>& x, float eps, int n) noexcept
    {
        vec acc[N];
        for (std::size_t k = 0; k < N; ++k) acc[k] = simd::mul_add<A>(x.b[k], x.b[k], x.a[k] * x.a[k]);
        for (std::size_t width = N; width > 1; width /= 2)  // N is 1, 2 or 4: (acc0 + acc1) + (acc2 + acc3)
            for (std::size_t k = 0; k < width / 2; ++k) acc[k] = acc[2 * k] + acc[2 * k + 1];
        // the square root of a register (std::sqrt(float) is an inline function a per-ISA unit
        // must not emit: scripts/check-isa-symbols.sh); every lane holds the same value
        return simd::divide<A>(vec(1.0f),
                               simd::sqrt<A>(vec(simd::horizontal_sum<A>(acc[0]) / static_cast<float>(n) + eps)));
    }
};

/// Pair i is (2i, 2i + 1): a group of N registers is N registers of elements (at j, counted in
/// elements), rotated as x c + swap_pairs(x) s with the row's cos duplicated (c0 c0 c1 c1 ...)
/// and sin sign-folded (-s0 s0 -s1 s1 ...): expand_interleaved_row. Normed: c w and s swap(w)
/// (swap(x w) = swap(x) swap(w)), times r.
template <class A>
struct InterleavedPairs {
    using vec = simd::floats<A>;
    static constexpr int lanes = simd::float_lanes<A>;
    static constexpr int chunk = lanes;  ///< row units (elements) per register
    static constexpr bool forms_inv_rms = false;

    template <std::size_t N>
    struct Regs {
        vec v[N];
    };
    template <std::size_t N>
    struct Coefficients {
        vec c[N], s[N];
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return 2 * pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return j; }

    template <class Epilogue, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Epilogue& e, int j, Width width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        ((c.c[K] = load_lanes<A>(row.cos + j + static_cast<int>(K) * lanes, width)), ...);
        ((c.s[K] = load_lanes<A>(row.sin + j + static_cast<int>(K) * lanes, width)), ...);
        if constexpr (std::is_same_v<Epilogue, Normed>) {
            const vec w[] = {e.weights.template load<A>(j + static_cast<int>(K) * lanes, width)...};
            ((c.c[K] = c.c[K] * w[K], c.s[K] = c.s[K] * simd::swap_pairs<A>(w[K])), ...);
        }
    }

    template <class T, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const T* head, Width width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...> k) const noexcept
    {
        load_registers<A>(head, x.v, width, k);
    }

    template <class Epilogue, class Order, class Scale, class Out, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c,
                                           const Scale& r, Out* head, Width width,
                                           std::index_sequence<K...> k) const noexcept
    {
        const vec y[] = {scaled<A>(r, simd::mul_add<A>(simd::swap_pairs<A>(x.v[K]), c.s[K], x.v[K] * c.c[K]))...};
        store_registers<A>(head, y, width, k);
    }

    template <class T, std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const T* head, std::ptrdiff_t stride, std::index_sequence<K...>) const noexcept
    {
        (simd::prefetch(head, simd::prefetch_heads_ahead * stride + static_cast<std::ptrdiff_t>(K) * lanes), ...);
    }
};

/// -1, 1, -1, 1, ...: the lanes' signs of a sign-folded sin register.
alignas(64) inline constexpr float alternating_signs[16] = {-1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f,
                                                            -1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f};

/// InterleavedPairs reading the row as the angle source gives it (num_pairs cos, num_pairs sin)
/// and duplicating and sign-folding it in registers: the same coefficients, bit for bit, as
/// InterleavedPairs on expand_interleaved_row's row, without the expanded row's stores and loads
/// (a one-head row is worth no expansion: row mla_decode_bf16/mla_cache of docs/benchmarks.md).
/// Only for rows of whole registers of pairs (num_pairs % float_lanes<A> == 0: no partial chunk,
/// so it goes through rotate_group, not rotate_row), Plain only (no weights to fold).
template <class A>
struct InterleavedPairsFromRow : InterleavedPairs<A> {
    using vec = simd::floats<A>;
    static constexpr int lanes = simd::float_lanes<A>;
    static_assert(lanes <= 16, "alternating_signs holds a register");
    int num_pairs;  ///< the row's pairs

    template <std::size_t N>
    using Coefficients = typename InterleavedPairs<A>::template Coefficients<N>;

    /// Chunk k of the group at element j covers pairs [p, p + lanes / 2), p = j / 2 + k lanes / 2:
    /// chunks two by two from one register of pairs (duplicate's two halves); a lone chunk from
    /// the register at p (its first half) or, at the row's end, the one ending at p + lanes / 2
    /// (its second half). Every load lies inside the row.
    template <class Epilogue, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Epilogue&, int j, Width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        static_assert(std::is_same_v<Epilogue, Plain> && std::is_same_v<Width, FullWidth>, "whole registers, Plain");
        constexpr std::size_t n = sizeof...(K);
        const vec sign = vec::load_aligned(alternating_signs);
        const int p = j / 2;
        for (std::size_t k = 0; k + 1 < n; k += 2) {
            const int at = p + static_cast<int>(k / 2) * lanes;
            const simd::FloatPair<A> cd = simd::duplicate<A>(vec::load_unaligned(row.cos + at));
            const simd::FloatPair<A> sd = simd::duplicate<A>(vec::load_unaligned(row.sin + at));
            c.c[k] = cd.first, c.c[k + 1] = cd.second;
            c.s[k] = sd.first * sign, c.s[k + 1] = sd.second * sign;
        }
        if constexpr (n % 2 == 1) {
            const int at = p + static_cast<int>(n / 2) * lanes;
            const bool first = at + lanes <= num_pairs;
            const int from = first ? at : at - lanes / 2;
            const simd::FloatPair<A> cd = simd::duplicate<A>(vec::load_unaligned(row.cos + from));
            const simd::FloatPair<A> sd = simd::duplicate<A>(vec::load_unaligned(row.sin + from));
            c.c[n - 1] = first ? cd.first : cd.second;
            c.s[n - 1] = (first ? sd.first : sd.second) * sign;
        }
    }
};

// ---- the skeleton --------------------------------------------------------------------------------

/// One group of sizeof...(K) chunks at row unit j, for every head of the run: the coefficients
/// (cos and sin of the group, the epilogue's weights folded in) loaded once into registers, then
/// each head loaded, rotated, scaled by the epilogue and stored in the order Order.
template <class A, class Order, class Run, class Pairs, class Epilogue, class Width, std::size_t... K>
POSENC_ALWAYS_INLINE void rotate_group(const Run& run, const Pairs& pairs, const Epilogue& e, const AngleRow& row,
                                       int j, Width width, std::index_sequence<K...> k) noexcept
{
    typename Pairs::template Coefficients<sizeof...(K)> coefficients;
    pairs.coefficients(row, e, j, width, coefficients, k);
    Run heads = run.from(Pairs::element(j));
    for (std::ptrdiff_t left = heads.heads, h = 0; left > 0; --left, ++h, heads.next()) {  // h: only Normed reads it
        if (heads.prefetch) pairs.prefetch(heads.source(), heads.source_stride(), k);
        typename Pairs::template Regs<sizeof...(K)> x;
        pairs.load(heads.source(), width, x, k);
        pairs.template rotate_store<Epilogue, Order>(x, coefficients, scale_of<A, Pairs>(e, h, x), heads.target(),
                                                     width, k);
    }
}

/// The row's last partial chunk (fewer than Pairs::chunk units): out of line, since most heads
/// have none (rotary_dim / 2 a multiple of the register width).
template <class A, class Order, class Run, class Pairs, class Epilogue>
POSENC_NOINLINE void rotate_partial_group(Run run, const Pairs& pairs, const Epilogue& e, const AngleRow& row, int j,
                                          int count) noexcept
{
    rotate_group<A, Order>(run, pairs, e, row, j, PartialWidth {count}, std::index_sequence<0> {});
}

/// A row of `pairs_in_row` pairs for every head of the run: groups of Chunks chunks, then single
/// chunks, then the partial chunk. The one rotation loop of the kernels.
template <class A, int Chunks, class Order, class Run, class Pairs, class Epilogue>
POSENC_ALWAYS_INLINE void rotate_row(const Run& run, const Pairs& pairs, const Epilogue& e, const AngleRow& row,
                                     int pairs_in_row) noexcept
{
    constexpr int group = Chunks * Pairs::chunk;
    const int extent = pairs.extent(pairs_in_row);
    int j = 0;
    for (; j + group <= extent; j += group)
        rotate_group<A, Order>(run, pairs, e, row, j, FullWidth {}, std::make_index_sequence<Chunks>());
    for (; j + Pairs::chunk <= extent; j += Pairs::chunk)
        rotate_group<A, Order>(run, pairs, e, row, j, FullWidth {}, std::index_sequence<0> {});
    if (j < extent) rotate_partial_group<A, Order>(run, pairs, e, row, j, extent - j);
}

}  // namespace posenc::kernels::detail
