// SPDX-License-Identifier: MIT
// python/src/towers.cpp: vision towers (posenc/vision_tower.hpp, posenc/models/hf_vision_tower.hpp):
// the reader of a config's vision tower and each token's angles as NumPy arrays.
#include "bindings.hpp"

#include <posenc/models/hf_vision_tower.hpp>
#include <posenc/token_angles.hpp>
#include <posenc/vision_tower.hpp>

#include <cstdint>
#include <string>
#include <tuple>

namespace posenc::python {

namespace {

/// {"pairs": (P, 2) int64, "positions": (N, axes) float64, "tokens": (N, P) float64}.
py::dict token_angles_dict(const TokenAngles& a)
{
    a.check();
    const auto n = static_cast<py::ssize_t>(a.num_tokens());
    const auto p = static_cast<py::ssize_t>(a.num_pairs());
    const auto axes = static_cast<py::ssize_t>(a.positions.empty() ? 0 : a.positions[0].size());
    py::array_t<std::int64_t> pairs({p, py::ssize_t {2}});
    py::array_t<double> positions({n, axes});
    py::array_t<double> tokens({n, p});
    auto pv = pairs.mutable_unchecked<2>();
    auto xv = positions.mutable_unchecked<2>();
    auto tv = tokens.mutable_unchecked<2>();
    for (py::ssize_t k = 0; k < p; ++k)
        for (py::ssize_t c = 0; c < 2; ++c)
            pv(k, c) = a.pairs[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)];
    for (py::ssize_t i = 0; i < n; ++i) {
        for (py::ssize_t c = 0; c < axes; ++c)
            xv(i, c) = a.positions[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)];
        for (py::ssize_t k = 0; k < p; ++k)
            tv(i, k) = a.tokens[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)];
    }
    py::dict out;
    out["pairs"] = pairs;
    out["positions"] = positions;
    out["tokens"] = tokens;
    return out;
}

}  // namespace

void bind_towers(py::module_& m)
{
    py::class_<hf::HfVisionTower>(m, "VisionTower",
                                  "A vision tower's RoPE as read from a config.json (posenc/vision_tower.hpp).")
        .def_property_readonly("model_type", [](const hf::HfVisionTower& t) { return t.tower.model_type; })
        .def_property_readonly("rule", [](const hf::HfVisionTower& t) { return std::string(to_string(t.tower.rule)); })
        .def_property_readonly("head_dim", [](const hf::HfVisionTower& t) { return t.tower.head_dim; })
        .def_property_readonly("theta", [](const hf::HfVisionTower& t) { return t.tower.theta; })
        .def_property_readonly("merge_size", [](const hf::HfVisionTower& t) { return t.tower.merge_size; })
        .def_property_readonly("prefix_tokens", [](const hf::HfVisionTower& t) { return t.tower.prefix_tokens; })
        .def_readonly("key_prefix", &hf::HfVisionTower::key_prefix)
        .def_property_readonly("warnings",
                               [](const hf::HfVisionTower& t) {
                                   py::list out;
                                   for (const hf::ConfigWarning& w : t.warnings)
                                       out.append(py::make_tuple(w.key, w.message));
                                   return out;
                               })
        .def("__repr__", [](const hf::HfVisionTower& t) {
            return "VisionTower(" + t.tower.model_type + ", head_dim=" + std::to_string(t.tower.head_dim) +
                   ", merge_size=" + std::to_string(t.tower.merge_size) + ")";
        });
    m.def(
        "parse_vision_tower", [](const std::string& text) { return hf::parse_vision_tower(text); }, py::arg("text"),
        "The vision tower of config.json text: vision_config, thinker_config.vision_config or a tower's own\n"
        "config (posenc/models/hf_vision_tower.hpp). A tower posenc does not represent is a posenc.Error\n"
        "naming its model_type.");
    m.def(
        "tower_token_angles",
        [](const hf::HfVisionTower& t, std::tuple<std::int64_t, std::int64_t, std::int64_t> grid, Precision precision) {
            const PatchGrid g {std::get<0>(grid), std::get<1>(grid), std::get<2>(grid)};
            return token_angles_dict(tower_token_angles(t.tower, g, precision));
        },
        py::arg("tower"), py::arg("grid"), py::arg("precision") = Precision::hf_float32,
        "Every token of one patch grid (T, H, W: the processor's grid_thw, patches before the merge), in\n"
        "the order of the rows of pixel_values: {'pairs': (P, 2) int64 head dims each pair mixes,\n"
        "'positions': (N, axes) float64 coordinates as the rotary reads them, 'tokens': (N, P) float64 angles in "
        "radians}.\n"
        "precision 'hf_float32' (default): the model's float32 angles (within 2^-22 relative of\n"
        "transformers'); 'exact': position * theta^(-4j/H) in double.");
}

}  // namespace posenc::python
