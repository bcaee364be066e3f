// SPDX-License-Identifier: MIT
// python/src/module.cpp: the native module posenc._posenc (the package posenc re-exports it).
#include "bindings.hpp"

PYBIND11_MODULE(_posenc, m)
{
    m.doc() = "posenc: positional-encoding math (RoPE and everything around it), native module.";
    posenc::python::bind_core(m);
    posenc::python::bind_scaling(m);
    posenc::python::bind_analysis(m);
    posenc::python::bind_encodings(m);
    posenc::python::bind_models(m);
    posenc::python::bind_indexer(m);
    posenc::python::bind_model_rope(m);
    posenc::python::bind_model_math(m);
    posenc::python::bind_kernels(m);
    posenc::python::bind_export(m);
    posenc::python::bind_towers(m);
    posenc::python::bind_prompt(m);
    posenc::python::bind_dynamic_ntk_switch(m);
    posenc::python::bind_keywords(m);
    posenc::python::bind_cache_steps(m);
    posenc::python::bind_context_lengths(m);
    posenc::python::bind_audio_towers(m);
}
