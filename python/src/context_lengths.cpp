// SPDX-License-Identifier: MIT
// python/src/context_lengths.cpp: posenc.context_lengths and posenc.require_frequencies_at, the
// length rules posenc-inspect's "Lengths" also uses (posenc/context_lengths.hpp), so that a
// config gives the same L and L' in Python as on the command line.
#include "bindings.hpp"

#include <posenc/context_lengths.hpp>

#include <optional>
#include <utility>

namespace posenc::python {

namespace {

/// L and L' of `group`; `scaling` None: the group's own scaling, else an override built with
/// trained_length(group, ...) (own_scaling false).
std::pair<std::int64_t, std::int64_t> lengths_of(const RopeGroup& group, std::optional<Scaling> scaling,
                                                 std::optional<std::int64_t> original_length,
                                                 std::optional<std::int64_t> target_length,
                                                 std::optional<double> target_factor)
{
    LengthRequest request;
    request.original_length = original_length;
    request.target_length = target_length;
    request.target_factor = target_factor;
    request.own_scaling = !scaling.has_value();
    const ContextLengths l = context_lengths(group, scaling ? *scaling : group.scaling, request);
    return {l.original, l.target};
}

}  // namespace

void bind_context_lengths(py::module_& m)
{
    m.def("context_lengths", &lengths_of, py::arg("group"), py::arg("scaling") = py::none(),
          py::arg("original_length") = py::none(), py::arg("target_length") = py::none(),
          py::arg("target_factor") = py::none(),
          "(L, L'): the length a RopeGroup was trained at and the length it is extended to, by\n"
          "posenc-inspect's rules (docs/cli.md, Lengths). scaling: an override of the group's own\n"
          "scaling (None: the group's); original_length: L0 instead of the group's; target_length:\n"
          "L' as given; target_factor: L' = round(L x target_factor). Raises posenc.Error for an\n"
          "unknown L0, a target_factor below 1, or a length outside [1, 2^50].");
    m.def(
        "trained_length",
        [](const RopeGroup& group, std::optional<std::int64_t> original_length) {
            LengthRequest request;
            request.original_length = original_length;
            return trained_length(group, request);
        },
        py::arg("group"), py::arg("original_length") = py::none(),
        "L0: original_length, else the group's original length (the length an override scaling\n"
        "is built with). Raises posenc.Error when neither is known.");
    m.def("require_frequencies_at", &require_frequencies_at, py::arg("spec"), py::arg("scaling"), py::arg("length"),
          "Raises posenc.Error, as frequency_table would, when the frequencies of spec under scaling\n"
          "do not exist at sequence length `length` (LongRoPE's lists, dynamic NTK's base at length,\n"
          "a frequency outside the normal doubles, length <= 0); returns None otherwise.");
}

}  // namespace posenc::python
