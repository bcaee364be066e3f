// SPDX-License-Identifier: MIT
// python/src/cache_steps.cpp: the fused engine steps on NumPy arrays (posenc/kernels/
// qk_norm_rope.hpp, kv_cache_write.hpp): qk_norm_rope, rope_into_cache, qk_norm_rope_into_cache.
//
// Arrays are C-contiguous: Q, K, V as [tokens, heads, head_dim] (2-D: one head), a cache as
// [slots, heads, head_dim] or paged [blocks, block_size, heads, head_dim] (token-major slots).
// Every array of a call holds the same element type: float32, or bfloat16 as uint16 / int16 bits
// with dtype="bfloat16" (NumPy has none). The library's checked entry points do the rest of the
// checking (views, caches, slots, overlaps, the norm's weights) and raise posenc.Error; the GIL
// is released while a step runs. These steps run on the build's baseline instruction set (the
// library's fused steps have no runtime dispatch).
#include "bindings.hpp"

#include <posenc/kernels.hpp>
#include <posenc/kernels/kv_cache_write.hpp>
#include <posenc/kernels/fused_multi_axis.hpp>
#include <posenc/kernels/qk_norm_rope.hpp>
#include <posenc/multi_axis.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace posenc::python {

namespace {

namespace kn = posenc::kernels;

/// Whether a call's arrays hold bfloat16 bits (dtype="bfloat16") or float32 values.
bool is_bfloat16(const std::string& dtype)
{
    if (dtype == "float32") return false;
    if (dtype == "bfloat16") return true;
    posenc::detail::raise("dtype", dtype, "must be 'float32' or 'bfloat16' (bfloat16 as uint16 / int16 bits)");
}

/// `o` as a C-contiguous NumPy array of the call's element type (float32, or 2-byte integers
/// holding bfloat16 bits), writable when the step writes into it. Never a converted copy: a step
/// writing into a copy would leave the caller's object unchanged.
py::array require_array(const py::object& o, const std::string& name, bool bfloat16, bool writable)
{
    if (!py::isinstance<py::array>(o))
        posenc::detail::raise(name, std::string(py::str(o.get_type())), "must be a NumPy array");
    const auto a = py::reinterpret_borrow<py::array>(o);
    const char kind = a.dtype().kind();
    const bool fits =
        bfloat16 ? ((kind == 'u' || kind == 'i') && a.itemsize() == 2) : (kind == 'f' && a.itemsize() == 4);
    if (!fits)
        posenc::detail::raise(name + ".dtype", std::string(py::str(a.dtype())),
                              bfloat16 ? "must be uint16 or int16 (bfloat16 bits) with dtype='bfloat16'"
                                       : "must be float32 (or uint16 bfloat16 bits with dtype='bfloat16')");
    if (!(a.flags() & py::array::c_style))
        posenc::detail::raise(name + ".flags", "not C-contiguous",
                              "must be C-contiguous (pass np.ascontiguousarray(...))");
    if (writable && !a.writeable())
        posenc::detail::raise(name + ".writeable", "False", "must be True: the step writes into it");
    return a;
}

/// A [tokens, heads, head_dim] (or [tokens, head_dim]) array as a contiguous HeadsView.
template <class T>
kn::HeadsView<T> heads_view(const py::array& a, const std::string& name)
{
    if (a.ndim() != 2 && a.ndim() != 3)
        posenc::detail::raise(name + ".ndim", static_cast<long long>(a.ndim()),
                              "must be 3 ([tokens, heads, head_dim]) or 2 ([tokens, head_dim])");
    const std::ptrdiff_t heads = a.ndim() == 3 ? a.shape(1) : 1;
    T* data = static_cast<T*>(const_cast<void*>(a.data()));
    return kn::HeadsView<T>(data, a.size(), kn::HeadsShape {a.shape(0), heads, a.shape(a.ndim() - 1)});
}

/// A [slots, heads, head_dim] or [blocks, block_size, heads, head_dim] array as a cache view.
template <class C>
kn::KvCacheView cache_view(const py::array& a, const std::string& name)
{
    if (a.ndim() != 3 && a.ndim() != 4)
        posenc::detail::raise(name + ".ndim", static_cast<long long>(a.ndim()),
                              "must be 3 ([slots, heads, head_dim]) or 4 ([blocks, block_size, heads, head_dim])");
    C* data = static_cast<C*>(const_cast<void*>(a.data()));
    const py::ssize_t d = a.ndim() - 3;  // 1 for a paged cache
    return kn::KvCacheView::paged(data, a.size(), d ? a.shape(0) : 1, a.shape(d), a.shape(d + 1), a.shape(d + 2));
}

/// `o` (an integer array, or a list of ints) as C-contiguous int64 in `out` (int32 widened,
/// exactly); false for any other dtype (a float position or slot would be truncated: the callers
/// refuse it by name).
bool integers_of(const py::object& o, py::array_t<std::int64_t>& out)
{
    const py::array a = py::isinstance<py::array>(o) ? py::reinterpret_borrow<py::array>(o) : py::array::ensure(o);
    if (!a || (a.dtype().kind() != 'i' && a.dtype().kind() != 'u')) return false;
    out = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    return static_cast<bool>(out);
}

/// The positions of `tokens` tokens: an int (token t at start + t) or int64 ids, one per token.
kn::PositionIds position_ids_of(const py::object& positions, py::array_t<std::int64_t>& keep, std::ptrdiff_t tokens)
{
    if (py::isinstance<py::bool_>(positions))
        posenc::detail::raise("positions", std::string(py::str(positions)), "must be an int or int64 ids, not a bool");
    if (py::isinstance<py::int_>(positions)) {
        std::int64_t start = 0;
        try {
            start = positions.cast<std::int64_t>();
        } catch (const py::cast_error&) {
            posenc::detail::raise("positions", std::string(py::str(positions)), "must fit int64");
        }
        return kn::PositionIds::contiguous(start);
    }
    if (!integers_of(positions, keep) || keep.ndim() != 1)
        posenc::detail::raise("positions", std::string(py::str(positions.get_type())),
                              "must be an int (token t at positions + t) or a 1-D array of integer position ids");
    if (keep.shape(0) != tokens)
        posenc::detail::raise("positions.size", static_cast<long long>(keep.shape(0)),
                              "must equal the token count " + std::to_string(tokens));
    return kn::PositionIds(keep.data(), keep.shape(0));
}

/// The largest |position| of a call (the reach of angles built from a FrequencyTable).
std::int64_t reach_of(const std::int64_t* p, std::ptrdiff_t count)
{
    std::int64_t reach = 1;
    for (std::ptrdiff_t i = 0; i < count; ++i)
        reach = std::max(reach, p[i] < 0 ? (p[i] == std::numeric_limits<std::int64_t>::min()
                                                ? std::numeric_limits<std::int64_t>::max()
                                                : -p[i])
                                         : p[i]);
    return std::min<std::int64_t>(reach, kn::max_kernel_position);
}

/// Multi-axis positions [axes, tokens] (Hugging Face's position_ids of one sequence) for `layout`.
kn::MultiAxisIds multi_axis_ids_of(const py::object& positions, const MultiAxisLayout& layout,
                                   py::array_t<std::int64_t>& keep, std::ptrdiff_t tokens)
{
    if (!integers_of(positions, keep) || keep.ndim() != 2)
        posenc::detail::raise("positions", std::string(py::str(positions.get_type())),
                              "must be a 2-D array [axes, tokens] of integer positions with multi_axis");
    if (keep.shape(0) != layout.num_axes() || keep.shape(1) != tokens)
        posenc::detail::raise("positions.shape", std::to_string(keep.shape(0)) + "x" + std::to_string(keep.shape(1)),
                              "must be " + std::to_string(layout.num_axes()) + "x" + std::to_string(tokens) +
                                  " (the layout's axes x the token count)");
    return kn::MultiAxisIds(layout,
                            kn::MultiAxisPositions::axes_major(keep.data(), keep.size(), tokens, layout.num_axes()));
}

/// Runs step(ids, reach) with the call's positions: 1-D (an int or int64 ids) without a layout,
/// multi-axis ([axes, tokens] int64) with one.
template <class Step>
void with_positions(const py::object& positions, const py::object& multi_axis, std::ptrdiff_t tokens, Step&& step)
{
    py::array_t<std::int64_t> keep;
    if (!multi_axis.is_none()) {
        if (!py::isinstance<MultiAxisLayout>(multi_axis))
            posenc::detail::raise("multi_axis", std::string(py::str(multi_axis.get_type())),
                                  "must be a MultiAxisLayout (e.g. ModelRope.multi_axis) or None");
        const auto& layout = multi_axis.cast<const MultiAxisLayout&>();
        const kn::MultiAxisIds ids = multi_axis_ids_of(positions, layout, keep, tokens);
        step(ids, reach_of(keep.data(), keep.size()));
        return;
    }
    const kn::PositionIds ids = position_ids_of(positions, keep, tokens);
    if (!py::isinstance<py::int_>(positions)) {  // ids
        step(ids, reach_of(keep.data(), keep.size()));
        return;
    }
    // start .. start + tokens - 1; a start beyond the kernels' range is theirs to refuse
    const std::int64_t start = ids[0], limit = kn::max_kernel_position;
    const bool inside = start >= -limit && start <= limit;
    step(ids, inside ? std::min<std::int64_t>(limit, std::max<std::int64_t>(1, std::abs(start) + tokens)) : limit);
}

/// slot_mapping as int64 slots, one per token (-1: the token is not written).
kn::SlotMapping slots_of(const py::object& slot_mapping, py::array_t<std::int64_t>& keep, std::ptrdiff_t tokens)
{
    if (!integers_of(slot_mapping, keep) || keep.ndim() != 1)
        posenc::detail::raise("slot_mapping", std::string(py::str(slot_mapping.get_type())),
                              "must be a 1-D array of integer slots (-1: skip the token)");
    if (keep.shape(0) != tokens)
        posenc::detail::raise("slot_mapping.size", static_cast<long long>(keep.shape(0)),
                              "must equal the token count " + std::to_string(tokens));
    return kn::SlotMapping(keep.data(), keep.shape(0));
}

/// The RMSNorm of Q and K: float32 weights of head_dim values (k_weight optional), eps, weighting.
struct Norm {
    kn::QkNorm norm;
    py::array_t<float> q_weight, k_weight;  // kept alive for the call
};

Norm norm_of(const py::object& q_weight, const py::object& k_weight, double eps, const std::string& weighting)
{
    Norm n;
    if (weighting == "weight") n.norm.weighting = kn::NormWeighting::weight;
    else if (weighting == "one_plus_weight") n.norm.weighting = kn::NormWeighting::one_plus_weight;
    else
        posenc::detail::raise("weighting", weighting,
                              "must be 'weight' (x / rms * w) or 'one_plus_weight' (x / rms * (1 + w))");
    require_finite_nonnegative("eps", eps);
    n.norm.eps = static_cast<float>(eps);
    const auto weight = [](const py::object& w, py::array_t<float>& keep, const char* name) -> kn::FloatSpan {
        if (w.is_none()) return {};
        keep = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(w);
        if (!keep || keep.ndim() != 1)
            posenc::detail::raise(name, "array", "must be a 1-D array of head_dim floats (converted to float32)");
        return {keep.data(), keep.shape(0)};
    };
    n.norm.q_weight = weight(q_weight, n.q_weight, "q_weight");
    n.norm.k_weight = weight(k_weight, n.k_weight, "k_weight");
    return n;
}

/// Runs `step(angles)` with the C++ angle source `angles` stands for, the GIL released.
template <class Step>
void with_angles(const py::object& angles, std::int64_t reach, Step&& step)
{
    if (py::isinstance<kn::CosSinCache>(angles)) {
        const auto& source = angles.cast<const kn::CosSinCache&>();
        py::gil_scoped_release unlocked;
        step(source);
    } else if (py::isinstance<kn::OnTheFlyAngles>(angles)) {
        const auto& source = angles.cast<const kn::OnTheFlyAngles&>();
        py::gil_scoped_release unlocked;
        step(source);
    } else if (py::isinstance<FrequencyTable>(angles)) {
        const kn::OnTheFlyAngles source(angles.cast<const FrequencyTable&>(), reach);
        py::gil_scoped_release unlocked;
        step(source);
    } else {
        posenc::detail::raise("angles", std::string(py::str(angles.get_type())),
                              "must be a CosSinCache, an OnTheFlyAngles or a FrequencyTable");
    }
}

/// The arrays of one cache step (Q optional, V optional).
struct CacheArrays {
    py::object q, q_out, k, v, key_cache, value_cache;
};

template <class T>
kn::CacheWrite<T> cache_write(const CacheArrays& a, bool bfloat16)
{
    kn::CacheWrite<T> w;
    w.k = heads_view<const T>(require_array(a.k, "k", bfloat16, false), "k");
    w.key_cache = cache_view<T>(require_array(a.key_cache, "key_cache", bfloat16, true), "key_cache");
    if (a.v.is_none() != a.value_cache.is_none())
        posenc::detail::raise(a.v.is_none() ? "value_cache" : "v", "given",
                              "needs " + std::string(a.v.is_none() ? "v" : "value_cache"));
    if (!a.v.is_none()) {
        w.v = heads_view<const T>(require_array(a.v, "v", bfloat16, false), "v");
        w.value_cache = cache_view<T>(require_array(a.value_cache, "value_cache", bfloat16, true), "value_cache");
    }
    if (!a.q.is_none()) {
        w.q_in = heads_view<const T>(require_array(a.q, "q", bfloat16, a.q_out.is_none()), "q");
        w.q_out = heads_view<T>(require_array(a.q_out.is_none() ? a.q : a.q_out, "q_out", bfloat16, true), "q_out");
    } else if (!a.q_out.is_none()) {
        posenc::detail::raise("q_out", "given", "needs q");
    }
    return w;
}

/// rope_into_cache / qk_norm_rope_into_cache with element type T (norm: nullptr for no norm).
template <class T>
void run_cache_step(const RopeSpec& spec, const py::object& angles, const py::object& positions,
                    const py::object& multi_axis, const py::object& slot_mapping, const CacheArrays& arrays,
                    const kn::QkNorm* norm, bool bfloat16)
{
    kn::CacheWrite<T> w = cache_write<T>(arrays, bfloat16);
    py::array_t<std::int64_t> slots;
    w.slot_mapping = slots_of(slot_mapping, slots, w.k.tokens);
    with_positions(positions, multi_axis, w.k.tokens, [&](const auto& ids, std::int64_t reach) {
        with_angles(angles, reach, [&](const auto& source) {
            if (norm) kn::qk_norm_rope_into_cache(spec, *norm, source, ids, w);
            else kn::rope_into_cache(spec, source, ids, w);
        });
    });
}

py::object rope_into_cache(const RopeSpec& spec, const py::object& angles, const py::object& k,
                           const py::object& key_cache, const py::object& slot_mapping, const py::object& positions,
                           const py::object& v, const py::object& value_cache, const py::object& q,
                           const py::object& q_out, const py::object& multi_axis, const std::string& dtype)
{
    const CacheArrays arrays {q, q_out, k, v, key_cache, value_cache};
    if (is_bfloat16(dtype))
        run_cache_step<posenc::bfloat16>(spec, angles, positions, multi_axis, slot_mapping, arrays, nullptr, true);
    else run_cache_step<float>(spec, angles, positions, multi_axis, slot_mapping, arrays, nullptr, false);
    return q.is_none() ? py::object(py::none()) : (q_out.is_none() ? q : q_out);
}

py::object qk_norm_rope_into_cache(const RopeSpec& spec, const py::object& angles, const py::object& k,
                                   const py::object& key_cache, const py::object& slot_mapping,
                                   const py::object& positions, const py::object& q_weight, const py::object& k_weight,
                                   double eps, const std::string& weighting, const py::object& v,
                                   const py::object& value_cache, const py::object& q, const py::object& q_out,
                                   const py::object& multi_axis, const std::string& dtype)
{
    const Norm n = norm_of(q_weight, k_weight, eps, weighting);
    const CacheArrays arrays {q, q_out, k, v, key_cache, value_cache};
    if (is_bfloat16(dtype))
        run_cache_step<posenc::bfloat16>(spec, angles, positions, multi_axis, slot_mapping, arrays, &n.norm, true);
    else run_cache_step<float>(spec, angles, positions, multi_axis, slot_mapping, arrays, &n.norm, false);
    return q.is_none() ? py::object(py::none()) : (q_out.is_none() ? q : q_out);
}

/// qk_norm_rope with element type T: Q (and K) normalised and rotated, in place or into q_out / k_out.
template <class T>
void run_qk_norm_rope(const RopeSpec& spec, const py::object& angles, const py::object& positions,
                      const py::object& multi_axis, const Norm& n, const CacheArrays& a, const py::object& k_out,
                      bool bfloat16)
{
    kn::QKViews<T> views;
    views.q_in = heads_view<const T>(require_array(a.q, "q", bfloat16, a.q_out.is_none()), "q");
    views.q_out = heads_view<T>(require_array(a.q_out.is_none() ? a.q : a.q_out, "q_out", bfloat16, true), "q_out");
    if (!a.k.is_none()) {
        views.k_in = heads_view<const T>(require_array(a.k, "k", bfloat16, k_out.is_none()), "k");
        views.k_out = heads_view<T>(require_array(k_out.is_none() ? a.k : k_out, "k_out", bfloat16, true), "k_out");
    } else if (!k_out.is_none()) {
        posenc::detail::raise("k_out", "given", "needs k");
    }
    with_positions(positions, multi_axis, views.tokens(), [&](const auto& ids, std::int64_t reach) {
        with_angles(angles, reach, [&](const auto& source) { kn::qk_norm_rope(spec, n.norm, source, ids, views); });
    });
}

py::object qk_norm_rope(const RopeSpec& spec, const py::object& angles, const py::object& q, const py::object& k,
                        const py::object& positions, const py::object& q_weight, const py::object& k_weight, double eps,
                        const std::string& weighting, const py::object& q_out, const py::object& k_out,
                        const py::object& multi_axis, const std::string& dtype)
{
    const Norm n = norm_of(q_weight, k_weight, eps, weighting);
    const CacheArrays arrays {q, q_out, k, py::none(), py::none(), py::none()};
    if (is_bfloat16(dtype))
        run_qk_norm_rope<posenc::bfloat16>(spec, angles, positions, multi_axis, n, arrays, k_out, true);
    else run_qk_norm_rope<float>(spec, angles, positions, multi_axis, n, arrays, k_out, false);
    const py::object q_result = q_out.is_none() ? q : q_out;
    if (k.is_none()) return q_result;
    return py::make_tuple(q_result, k_out.is_none() ? k : k_out);
}

}  // namespace

