// SPDX-License-Identifier: MIT
// python/src/export.cpp: the engine-layout exporters (posenc/export/*.hpp) and the exact cos/sin
// rows behind posenc.torch.RotaryEmbedding, as float64 NumPy arrays. The pure-Python side
// (posenc/export.py, posenc/torch.py) rounds them once to the requested dtype.
#include "bindings.hpp"

#include <posenc/angles.hpp>
#include <posenc/export/cos_sin_tables.hpp>
#include <posenc/export/rope_freqs.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/kernels/dtypes.hpp>
#include <posenc/kernels/on_the_fly_angles.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace posenc::python {

namespace {

namespace kn = posenc::kernels;

template <class T>
py::array_t<T> rows_array(std::vector<T>&& values, std::int64_t rows, std::int64_t columns)
{
    py::array_t<T> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)});
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

/// cos/sin [tokens, P] (attention factor folded in) of `table` where pair i reads the position of
/// axis pair_axes[i] (axis 0 for every pair without pair_axes): positions is [axes, tokens].
py::tuple exact_cos_sin_rows(const FrequencyTable& table,
                             py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> positions,
                             std::optional<std::vector<int>> pair_axes)
{
    if (positions.ndim() != 2)
        posenc::detail::raise("position_ids.ndim", static_cast<long long>(positions.ndim()),
                              "must be 2 ([axes, tokens])");
    const std::int64_t axes = positions.shape(0), tokens = positions.shape(1);
    const int pairs = table.num_pairs();
    std::vector<int> axis_of(static_cast<std::size_t>(pairs), 0);
    if (pair_axes) {
        if (pair_axes->size() != static_cast<std::size_t>(pairs))
            posenc::detail::raise("pair_axes.size", pair_axes->size(),
                                  "must equal the table's pairs " + std::to_string(pairs));
        axis_of = *pair_axes;
    }
    for (int a : axis_of)
        if (a < 0 || a >= axes)
            posenc::detail::raise("position_ids.shape[0]", static_cast<long long>(axes),
                                  "must cover axis " + std::to_string(a) + " of the multi-axis layout");
    const std::int64_t* p = positions.data();
    const double largest = max_inv_freq(table);
    for (std::int64_t k = 0; k < axes * tokens; ++k) require_angle_range("position_ids", p[k], largest);
    py::array_t<double> cos({static_cast<py::ssize_t>(tokens), static_cast<py::ssize_t>(pairs)});
    py::array_t<double> sin({static_cast<py::ssize_t>(tokens), static_cast<py::ssize_t>(pairs)});
    double* c = cos.mutable_data();
    double* s = sin.mutable_data();
    {
        py::gil_scoped_release release;
        for (std::int64_t t = 0; t < tokens; ++t)
            for (int i = 0; i < pairs; ++i) {
                const std::int64_t m = p[axis_of[static_cast<std::size_t>(i)] * tokens + t];
                const CosSin cs = posenc::cos_sin(table, m, i);
                c[t * pairs + i] = cs.cos;
                s[t * pairs + i] = cs.sin;
            }
    }
    return py::make_tuple(cos, sin);
}

/// v rounded once (to nearest, ties to even) to a binary format with `digits` significant bits
/// whose smallest normal exponent (frexp's) is min_exponent: the result is a double that the
/// format holds exactly, so a later conversion to it is exact.
inline double round_to_digits(double v, int digits, int min_exponent)
{
    std::uint64_t u = 0;
    std::memcpy(&u, &v, sizeof u);
    const int biased = static_cast<int>((u >> 52) & 0x7ff);
    if (biased != 0x7ff && biased - 1023 >= min_exponent - 1) {
        // a normal number of the narrow format: round to nearest even on the 53 - digits dropped
        // bits of the double's own (sign-magnitude) encoding; a carry moves into the exponent.
        const int drop = 53 - digits;
        u += (std::uint64_t {1} << (drop - 1)) - 1 + ((u >> drop) & 1);
        u &= ~((std::uint64_t {1} << drop) - 1);
        std::memcpy(&v, &u, sizeof v);
        return v;
    }
    if (v == 0.0 || !std::isfinite(v)) return v;
    int exponent = 0;
    (void)std::frexp(v, &exponent);
    const double quantum = std::ldexp(1.0, std::max(exponent, min_exponent) - digits);
    return std::nearbyint(v / quantum) * quantum;  // v / quantum and the product are exact (powers of 2)
}

