// SPDX-License-Identifier: MIT
// python/src/audio_towers.cpp: audio towers (posenc/models/hf_audio_tower.hpp): the reader of a
// config's audio tower, one 1-D RoPE over frames.
#include "bindings.hpp"

#include <posenc/models/hf_audio_tower.hpp>

#include <string>

namespace posenc::python {

void bind_audio_towers(py::module_& m)
{
    py::class_<hf::HfAudioTower>(
        m, "AudioTower",
        "An audio tower's RoPE as read from a config.json (posenc/models/hf_audio_tower.hpp):\n"
        "one RoPE group over the tower's frames.")
        .def_readonly("model_type", &hf::HfAudioTower::model_type)
        .def_readonly("key_prefix", &hf::HfAudioTower::key_prefix)
        .def_readonly("rope", &hf::HfAudioTower::rope)
        .def_readonly("head_dim", &hf::HfAudioTower::head_dim)
        .def_property_readonly("group", &hf::HfAudioTower::group, "The one RoPE group every layer uses.")
        .def_property_readonly(
            "positions", [](const hf::HfAudioTower& t) { return std::string(to_string(t.positions)); },
            "'frames_from_zero' or 'frames_from_cache_offset' (a streaming cache's offset first).")
        .def_readonly("warnings", &hf::HfAudioTower::warnings)
        .def("__repr__", [](const hf::HfAudioTower& t) {
            return "AudioTower(" + t.model_type + ", head_dim=" + std::to_string(t.head_dim) +
                   ", rotary_dim=" + std::to_string(t.group().spec.rotary_dim()) + ")";
        });
    m.def(
        "parse_audio_tower", [](const std::string& text) { return hf::parse_audio_tower(text); }, py::arg("text"),
        "The audio tower of config.json text (a wrapper's audio config or a tower's own config;\n"
        "posenc/models/hf_audio_tower.hpp). An audio model without RoPE, or one posenc does not\n"
        "represent, is a posenc.Error naming its model_type and what it uses instead.");
}

}  // namespace posenc::python
