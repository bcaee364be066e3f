// SPDX-License-Identifier: MIT
// python/src/export.cpp: the engine-layout exporters (posenc/export/*.hpp) and the exact cos/sin
// rows behind posenc.torch.RotaryEmbedding, as float64 NumPy arrays. The pure-Python side
// (posenc/export.py, posenc/torch.py) rounds them once to the requested dtype.
#include "bindings.hpp"

#include <posenc/angles.hpp>
#include <posenc/export/cos_sin_tables.hpp>
#include <posenc/export/rope_freqs.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

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

}  // namespace

void bind_export(py::module_& m)
{
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

}  // namespace posenc::python