enum class RowType { float32, float64, float16, bfloat16 };

RowType row_type(const std::string& dtype)
{
    if (dtype == "float32") return RowType::float32;
    if (dtype == "float64") return RowType::float64;
    if (dtype == "float16") return RowType::float16;
    if (dtype == "bfloat16") return RowType::bfloat16;
    posenc::detail::raise("dtype", dtype, "must be one of float32, float64, float16, bfloat16");
}

/// v rounded once from double to the storage type T (float16 and bfloat16 as their 16 bits).
template <class T>
inline T rounded(double v)
{
    if constexpr (std::is_same_v<T, double>) return v;
    else if constexpr (std::is_same_v<T, float>) return static_cast<float>(v);
    else if constexpr (std::is_same_v<T, posenc::float16>)
        return posenc::to_float16(static_cast<float>(round_to_digits(v, 11, -13)));
    else return posenc::to_bfloat16(static_cast<float>(round_to_digits(v, 8, -125)));
}

/// The digit products of one token (OnTheFlyAngles' cos_sin for every pair, the levels' row
/// pointers computed once per token and per axis), rounded once to T and stored: "hf" layout
/// when s is set (c and s rows cat(half, half)), else "vllm" (c row cos half | sin half).
template <class T>
void fill_rows(const kn::OnTheFlyAngles& angles, const std::int64_t* p, std::int64_t tokens,
               const std::vector<int>& axis_of, bool per_pair_axes, void* c_out, void* s_out)
{
    const int pairs = angles.num_pairs(), levels = angles.levels(), bits = angles.bits_per_level();
    const std::size_t half = static_cast<std::size_t>(pairs), w = 2 * half;
    const std::int64_t digit_mask = (std::int64_t {1} << bits) - 1;
    T* c = static_cast<T*>(c_out);
    T* s = static_cast<T*>(s_out);
    for (std::int64_t t = 0; t < tokens; ++t) {
        T* crow = c + static_cast<std::size_t>(t) * w;
        T* srow = s != nullptr ? s + static_cast<std::size_t>(t) * w : nullptr;
        const double* rows[4] = {};
        std::int64_t current = -1;
        bool negative = false;
        for (std::size_t i = 0; i < half; ++i) {
            const std::int64_t m = per_pair_axes ? p[axis_of[i] * tokens + t] : p[t];
            if (m != current || i == 0) {  // the digits' rows of this position
                current = m;
                negative = m < 0;
                const std::int64_t magnitude = negative ? -m : m;
                for (int k = 0; k < levels; ++k)
                    rows[k] =
                        angles.level_values(k) + static_cast<std::size_t>((magnitude >> (k * bits)) & digit_mask) * w;
            }
            double cv = rows[0][i], sv = rows[0][half + i];
            for (int k = 1; k < levels; ++k) {
                const double ck = rows[k][i], sk = rows[k][half + i];
                const double next = cv * ck - sv * sk;
                sv = sv * ck + cv * sk;
                cv = next;
            }
            if (negative) sv = -sv;
            const T cr = rounded<T>(cv), sr = rounded<T>(sv);
            if (srow != nullptr) {
                crow[i] = cr;
                crow[half + i] = cr;
                srow[i] = sr;
                srow[half + i] = sr;
            } else {
                crow[i] = cr;
                crow[half + i] = sr;
            }
        }
    }
}

py::array rows_buffer(RowType type, std::int64_t rows, std::int64_t columns)
{
    const std::vector<py::ssize_t> shape {static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)};
    switch (type) {
    case RowType::float64: return py::array_t<double>(shape);
    case RowType::float32: return py::array_t<float>(shape);
    default: return py::array_t<std::uint16_t>(shape);
    }
}

