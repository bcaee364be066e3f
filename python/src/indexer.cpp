// SPDX-License-Identifier: MIT
// python/src/indexer.cpp: a sparse-attention indexer's RoPE (posenc/models/hf_indexer_rope.hpp):
// HfModel.indexer and Qwen4-Exp's QSA block starts.
#include "bindings.hpp"

#include <posenc/models/hf_indexer_rope.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace posenc::python {

void bind_indexer(py::module_& m)
{
    py::class_<hf::IndexerRope>(
        m, "IndexerRope",
        "A sparse-attention indexer's RoPE (HY-V4, Qwen4-Exp): its head (spec.head_dim), the\n"
        "rotated slice [spec.rotary_offset, spec.rotary_offset + spec.rotary_dim), the pairing,\n"
        "the group whose table it uses, and where its keys take their positions.")
        .def_readonly("spec", &hf::IndexerRope::spec)
        .def_readonly("group", &hf::IndexerRope::group, "Index in HfModel.rope.groups of the table it uses.")
        .def_property_readonly(
            "keys", [](const hf::IndexerRope& r) { return std::string(to_string(r.keys)); },
            "'per_token' (every key at its own position) or 'block_start' (one pooled key per block of\n"
            "compress_ratio visible tokens, at the block's first token).")
        .def_readonly("compress_ratio", &hf::IndexerRope::compress_ratio)
        .def_readonly("head_dim_key", &hf::IndexerRope::head_dim_key)
        .def_readonly("source", &hf::IndexerRope::source);
    m.def(
        "qsa_block_start_tokens",
        [](const std::vector<std::int64_t>& visible, int compress_ratio) {
            return hf::qsa_block_start_tokens(visible, compress_ratio);
        },
        py::arg("visible"), py::arg("compress_ratio"),
        "Qwen4-Exp's QSA blocks: the first token of each complete block of compress_ratio consecutive\n"
        "visible tokens (visible: the token indices a query sees, ascending); the pooled key of block b\n"
        "rotates at the position of result[b].");
}

}  // namespace posenc::python
