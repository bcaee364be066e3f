// SPDX-License-Identifier: MIT
// python/src/dynamic_ntk_switch.cpp: posenc.DynamicNtkSwitch, transformers' dynamic NTK table
// switching (posenc/scaling/dynamic_ntk_switch.hpp), which posenc.torch.RotaryEmbedding follows.
#include "bindings.hpp"

#include <posenc/scaling/dynamic_ntk_switch.hpp>

#include <string>

namespace posenc::python {

void bind_dynamic_ntk_switch(py::module_& m)
{
    py::class_<DynamicNtkSwitch>(
        m, "DynamicNtkSwitch",
        "Which dynamic NTK table a forward pass uses, as transformers switches them\n"
        "(dynamic_rope_update): the cached length c starts at L = original_length; before a pass of\n"
        "n = max(position_ids) + 1 tokens,\n"
        "  growth: n > c            the table is rebuilt at n, c = n\n"
        "  reset:  n < L and c > L  the init table is restored, c = L\n"
        "The table in effect is built at c when c > L (table_length), the init table otherwise (None).")
        .def(py::init<std::int64_t>(), py::arg("original_length"))
        .def_property_readonly("original_length", &DynamicNtkSwitch::original_length)
        .def_property_readonly("cached_length", &DynamicNtkSwitch::cached_length)
        .def_property_readonly("table_length", &DynamicNtkSwitch::table_length,
                               "The sequence length of the table in effect (None: the init table).")
        .def("update", &DynamicNtkSwitch::update, py::arg("sequence_length"),
             "One forward pass of sequence_length tokens: growth, reset or neither; returns table_length.\n"
             "Raises posenc.Error unless sequence_length > 0 (the state is kept).")
        .def("__repr__", [](const DynamicNtkSwitch& s) {
            return "DynamicNtkSwitch(original_length=" + std::to_string(s.original_length()) +
                   ", cached_length=" + std::to_string(s.cached_length()) + ")";
        });
}

}  // namespace posenc::python