void bind_cache_steps(py::module_& m)
{
    m.def("rope_into_cache", &rope_into_cache, py::arg("spec"), py::arg("angles"), py::arg("k"), py::arg("key_cache"),
          py::arg("slot_mapping"), py::arg("positions"), py::kw_only(), py::arg("v") = py::none(),
          py::arg("value_cache") = py::none(), py::arg("q") = py::none(), py::arg("q_out") = py::none(),
          py::arg("multi_axis") = py::none(), py::arg("dtype") = "float32",
          "RoPE of K straight into key_cache[slot_mapping[t]] (V copied into value_cache, Q rotated in place\n"
          "or into q_out in the same pass); slot -1 skips a token. Returns Q's output array (None without q).\n"
          "Arrays C-contiguous: k, v, q [tokens, heads, head_dim]; caches [slots, heads, head_dim] or\n"
          "[blocks, block_size, heads, head_dim]; float32, or uint16 bfloat16 bits with dtype='bfloat16'.\n"
          "positions: an int (token t at positions + t) or int64 ids; with multi_axis (a MultiAxisLayout: M-RoPE,\n"
          "axial), int64 [axes, tokens] and pair i at its axis's position. Error: apply_rope's, then one rounding.");
    m.def("qk_norm_rope_into_cache", &qk_norm_rope_into_cache, py::arg("spec"), py::arg("angles"), py::arg("k"),
          py::arg("key_cache"), py::arg("slot_mapping"), py::arg("positions"), py::kw_only(),
          py::arg("q_weight") = py::none(), py::arg("k_weight") = py::none(), py::arg("eps") = 1e-6,
          py::arg("weighting") = "weight", py::arg("v") = py::none(), py::arg("value_cache") = py::none(),
          py::arg("q") = py::none(), py::arg("q_out") = py::none(), py::arg("multi_axis") = py::none(),
          py::arg("dtype") = "float32",
          "rope_into_cache after the per-head RMSNorm of Q and K (V is not normalised):\n"
          "  y = RoPE(x / sqrt(mean(x^2) + eps) * w)   weighting 'weight' (Qwen3, OLMo 2)\n"
          "  y = RoPE(x / sqrt(mean(x^2) + eps) * (1 + w))   'one_plus_weight' (Gemma 3)\n"
          "q_weight / k_weight: head_dim float32 values each. Error < (head_dim/2 + 9) 2^-24 |y| (float32).");
    m.def("qk_norm_rope", &qk_norm_rope, py::arg("spec"), py::arg("angles"), py::arg("q"), py::arg("k") = py::none(),
          py::arg("positions") = 0, py::kw_only(), py::arg("q_weight") = py::none(), py::arg("k_weight") = py::none(),
          py::arg("eps") = 1e-6, py::arg("weighting") = "weight", py::arg("q_out") = py::none(),
          py::arg("k_out") = py::none(), py::arg("multi_axis") = py::none(), py::arg("dtype") = "float32",
          "The per-head RMSNorm of Q (and K) and RoPE in one pass, in place or into q_out / k_out; returns\n"
          "Q's output (and K's, as a tuple, when k is given). Arrays and weighting as qk_norm_rope_into_cache.");
}

}  // namespace posenc::python
