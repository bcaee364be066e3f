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

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <posenc/detail/did_you_mean.hpp>
#include <posenc/error.hpp>

// Enumerations bound with posenc::python::bind_enum take their names as strings wherever they
// are expected (pairing="interleaved"). A str is passed to the enumeration's constructor, so a
// name that is not one of its values raises that constructor's posenc.Error, with the names and
// a did-you-mean, rather than pybind11's generic "incompatible function arguments" TypeError.
// Enumerations bound otherwise are cast as pybind11 always does. Every binding unit includes
// this header first, so each sees this caster for every enumeration it binds or takes.
namespace pybind11::detail {

template <class E>
class type_caster<E, std::enable_if_t<std::is_enum_v<E>>> : public type_caster_base<E>
{
public:
    bool load(handle src, bool convert)
    {
        if (type_caster_base<E>::load(src, convert)) return true;
        if (!convert || !PyUnicode_Check(src.ptr())) return false;
        const type_info* info = get_type_info(typeid(E));
        if (info == nullptr) return false;
        const handle type(reinterpret_cast<PyObject*>(info->type));
        if (!hasattr(type, "_posenc_accepts_names")) return false;
        converted_ = type(src);  // an unknown name raises posenc.Error here
        return type_caster_base<E>::load(converted_, false);
    }

private:
    object converted_;  // the enumeration value the loaded pointer refers to, alive with the caster
};

}  // namespace pybind11::detail

namespace posenc::python {

namespace py = pybind11;

void bind_core(py::module_& m);
void bind_scaling(py::module_& m);
void bind_analysis(py::module_& m);
void bind_encodings(py::module_& m);
void bind_models(py::module_& m);
void bind_model_rope(py::module_& m);
void bind_model_math(py::module_& m);
void bind_kernels(py::module_& m);
void bind_export(py::module_& m);
void bind_towers(py::module_& m);
void bind_prompt(py::module_& m);
void bind_dynamic_ntk_switch(py::module_& m);
void bind_keywords(py::module_& m);
void bind_cache_steps(py::module_& m);
void bind_context_lengths(py::module_& m);
void bind_audio_towers(py::module_& m);
void bind_indexer(py::module_& m);

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

/// Throws posenc::error unless `x` is finite (a NaN or an infinity would only come back as a
/// NaN or an infinity: from Python that is an exception, never a silent non-finite result).
inline void require_finite(const char* field, double x)
{
    if (!std::isfinite(x)) posenc::detail::raise(field, x, "must be finite");
}

/// Throws posenc::error unless `x` is finite and >= 0 (a frequency, a length in tokens).
inline void require_finite_nonnegative(const char* field, double x)
{
    if (!(std::isfinite(x) && x >= 0)) posenc::detail::raise(field, x, "must be finite and >= 0");
}

/// The exact angle reduction (posenc/angles.hpp: reduced_angle, cos_sin, and everything built on
/// them) is specified for |position| <= 2^53 and |position * inv_freq| <= 2^50; C++ leaves that a
/// precondition of its noexcept helpers (beyond it they return wrong angles, not errors). From
/// Python it is checked: posenc::error naming `field` unless `position` lies in that range for
/// every frequency up to `max_inv_freq` (finite, >= 0).
inline void require_angle_range(const std::string& field, std::int64_t position, double max_inv_freq)
{
    constexpr std::int64_t max_position = std::int64_t {1} << 53;
    if (position < -max_position || position > max_position)
        posenc::detail::raise(field, position, "must be in [-2^53, 2^53] (the exact angle reduction's range)");
    const double angle = std::abs(static_cast<double>(position) * max_inv_freq);
    if (!(angle <= std::ldexp(1.0, 50)))
        posenc::detail::raise(field, position,
                              "must keep |" + field +
                                  " * inv_freq| <= 2^50 (the exact angle reduction's range); "
                                  "inv_freq " +
                                  posenc::detail::format_value(max_inv_freq) + " gives " +
                                  posenc::detail::format_value(angle));
}

/// The largest frequency of a table (the one that decides require_angle_range).
template <class Table>
double max_inv_freq(const Table& table)
{
    double m = 0.0;
    for (int i = 0; i < table.num_pairs(); ++i) m = std::max(m, table.inv_freq(i));
    return m;
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
    // py::enum_ converts any integer into the enum, named or not (Direction(5) would behave as
    // one of the named values in C++, silently). This overload, placed before pybind11's own,
    // accepts only the integers of named values.
    e.def(py::init([table, enum_name](long long value) {
              std::string known;
              for (const auto& [value_name, v] : table) {
                  if (static_cast<long long>(v) == value) return v;
                  known += (known.empty() ? "" : ", ") + value_name + " = " + std::to_string(static_cast<long long>(v));
              }
              posenc::detail::raise(enum_name, value, "is not one of " + known);
          }),
          py::arg("value"), py::prepend());
    e.def(py::init([table, enum_name](const std::string& text) {
              std::string known;
              std::vector<std::string> names;
              for (const auto& [value_name, value] : table) {
                  if (value_name == text) return value;
                  known += (known.empty() ? "" : ", ") + value_name;
                  names.push_back(value_name);
              }
              posenc::detail::raise(enum_name, text,
                                    "is not one of " + known + posenc::detail::did_you_mean(text, names));
          }),
          py::arg("name"));
    // Strings where the enumeration is expected go through this constructor (the type caster
    // below), so a misspelt name gets the message above instead of "incompatible arguments".
    e.attr("_posenc_accepts_names") = true;
    return e;
}

}  // namespace posenc::python