/// cos/sin rows from OnTheFlyAngles' digit products (double, error < L * 6e-15 a), each rounded
/// once to `dtype`. positions [axes, tokens]; pair i reads axis pair_axes[i] (0 without).
/// layout "hf": (cos, sin), each [tokens, R] = cat(half, half); "vllm": [tokens, R] = cos | sin.
py::object on_the_fly_rows(const kn::OnTheFlyAngles& angles,
                           py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> positions,
                           std::optional<std::vector<int>> pair_axes, const std::string& dtype,
                           const std::string& layout)
{
    if (positions.ndim() != 2)
        posenc::detail::raise("positions.ndim", static_cast<long long>(positions.ndim()), "must be 2 ([axes, tokens])");
    if (layout != "hf" && layout != "vllm") posenc::detail::raise("layout", layout, "must be \"hf\" or \"vllm\"");
    const RowType type = row_type(dtype);
    const std::int64_t axes = positions.shape(0), tokens = positions.shape(1);
    const int pairs = angles.num_pairs();
    std::vector<int> axis_of(static_cast<std::size_t>(pairs), 0);
    if (pair_axes) {
        if (pair_axes->size() != static_cast<std::size_t>(pairs))
            posenc::detail::raise("pair_axes.size", pair_axes->size(),
                                  "must equal the table's pairs " + std::to_string(pairs));
        axis_of = *pair_axes;
    }
    for (int a : axis_of)
        if (a < 0 || a >= axes)
            posenc::detail::raise("positions.shape[0]", static_cast<long long>(axes),
                                  "must cover axis " + std::to_string(a) + " of the multi-axis layout");
    const std::int64_t* p = positions.data();
    for (std::int64_t k = 0; k < axes * tokens; ++k)
        if (p[k] < -angles.max_position() || p[k] > angles.max_position())
            posenc::detail::raise("position_ids", static_cast<long long>(p[k]),
                                  "must be in [-" + std::to_string(angles.max_position()) + ", " +
                                      std::to_string(angles.max_position()) + "]");
    const std::int64_t width = 2 * static_cast<std::int64_t>(pairs);
    py::array first = rows_buffer(type, tokens, width);
    py::array second = layout == "hf" ? rows_buffer(type, tokens, width) : py::array();
    void* c = first.mutable_data();
    void* s = layout == "hf" ? second.mutable_data() : nullptr;
    {
        py::gil_scoped_release release;
        const bool per_pair = pair_axes.has_value();
        switch (type) {
        case RowType::float64: fill_rows<double>(angles, p, tokens, axis_of, per_pair, c, s); break;
        case RowType::float32: fill_rows<float>(angles, p, tokens, axis_of, per_pair, c, s); break;
        case RowType::float16: fill_rows<posenc::float16>(angles, p, tokens, axis_of, per_pair, c, s); break;
        case RowType::bfloat16: fill_rows<posenc::bfloat16>(angles, p, tokens, axis_of, per_pair, c, s); break;
        }
    }
    if (layout == "hf") return py::make_tuple(first, second);
    return std::move(first);
}

