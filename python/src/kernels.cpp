// SPDX-License-Identifier: MIT
// python/src/kernels.cpp: apply_rope on NumPy arrays (zero-copy, strided, in place or out of
// place), through the library's runtime dispatch, with the GIL released while the kernel runs.
#include "bindings.hpp"

#include <posenc/kernels.hpp>
#include <posenc/kernels/dispatch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

namespace posenc::python {

namespace {

namespace kn = posenc::kernels;

/// The storage type of an array: float32, float16 and float64 from the dtype; bfloat16 only from
/// an int16 / uint16 array with dtype="bfloat16" (NumPy has no bfloat16).
StorageType storage_of(const py::array& a, const char* name, const std::optional<std::string>& dtype)
{
    const std::string actual = py::str(a.dtype()).cast<std::string>();
    const char kind = a.dtype().kind();
    // The kernels read the elements in the machine's byte order; a byte-swapped dtype ('>f4' on a
    // little-endian machine) would be rotated as garbage.
    const char order = a.dtype().attr("byteorder").cast<std::string>().at(0);
    const bool native =
        order == '=' || order == '|' ||
        (order == '<') == (py::module_::import("sys").attr("byteorder").cast<std::string>() == "little");
    if (!native)
        throw posenc::error(std::string(name) + ".dtype", a.dtype().attr("str").cast<std::string>(),
                            "must be in the machine's byte order (convert with .astype(dtype.newbyteorder('=')))");
    const auto size = a.itemsize();
    if (dtype && *dtype != "float32" && *dtype != "float16" && *dtype != "bfloat16" && *dtype != "float64")
        posenc::detail::raise("dtype", *dtype, "must be 'float32', 'float16', 'bfloat16' or 'float64'");
    StorageType from_array;
    if (kind == 'f' && size == 4) from_array = StorageType::float32;
    else if (kind == 'f' && size == 2) from_array = StorageType::float16;
    else if (kind == 'f' && size == 8) from_array = StorageType::float64;
    else if ((kind == 'u' || kind == 'i') && size == 2) {
        if (!dtype || *dtype != "bfloat16")
            throw posenc::error(std::string(name) + ".dtype", actual,
                                "holds bfloat16 only with dtype='bfloat16' (NumPy has no bfloat16; pass its bits as "
                                "a uint16 or int16 view)");
        return StorageType::bfloat16;
    } else {
        throw posenc::error(std::string(name) + ".dtype", actual,
                            "must be float32, float16, float64, or uint16/int16 bits with dtype='bfloat16'");
    }
    if (dtype && *dtype != to_string(from_array))
        throw posenc::error(std::string(name) + ".dtype", actual, "does not match dtype='" + *dtype + "'");
    return from_array;
}

/// Where the [tokens, heads, head_dim] axes of an array are: "thd" (token-major, the default) or
/// "htd" (heads-major, e.g. Hugging Face's [batch, heads, seq, dim] per batch).
enum class Layout { thd, htd };

Layout layout_of(const std::string& layout)
{
    if (layout == "thd") return Layout::thd;
    if (layout == "htd") return Layout::htd;
    posenc::detail::raise("layout", layout,
                          "must be 'thd' ([tokens, heads, head_dim]) or 'htd' ([heads, tokens, head_dim])");
}

/// One array's geometry: an optional batch axis, then tokens, heads and head_dim, in elements.
struct Geometry {
    char* data = nullptr;
    py::ssize_t itemsize = 1;
    std::string shape_text;  ///< the array's shape as written: "2x4x8x64"
    std::ptrdiff_t extent = 0;  ///< elements the array addresses from data (its buffer, as far as it is known)
    std::ptrdiff_t batch = 1, batch_stride = 0;
    kn::HeadsShape shape {};
    kn::HeadsStrides strides {};
};

Geometry geometry_of(const py::array& a, const char* name, Layout layout, bool writable)
{
    const py::ssize_t itemsize = a.itemsize();
    const py::ssize_t ndim = a.ndim();
    if (ndim < 2 || ndim > 4)
        throw posenc::error(std::string(name) + ".ndim", std::to_string(ndim),
                            "must be 2 ([tokens, head_dim]), 3 ([tokens, heads, head_dim] or [heads, tokens, head_dim] "
                            "with layout='htd') or 4 (a batch of those)");
    if (writable && !a.writeable())
        throw posenc::error(std::string(name) + ".writeable", "False", "must be True: the rotation is written into it");
    // NumPy gives an array without elements zero strides; it addresses no memory, so its strides
    // say nothing (the kernels see tokens = 0, or a heads / head_dim of 0 and name that).
    const bool empty = a.size() == 0;
    for (py::ssize_t i = 0; i < ndim && !empty; ++i)
        if (a.strides(i) % itemsize != 0)
            posenc::detail::raise(std::string(name) + ".strides[" + std::to_string(i) + "]",
                                  static_cast<long long>(a.strides(i)),
                                  "must be a multiple of the itemsize " + std::to_string(itemsize));
    if (!empty && a.shape(ndim - 1) > 1 && a.strides(ndim - 1) != itemsize)
        posenc::detail::raise(
            std::string(name) + ".strides[-1]", static_cast<long long>(a.strides(ndim - 1)),
            "must equal the itemsize " + std::to_string(itemsize) +
                " (head_dim contiguous; copy the array or pass a view whose last axis is unit-stride)");
    const auto address = reinterpret_cast<std::uintptr_t>(a.data());
    if (address % static_cast<std::uintptr_t>(itemsize) != 0)
        posenc::detail::raise(std::string(name) + ".data", static_cast<long long>(address),
                              "must be aligned to the itemsize " + std::to_string(itemsize));

    Geometry g;
    g.data = static_cast<char*>(const_cast<void*>(a.data()));
    g.itemsize = itemsize;
    for (py::ssize_t i = 0; i < ndim; ++i) g.shape_text += (i ? "x" : "") + std::to_string(a.shape(i));
    const auto elements = [&](py::ssize_t axis) { return static_cast<std::ptrdiff_t>(a.strides(axis) / itemsize); };
    // Elements from data to the array's last element; negative strides add nothing here (the
    // kernels' checks refuse them), a negative batch stride is refused below.
    g.extent = a.size() == 0 ? 0 : 1;
    for (py::ssize_t i = 0; i < ndim; ++i)
        if (a.strides(i) > 0) g.extent += (a.shape(i) - 1) * elements(i);
    py::ssize_t axis = 0;
    if (ndim == 4) {
        g.batch = a.shape(0);
        g.batch_stride = elements(0);
        axis = 1;
        if (g.batch > 1 && g.batch_stride < 0)
            posenc::detail::raise(std::string(name) + ".strides[0]", static_cast<long long>(a.strides(0)),
                                  "must be >= 0 (the batch axis is walked forward)");
    }
    if (empty) {  // no element: zero strides (NumPy's) are not a layout
        g.batch_stride = 0;
        if (ndim == 2) g.shape = {a.shape(0), 1, a.shape(1)};
        else if (layout == Layout::thd) g.shape = {a.shape(axis), a.shape(axis + 1), a.shape(axis + 2)};
        else g.shape = {a.shape(axis + 1), a.shape(axis), a.shape(axis + 2)};
        g.strides = {g.shape.heads * g.shape.head_dim, g.shape.head_dim};
    } else if (ndim == 2) {
        g.shape = {a.shape(0), 1, a.shape(1)};
        g.strides = {elements(0), a.shape(1)};
    } else if (layout == Layout::thd) {
        g.shape = {a.shape(axis), a.shape(axis + 1), a.shape(axis + 2)};
        g.strides = {elements(axis), elements(axis + 1)};
    } else {
        g.shape = {a.shape(axis + 1), a.shape(axis), a.shape(axis + 2)};
        g.strides = {elements(axis + 1), elements(axis)};
    }
    return g;
}

/// The position ids of a call: a start (contiguous), or an int32 / int64 array of [tokens] or
/// [batch, tokens] ids, kept alive by `holder`.
struct Positions {
    std::optional<std::int64_t> start;
    py::array holder;
    bool int32 = false;
    std::ptrdiff_t rows = 0, count = 0;  // [rows, count]; rows 0 for a 1-D array
    std::int64_t max_abs = 0;

