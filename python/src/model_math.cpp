// SPDX-License-Identifier: MIT
// python/src/model_math.cpp: per-position query scaling, re-rotation of cached keys between
// tables, and the position ids of multimodal prompts.
#include "bindings.hpp"

#include <posenc/frequencies.hpp>
#include <posenc/multimodal_positions.hpp>
#include <posenc/query_scale.hpp>
#include <posenc/rerotation.hpp>
#include <posenc/spec.hpp>

#include <pybind11/operators.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

/// Re-rotates keys [tokens, heads, head_dim] in place (a C-contiguous, writeable float32/float64
/// array); positions: one int64 per token.
template <class T>
void rerotate_array(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to, py::array_t<T> keys,
                    const std::vector<std::int64_t>& positions)
{
    if (keys.ndim() != 3 || keys.shape(2) != spec.head_dim()) {
        std::string shape = "(";
        for (py::ssize_t d = 0; d < keys.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(keys.shape(d));
        posenc::detail::raise("keys.shape", shape + ")",
                              "must be (tokens, heads, head_dim " + std::to_string(spec.head_dim()) + ")");
    }
    if (!(keys.flags() & py::array::c_style) || !keys.writeable())
        posenc::detail::raise("keys", "array", "must be C-contiguous and writeable (it is re-rotated in place)");
    if (static_cast<py::ssize_t>(positions.size()) != keys.shape(0))
        posenc::detail::raise("positions.size", positions.size(), "must equal tokens " + std::to_string(keys.shape(0)));
    if (keys.shape(1) < 1 || keys.shape(1) > 1000000)
        posenc::detail::raise("keys.shape[1]", static_cast<long long>(keys.shape(1)),
                              "must be in [1, 1000000] (heads)");
    rerotate_keys(spec, from, to, keys.mutable_data(), static_cast<std::int64_t>(keys.shape(0)),
                  static_cast<int>(keys.shape(1)), positions.data());
}

py::tuple position_ids_result(const AxisPositionIds& ids)
{
    py::array_t<std::int64_t> out({static_cast<py::ssize_t>(ids.num_axes), static_cast<py::ssize_t>(ids.tokens)});
    std::int64_t* data = out.mutable_data();
    for (std::size_t i = 0; i < ids.ids.size(); ++i) data[i] = ids.ids[i];
    return py::make_tuple(out, ids.rope_delta);
}

/// QueryScale.
void bind_query_scale(py::module_& m)
{
    // ---- query scale --------------------------------------------------------------------------
    py::class_<QueryScale>(
        m, "QueryScale",
        "Per-position query scaling: m(pos) = 1 + beta ln(1 + floor((pos + position_offset) / divisor)),\n"
        "pos counted from 0, in double (within 2^-51 m). Llama 4 temperature tuning:\n"
        "llama4_temperature_tuning(attn_scale, floor_scale) (offset 1); Ministral 3 / Mistral 4:\n"
        "llama_4_scaling_beta(beta, original_max_position_embeddings) (offset 0).")
        .def(py::init<double, std::int64_t, std::int64_t>(), py::arg("beta"), py::arg("divisor"),
             py::arg("position_offset") = 0)
        .def_static("llama4_temperature_tuning", &QueryScale::llama4_temperature_tuning, py::arg("attn_scale"),
                    py::arg("floor_scale"))
        .def_static("llama_4_scaling_beta", &QueryScale::llama_4_scaling_beta, py::arg("beta"),
                    py::arg("original_max_position_embeddings"))
        .def_property_readonly("beta", &QueryScale::beta)
        .def_property_readonly("divisor", &QueryScale::divisor)
        .def_property_readonly("position_offset", &QueryScale::position_offset)
        .def("floor_quotient", &QueryScale::floor_quotient, py::arg("position"))
        .def("multiplier", &QueryScale::multiplier, py::arg("position"))
        .def(
            "multipliers",
            [](const QueryScale& q, std::int64_t first_position, std::int64_t count) {
                if (count < 0 || count > (std::int64_t {1} << 31))
                    posenc::detail::raise("count", count, "must be in [0, 2^31]");
                py::array_t<float> out(static_cast<py::ssize_t>(count));
                q.fill_multipliers(first_position, out.mutable_data(), static_cast<std::ptrdiff_t>(count));
                return out;
            },
            py::arg("first_position"), py::arg("count"),
            "float32 multipliers of positions first_position .. first_position + count - 1.")
        .def(
            "multipliers_at",
            [](const QueryScale& q, const std::vector<std::int64_t>& positions) {
                py::array_t<float> out(static_cast<py::ssize_t>(positions.size()));
                q.fill_multipliers_at(positions.data(), out.mutable_data(),
                                      static_cast<std::ptrdiff_t>(positions.size()));
                return out;
            },
            py::arg("positions"), "float32 multipliers of explicit position ids.")
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def("__repr__", [](const QueryScale& q) {
            return "QueryScale(beta=" + posenc::detail::format_value(q.beta()) +
                   ", divisor=" + std::to_string(q.divisor()) +
                   ", position_offset=" + std::to_string(q.position_offset()) + ")";
        });
}

/// Angle differences and the re-rotation of cached keys.
void bind_rerotation(py::module_& m)
{
    // ---- re-rotation --------------------------------------------------------------------------
    m.def("angle_difference", &angle_difference, py::arg("position"), py::arg("from_inv_freq"), py::arg("to_inv_freq"));
    m.def("rerotate_keys", &rerotate_array<float>, py::arg("spec"), py::arg("from_table"), py::arg("to_table"),
          py::arg("keys").noconvert(), py::arg("positions"));
    m.def("rerotate_keys", &rerotate_array<double>, py::arg("spec"), py::arg("from_table"), py::arg("to_table"),
          py::arg("keys").noconvert(), py::arg("positions"),
          "Re-rotates cached keys [tokens, heads, head_dim] (float32 or float64, C-contiguous) in place from\n"
          "from_table's angles and attention factor to to_table's: per pair the rotation by the exactly\n"
          "reduced angle difference, times to.attention_factor / from.attention_factor. Error <= 1.2e-14 rho |x|\n"
          "per pair before the final rounding (posenc/rerotation.hpp).");
}

/// The multimodal position ids (prompt segments).
void bind_multimodal_position_ids(py::module_& m)
{
    // ---- multimodal position ids --------------------------------------------------------------
    py::class_<PromptSegment> segment(m, "PromptSegment",
                                      "One run of a multimodal prompt: text(n), image(t, h, w[, delimited]) or\n"
                                      "video(t, h, w), the grid before merging (image_grid_thw).");
    segment.def_static("text", &PromptSegment::text, py::arg("tokens"))
        .def_static("image", &PromptSegment::image, py::arg("t"), py::arg("h"), py::arg("w"),
                    py::arg("delimited") = false)
        .def_static(
            "video",
            [](std::int64_t t, std::int64_t h, std::int64_t w, std::optional<double> seconds_per_grid) {
                return seconds_per_grid ? PromptSegment::video(t, h, w, *seconds_per_grid)
                                        : PromptSegment::video(t, h, w);
            },
            py::arg("t"), py::arg("h"), py::arg("w"), py::arg("seconds_per_grid") = py::none())
        .def_readonly("seconds_per_grid", &PromptSegment::seconds_per_grid)
        .def_readonly("length", &PromptSegment::length)
        .def_readonly("t", &PromptSegment::t)
        .def_readonly("h", &PromptSegment::h)
        .def_readonly("w", &PromptSegment::w)
        .def_readonly("delimited", &PromptSegment::delimited);
    m.def(
        "ernie_4_5_vl_position_ids",
        [](const std::vector<PromptSegment>& segments, int spatial_merge_size, int temporal_merge_size) {
            return position_ids_result(ernie_4_5_vl_position_ids(segments, spatial_merge_size, temporal_merge_size));
        },
        py::arg("segments"), py::arg("spatial_merge_size"), py::arg("temporal_merge_size"),
        "ERNIE-4.5-VL's 3-D position ids: (int64 array [3, tokens] (temporal, height, width), rope_delta).");
    m.def(
        "hunyuan_vl_position_ids",
        [](const std::vector<PromptSegment>& segments, int num_axes, int spatial_merge_size,
           std::int64_t first_image_index) {
            return position_ids_result(
                hunyuan_vl_position_ids(segments, num_axes, spatial_merge_size, first_image_index));
        },
        py::arg("segments"), py::arg("num_axes"), py::arg("spatial_merge_size"), py::arg("first_image_index") = 0,
        "HunYuan-VL's position ids: (int64 array [num_axes, tokens], rope_delta); axes (position,) width,\n"
        "height, image index.");
}

}  // namespace

void bind_model_math(py::module_& m)
{
    bind_query_scale(m);
    bind_rerotation(m);
    bind_multimodal_position_ids(m);
}

}  // namespace posenc::python
