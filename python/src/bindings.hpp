// SPDX-License-Identifier: MIT
// python/src/bindings.hpp: what the translation units of the posenc Python module share.
//
// The module is split by topic so that a change rebuilds one unit: core (errors, specs, tables,
// angles, rotations), scaling, analysis (diagnostics and bounds), encodings, models (presets and
// the config reader) and kernels (apply_rope on NumPy arrays).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <posenc/error.hpp>

namespace posenc::python {

namespace py = pybind11;

void bind_core(py::module_& m);
void bind_scaling(py::module_& m);
void bind_analysis(py::module_& m);
void bind_encodings(py::module_& m);
void bind_models(py::module_& m);
void bind_model_rope(py::module_& m);
void bind_kernels(py::module_& m);

/// A std::vector<double> as a new 1-D float64 NumPy array.
inline py::array_t<double> to_array(const std::vector<double>& values)
{
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    double* data = out.mutable_data();
    for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i];
    return out;
}

/// Throws posenc::error unless 0 <= index < count (C++ leaves these as preconditions; from
/// Python an index out of range must be an exception, never a read past an array).
inline void require_index(const char* field, std::int64_t index, std::int64_t count)
{
    if (index < 0 || index >= count)
        posenc::detail::raise(field, index, "must be in [0, " + std::to_string(count) + ")");
}

/// Binds a C++ enum with its values, and lets Python pass their names as strings too
/// (Pairing("interleaved"), or pairing="interleaved" wherever a Pairing is expected).
template <class E>
py::enum_<E> bind_enum(py::module_& m, const char* name, const char* doc,
                       std::initializer_list<std::pair<const char*, E>> values)
{
    py::enum_<E> e(m, name, doc);
    std::vector<std::pair<std::string, E>> table;
    for (const auto& [value_name, value] : values) {
        e.value(value_name, value);
        table.emplace_back(value_name, value);
    }
    const std::string enum_name = name;
    e.def(py::init([table, enum_name](const std::string& text) {
              std::string known;
              for (const auto& [value_name, value] : table) {
                  if (value_name == text) return value;
                  known += (known.empty() ? "" : ", ") + value_name;
              }
              posenc::detail::raise(enum_name, text, "is not one of " + known);
          }),
          py::arg("name"));
    py::implicitly_convertible<py::str, E>();
    return e;
}

}  // namespace posenc::python