    kn::PositionIds for_batch(std::ptrdiff_t b) const
    {
        if (start) return kn::PositionIds::contiguous(*start);
        const std::ptrdiff_t offset = rows == 0 ? 0 : b * count;
        if (int32) return kn::PositionIds(static_cast<const std::int32_t*>(holder.data()) + offset, count);
        return kn::PositionIds(static_cast<const std::int64_t*>(holder.data()) + offset, count);
    }
};

Positions positions_of(const py::object& positions, std::ptrdiff_t batch, bool batched, std::ptrdiff_t tokens)
{
    Positions p;
    if (py::isinstance<py::bool_>(positions))
        throw posenc::error("positions", std::string(py::repr(positions)),
                            "must be an int (the first position) or an array of int32 / int64 ids, not a bool");
    if (py::isinstance<py::int_>(positions)) {
        int overflow = 0;
        const long long start = PyLong_AsLongLongAndOverflow(positions.ptr(), &overflow);
        if (overflow != 0)
            throw posenc::error("positions.start", std::string(py::str(positions)),
                                "must fit in int64 (the angle sources serve |position| <= 2^31 - 1)");
        if (start == -1 && PyErr_Occurred()) throw py::error_already_set();
        p.start = start;
        // |start| and |start + tokens - 1|, saturated at INT64_MAX (no signed overflow)
        const auto magnitude = [](std::int64_t v) { return v == INT64_MIN ? INT64_MAX : std::llabs(v); };
        const std::int64_t steps = std::max<std::int64_t>(0, tokens - 1);
        const std::int64_t last = start > INT64_MAX - steps ? INT64_MAX : start + steps;
        p.max_abs = std::max(magnitude(start), magnitude(last));
        return p;
    }
    py::array raw = py::array::ensure(positions);
    if (!raw)
        posenc::detail::raise("positions", std::string(py::str(positions.get_type())),
                              "must be an int or an array of ids");
    if (raw.dtype().kind() != 'i' && raw.dtype().kind() != 'u')
        throw posenc::error("positions.dtype", py::str(raw.dtype()).cast<std::string>(), "must be an integer type");
    if (raw.dtype().kind() == 'i' && raw.itemsize() == 4) {
        p.int32 = true;
        p.holder = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>::ensure(raw);
    } else {
        if (raw.dtype().kind() == 'u' && raw.itemsize() == 8)
            throw posenc::error("positions.dtype", "uint64",
                                "must convert to int64 without wrapping (use int64 or int32 ids)");
        p.holder = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
    }
    const py::ssize_t ndim = p.holder.ndim();
    if (ndim == 1) {
        p.count = p.holder.shape(0);
    } else if (ndim == 2 && batched) {
        if (p.holder.shape(0) != batch)
            posenc::detail::raise("positions.shape[0]", static_cast<long long>(p.holder.shape(0)),
                                  "must equal the batch " + std::to_string(batch));
        p.rows = p.holder.shape(0);
        p.count = p.holder.shape(1);
    } else {
        posenc::detail::raise("positions.ndim", static_cast<long long>(ndim),
                              batched ? "must be 1 ([tokens]) or 2 ([batch, tokens])" : "must be 1 ([tokens])");
    }
    for (py::ssize_t i = 0; i < p.holder.size(); ++i) {
        const std::int64_t v = p.int32 ? static_cast<const std::int32_t*>(p.holder.data())[i]
                                       : static_cast<const std::int64_t*>(p.holder.data())[i];
        p.max_abs = std::max<std::int64_t>(p.max_abs, v == INT64_MIN ? INT64_MAX : std::llabs(v));
    }
    return p;
}

/// Batch element b of an array as the kernels' checks see a view (kernels::detail::ViewGeometry).
kn::detail::ViewGeometry element_geometry(const Geometry& g, std::ptrdiff_t b)
{
    const auto address = reinterpret_cast<std::uintptr_t>(g.data) +
                         static_cast<std::uintptr_t>(b * g.batch_stride) * static_cast<std::uintptr_t>(g.itemsize);
    return {address,          g.extent - b * g.batch_stride,
            g.shape.tokens,   g.shape.heads,
            g.shape.head_dim, g.strides.token,
            g.strides.head,   g.itemsize,
            g.itemsize,       g.extent};
}

/// Whether one batch element's rows obey the kernels' grid rule (kernels::detail::grid_rows_apart),
/// which the cross-batch row test assumes. An element that breaks it is the kernels' to name,
/// with their own message.
bool element_rows_apart(const Geometry& g)
{
    return g.extent > 0 && g.shape.heads >= 1 && g.shape.head_dim >= 1 &&
           kn::detail::grid_rows_apart(g.shape.tokens, g.strides.token, g.shape.heads, g.strides.head,
                                       g.shape.head_dim);
}

/// True if a row of some batch element b of `w` shares an element with a row of an element c != b
/// of `o` (arrays of one batch stride): the kernels' row test (kernels::detail::views_overlap) on
/// each pair of elements c - b apart. With one batch stride, only that distance changes the
/// offsets between the two elements' rows, so one pair per distance decides.
bool rows_meet_across_batch(const Geometry& w, const Geometry& o)
{
    for (std::ptrdiff_t delta = -(w.batch - 1); delta < o.batch; ++delta) {
        const std::ptrdiff_t b = delta < 0 ? -delta : 0;  // the first pair (b, b + delta) of both arrays
        if (delta == 0 || b >= w.batch) continue;
        const kn::detail::ViewGeometry gw = element_geometry(w, b), go = element_geometry(o, b + delta);
        if (kn::detail::views_overlap(gw, go) || kn::detail::views_overlap(go, gw)) return true;
    }
    return false;
}

/// A written batched array: the rows of different batch elements must not overlap (a batch stride
/// of 0, or one that lands inside another element's rows, would rotate a row twice). The token
/// and head axes alone are the kernels' to check, with their own message.
void require_batch_rows_apart(const Geometry& g, const char* name, const py::array& a)
{
    if (g.batch <= 1 || g.shape.tokens == 0 || !element_rows_apart(g) || !rows_meet_across_batch(g, g)) return;
    posenc::detail::raise(std::string(name) + ".strides[0]", static_cast<long long>(a.strides(0)),
                          "must keep the rows of different batch elements apart (sorting the batch, token and head "
                          "axes by stride, each stride must be >= the extent of the smaller ones; it is written, so "
                          "an overlap would rotate a row twice)");
}

/// Batched calls run the kernels once per batch element, and the kernels check the views of one
/// element against each other; here a written array is checked against every other array across
/// elements: arrays sharing memory must be the same view or have equal batch strides, and then
/// no row of element b of the written one may meet a row of element c != b (the kernels' rule).
void require_apart_across_batch(const Geometry& w, const char* w_name, const Geometry& o, const char* o_name)
{
    if (w.batch <= 1 || w.shape.tokens == 0 || o.shape.tokens == 0 || w.extent == 0 || o.extent == 0) return;
    const auto begin_w = reinterpret_cast<std::uintptr_t>(w.data), begin_o = reinterpret_cast<std::uintptr_t>(o.data);
    const auto end_w = begin_w + static_cast<std::uintptr_t>(w.extent) * static_cast<std::uintptr_t>(w.itemsize);
    const auto end_o = begin_o + static_cast<std::uintptr_t>(o.extent) * static_cast<std::uintptr_t>(o.itemsize);
    if (end_w <= begin_o || end_o <= begin_w) return;  // separate memory: nothing shared
    const bool same_shape = w.batch == o.batch && w.shape.tokens == o.shape.tokens && w.shape.heads == o.shape.heads;
    const bool same_strides = w.batch_stride == o.batch_stride &&
                              (w.shape.tokens <= 1 || o.shape.tokens <= 1 || w.strides.token == o.strides.token) &&
                              (w.shape.heads <= 1 || o.shape.heads <= 1 || w.strides.head == o.strides.head);
    if (w.data == o.data && same_shape && same_strides) return;  // the same view (in place)
    if (!element_rows_apart(w) || !element_rows_apart(o)) return;  // the kernels name the element's rule
    if (same_strides && !rows_meet_across_batch(w, o)) return;
    throw posenc::error(w_name, w.shape_text,
                        std::string("must not overlap ") + o_name +
                            " in another batch element (views sharing memory need equal strides and disjoint rows)");
}

/// Batch element b of an array as a HeadsView that carries the number of elements it may address
/// (the array's extent from this batch element on), so the checked kernels prove every access
/// lies inside the array.
template <class T>
kn::HeadsView<T> view_of(const Geometry& g, std::ptrdiff_t b)
{
    T* data = reinterpret_cast<T*>(g.data) + b * g.batch_stride;
    return kn::HeadsView<T>(data, g.extent - b * g.batch_stride, g.shape, g.strides);
}

struct Call {
    const RopeSpec* spec;
    Geometry q, q_out, k, k_out;
    bool has_k = false, out_of_place = false;
    Positions positions;
    kn::Direction direction;
};

template <class T, class Angles>
void run(const Call& c, const Angles& angles)
{
    for (std::ptrdiff_t b = 0; b < c.q.batch; ++b) {
        const kn::HeadsView<T> q = view_of<T>(c.q, b);
        const kn::HeadsView<T> q_out = c.out_of_place ? view_of<T>(c.q_out, b) : q;
        kn::HeadsView<T> k, k_out;
        if (c.has_k) {
            k = view_of<T>(c.k, b);
            k_out = c.out_of_place ? view_of<T>(c.k_out, b) : k;
        }
        const kn::QKViews<T> views = kn::QKViews<T>::out_of_place(q, q_out, k, k_out);
        kn::dispatch::apply_rope(*c.spec, angles, c.positions.for_batch(b), views, c.direction);
    }
}

template <class Angles>
void run_storage(StorageType storage, const Call& c, const Angles& angles)
{
    py::gil_scoped_release release;
    switch (storage) {
    case StorageType::float32: run<float>(c, angles); break;
    case StorageType::float16: run<posenc::float16>(c, angles); break;
    case StorageType::bfloat16: run<posenc::bfloat16>(c, angles); break;
    case StorageType::float64: run<double>(c, angles); break;
    }
}

void require_same_geometry_kind(const py::array& a, const char* name, const py::array& q, StorageType storage,
                                StorageType q_storage)
{
    if (storage != q_storage || a.dtype().kind() != q.dtype().kind())
        throw posenc::error(std::string(name) + ".dtype", py::str(a.dtype()).cast<std::string>(),
                            "must equal q.dtype " + py::str(q.dtype()).cast<std::string>());
    if (a.ndim() != q.ndim())
        posenc::detail::raise(std::string(name) + ".ndim", static_cast<long long>(a.ndim()),
                              "must equal q.ndim " + std::to_string(q.ndim()));
    if (a.ndim() == 4 && a.shape(0) != q.shape(0))
        posenc::detail::raise(std::string(name) + ".shape[0]", static_cast<long long>(a.shape(0)),
                              "must equal q's batch " + std::to_string(q.shape(0)));
}

py::array as_array(const py::object& o, const char* name)
{
    if (!py::isinstance<py::array>(o))
        posenc::detail::raise(name, std::string(py::str(o.get_type())),
                              "must be a NumPy array (or a CPU torch.Tensor through posenc.apply_rope)");
    return py::reinterpret_borrow<py::array>(o);
}

py::object apply(const RopeSpec& spec, const py::object& angles, const py::object& q_object, const py::object& k_object,
                 const py::object& positions, const py::object& q_out_object, const py::object& k_out_object,
                 kn::Direction direction, const std::optional<std::string>& dtype, const std::string& layout_name)
{
    const Layout layout = layout_of(layout_name);
    Call c {&spec, {}, {}, {}, {}, false, false, {}, direction};
    const py::array q = as_array(q_object, "q");
    const StorageType storage = storage_of(q, "q", dtype);
    c.has_k = !k_object.is_none();
    c.out_of_place = !q_out_object.is_none();
    if (!c.out_of_place && !k_out_object.is_none())
        throw posenc::error("k_out", "given", "needs q_out too (out of place means both outputs are given)");
    if (c.out_of_place && c.has_k && k_out_object.is_none())
        throw posenc::error("k_out", "None", "must be given with q_out when k is given (out of place)");
    if (!c.has_k && !k_out_object.is_none()) throw posenc::error("k_out", "given", "needs k");

    c.q = geometry_of(q, "q", layout, !c.out_of_place);
    py::array q_out, k, k_out;
    if (c.out_of_place) {
        q_out = as_array(q_out_object, "q_out");
        require_same_geometry_kind(q_out, "q_out", q, storage_of(q_out, "q_out", dtype), storage);
        c.q_out = geometry_of(q_out, "q_out", layout, true);
    }
    if (c.has_k) {
        k = as_array(k_object, "k");
        require_same_geometry_kind(k, "k", q, storage_of(k, "k", dtype), storage);
        c.k = geometry_of(k, "k", layout, !c.out_of_place);
        if (c.out_of_place) {
            k_out = as_array(k_out_object, "k_out");
            require_same_geometry_kind(k_out, "k_out", q, storage_of(k_out, "k_out", dtype), storage);
            c.k_out = geometry_of(k_out, "k_out", layout, true);
        }
    }
    c.positions = positions_of(positions, c.q.batch, q.ndim() == 4, c.q.shape.tokens);

    // Across batch elements (the kernels see one element at a time): written arrays keep their
    // elements' rows apart and meet no row of another element of any other array.
    if (c.out_of_place) {
        require_batch_rows_apart(c.q_out, "q_out", q_out);
        if (c.has_k) require_batch_rows_apart(c.k_out, "k_out", k_out);
        require_apart_across_batch(c.q_out, "q_out", c.q, "q");
        if (c.has_k) {
            require_apart_across_batch(c.q_out, "q_out", c.k, "k");
            require_apart_across_batch(c.q_out, "q_out", c.k_out, "k_out");
            require_apart_across_batch(c.k_out, "k_out", c.q, "q");
            require_apart_across_batch(c.k_out, "k_out", c.k, "k");
        }
    } else {
        require_batch_rows_apart(c.q, "q", q);
        if (c.has_k) {
            require_batch_rows_apart(c.k, "k", k);
            require_apart_across_batch(c.q, "q", c.k, "k");
        }
    }

    if (py::isinstance<kn::CosSinCache>(angles)) {
        run_storage(storage, c, angles.cast<const kn::CosSinCache&>());
    } else if (py::isinstance<kn::OnTheFlyAngles>(angles)) {
        run_storage(storage, c, angles.cast<const kn::OnTheFlyAngles&>());
    } else if (py::isinstance<FrequencyTable>(angles)) {
        // Angles for exactly the positions of this call (the checks report any beyond 2^31 - 1).
        const std::int64_t reach = std::clamp<std::int64_t>(c.positions.max_abs, 1, kn::max_kernel_position);
        const kn::OnTheFlyAngles source(angles.cast<const FrequencyTable&>(), reach);
        run_storage(storage, c, source);
    } else {
        posenc::detail::raise("angles", std::string(py::str(angles.get_type())),
                              "must be a CosSinCache, an OnTheFlyAngles or a FrequencyTable");
    }
    const py::object q_result = c.out_of_place ? q_out_object : q_object;
    if (!c.has_k) return q_result;
    return py::make_tuple(q_result, c.out_of_place ? k_out_object : k_object);
}

/// Direction, CosSinCache and OnTheFlyAngles (the kernels' angle sources).
void bind_angle_sources(py::module_& m)
{
    bind_enum<kn::Direction>(m, "Direction",
                             "forward rotates to the position (RoPE); inverse rotates back (R(-m theta)).",
                             {{"forward", kn::Direction::forward}, {"inverse", kn::Direction::inverse}});
    m.attr("max_kernel_position") = kn::max_kernel_position;

    py::class_<kn::CosSinCache>(
        m, "CosSinCache",
        "A float32 table of a cos(m theta_i), a sin(m theta_i) for positions [first, first + n)\n"
        "(attention factor a folded in), each from the exactly reduced double angle rounded\n"
        "once: error <= half an ulp + 5e-15 a at every position, however large.\n"
        "Memory: n * num_pairs * 8 bytes.")
        .def(py::init<const FrequencyTable&, std::int64_t, std::int64_t>(), py::arg("table"), py::arg("num_positions"),
             py::arg("first_position") = 0)
        .def_property_readonly("num_pairs", &kn::CosSinCache::num_pairs)
        .def_property_readonly("num_positions", &kn::CosSinCache::num_positions)
        .def_property_readonly("first_position", &kn::CosSinCache::first_position)
        .def_property_readonly("position_range",
                               [](const kn::CosSinCache& c) {
                                   const kn::PositionRange r = c.position_range();
                                   return py::make_tuple(r.first, r.last);
                               })
        .def_property_readonly("memory_bytes", &kn::CosSinCache::memory_bytes)
        .def_property_readonly("frequencies", &kn::CosSinCache::frequencies)
        .def(
            "cos_sin",
            [](const kn::CosSinCache& c, std::int64_t position, int pair) {
                const kn::PositionRange r = c.position_range();
                if (!r.contains(position))
                    posenc::detail::raise("position", position,
                                          "must be in [" + std::to_string(r.first) + ", " + std::to_string(r.last) +
                                              "]");
                require_index("pair", pair, c.num_pairs());
                return py::make_tuple(c.cos_row(position)[pair], c.sin_row(position)[pair]);
            },
            py::arg("position"), py::arg("pair"), "The stored float32 (cos, sin) of one pair at one position.");

    py::class_<kn::OnTheFlyAngles>(
        m, "OnTheFlyAngles",
        "cos/sin for every |position| <= max_position without an O(N) table: the position is\n"
        "split into digits of b bits, each level holds a exp(j d 2^(kb) theta_i) in double, and\n"
        "a exp(j m theta_i) is their product (angle addition), rounded once to float32.\n"
        "Error <= half an ulp + L * 6e-15 a. 2^31 - 1 takes three 11-bit levels (4.5 MiB at 64 pairs).")
        .def(py::init<const FrequencyTable&, std::int64_t, int>(), py::arg("table"),
             py::arg("max_position") = kn::max_kernel_position, py::arg("levels") = 0)
        .def_property_readonly("num_pairs", &kn::OnTheFlyAngles::num_pairs)
        .def_property_readonly("max_position", &kn::OnTheFlyAngles::max_position)
        .def_property_readonly("levels", &kn::OnTheFlyAngles::levels)
        .def_property_readonly("bits_per_level", &kn::OnTheFlyAngles::bits_per_level)
        .def_property_readonly("memory_bytes", &kn::OnTheFlyAngles::memory_bytes)
        .def_property_readonly("frequencies", &kn::OnTheFlyAngles::frequencies)
        .def(
            "cos_sin",
            [](const kn::OnTheFlyAngles& a, std::int64_t position, int pair) {
                if (position < -a.max_position() || position > a.max_position())
                    posenc::detail::raise("position", position,
                                          "must be in [-" + std::to_string(a.max_position()) + ", " +
                                              std::to_string(a.max_position()) + "]");
                require_index("pair", pair, a.num_pairs());
                const CosSin cs = a.cos_sin(position, pair);
                return py::make_tuple(cs.cos, cs.sin);
            },
            py::arg("position"), py::arg("pair"), "a (cos, sin)(m theta_i) in double from the digit products.");
}

/// apply_rope's native entry and the dispatch report.
void bind_apply_entries(py::module_& m)
{
    m.def("_apply_rope", &apply, py::arg("spec"), py::arg("angles"), py::arg("q"), py::arg("k") = py::none(),
          py::arg("positions") = 0, py::arg("q_out") = py::none(), py::arg("k_out") = py::none(),
          py::arg("direction") = kn::Direction::forward, py::arg("dtype") = py::none(), py::arg("layout") = "thd");

    m.def(
        "isa", []() { return std::string(kn::dispatch::to_string(kn::dispatch::best_isa())); },
        "The instruction set apply_rope runs on this CPU ('avx512', 'avx2', ...; POSENC_DISPATCH_MAX_ISA caps it).");
    m.def(
        "dispatch_summary", []() { return kn::dispatch::dispatch_summary(); },
        "One line: the instruction set apply_rope runs, the ones compiled into the module and the best this\n"
        "CPU runs, e.g. 'dispatch runs avx512_bf16 (avx512bw+bf16); compiled: baseline (sse2), sse4_2, avx2,\n"
        "avx512, avx512_bf16; this CPU runs up to avx512_bf16'.");
}

}  // namespace

void bind_kernels(py::module_& m)
{
    bind_angle_sources(m);
    bind_apply_entries(m);
}

}  // namespace posenc::python