/// The exporters' row tables from OnTheFlyAngles (_on_the_fly_rows, _on_the_fly_levels, _export_cos_sin).
void bind_row_tables(py::module_& m)
{
    m.def("_on_the_fly_rows", &on_the_fly_rows, py::arg("angles"), py::arg("positions"),
          py::arg("pair_axes") = py::none(), py::arg("dtype") = "float32", py::arg("layout") = "hf",
          "cos/sin rows from OnTheFlyAngles' digit products in double, each rounded once to dtype\n"
          "(float32, float64; float16 and bfloat16 as uint16 storage bits). positions int64 [axes,\n"
          "tokens]; pair i reads axis pair_axes[i] (0 without). layout 'hf' -> (cos, sin) [tokens, R]\n"
          "each, cat(half, half); 'vllm' -> [tokens, R], cos half | sin half.");
    m.def(
        "_require_export_rows",
        [](const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position) {
            exports::detail::require_rows(table, num_positions, first_position);
        },
        py::arg("table"), py::arg("num_positions"), py::arg("first_position"),
        "posenc.Error unless rows first_position .. + num_positions - 1 of `table` can be exported\n"
        "(posenc/export/cos_sin_tables.hpp's range).");
    m.def(
        "_on_the_fly_levels",
        [](const kn::OnTheFlyAngles& angles) {
            py::list out;
            const std::int64_t width = 2 * static_cast<std::int64_t>(angles.num_pairs());
            for (int k = 0; k < angles.levels(); ++k) {
                const auto rows = static_cast<std::int64_t>(angles.level_rows(k));
                py::array_t<double> level({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(width)});
                std::copy(angles.level_values(k), angles.level_values(k) + rows * width, level.mutable_data());
                out.append(level);
            }
            return out;
        },
        py::arg("angles"),
        "OnTheFlyAngles' digit tables, one float64 array [rows, R] per level (cos half | sin half;\n"
        "level 0 carries the attention factor).");
    m.def(
        "_export_cos_sin",
        [](const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position,
           const std::string& layout) -> py::object {
            const std::int64_t width = 2 * static_cast<std::int64_t>(table.num_pairs());
            if (layout == "vllm")
                return rows_array(exports::vllm_cos_sin_cache<double>(table, num_positions, first_position),
                                  num_positions, width);
            if (layout == "flashinfer")
                return rows_array(exports::flashinfer_cos_sin_cache(table, num_positions, first_position),
                                  num_positions, width);
            if (layout == "hf") {
                exports::HfCosSin<double> hf = exports::hf_cos_sin<double>(table, num_positions, first_position);
                return py::make_tuple(rows_array(std::move(hf.cos), num_positions, width),
                                      rows_array(std::move(hf.sin), num_positions, width));
            }
            posenc::detail::raise("layout", layout, "must be one of \"vllm\", \"flashinfer\", \"hf\"");
        },
        py::arg("table"), py::arg("num_positions"), py::arg("first_position"), py::arg("layout"),
        "posenc/export/cos_sin_tables.hpp: 'vllm' -> float64 [N, R] (cos half | sin half), 'flashinfer' ->\n"
        "the same in float32, 'hf' -> (cos, sin) float64 [N, R] each (cat(freqs, freqs)).");
}

/// The exact reference rows (_exact_cos_sin_rows) and the GGUF factor tensors (gguf_rope_factors).
void bind_exact_rows(py::module_& m)
{
    m.def("_exact_cos_sin_rows", &exact_cos_sin_rows, py::arg("table"), py::arg("positions"),
          py::arg("pair_axes") = py::none(),
          "(cos, sin) float64 [tokens, P] of the exactly reduced angles, attention factor folded in;\n"
          "positions int64 [axes, tokens]; pair i reads axis pair_axes[i] (0 without).");
    m.def(
        "gguf_rope_factors",
        [](const RopeSpec& spec, const Scaling& scaling) {
            py::dict out;
            for (exports::GgufRopeFactors& t : exports::gguf_rope_factors(spec, scaling)) {
                py::array_t<float> values(static_cast<py::ssize_t>(t.values.size()));
                std::copy(t.values.begin(), t.values.end(), values.mutable_data());
                out[py::str(t.name)] = values;
            }
            return out;
        },
        py::arg("spec"), py::arg("scaling"),
        "The per-pair factor tensors a GGUF conversion (llama.cpp convert_hf_to_gguf.py) stores, as\n"
        "{name: float32 array of P}: llama3 -> {'rope_freqs': theta_i / theta'_i}; longrope ->\n"
        "{'rope_factors_long', 'rope_factors_short'}. Other scalings raise posenc.Error.");
}

}  // namespace

void bind_export(py::module_& m)
{
    bind_row_tables(m);
    bind_exact_rows(m);
}

}  // namespace posenc::python
