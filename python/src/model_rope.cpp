// SPDX-License-Identifier: MIT
// python/src/model_rope.cpp: the model-level description (ModelRope, RopeGroup), multi-axis
// layouts (M-RoPE, 2-D axial RoPE), whole models read from a config.json, and the whole-model presets.
#include "bindings.hpp"

#include <posenc/model_rope.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/multi_axis.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

FrequencyTable group_table(const RopeGroup& g, std::optional<std::int64_t> sequence_length, Precision precision)
{
    return sequence_length ? g.table(*sequence_length, precision) : g.table(precision);
}

/// MultiAxisKind and MultiAxisLayout.
void bind_multi_axis_layout(py::module_& m)
{
    // ---- multi-axis layouts -------------------------------------------------------------------
    bind_enum<MultiAxisKind>(m, "MultiAxisKind", "Which rule built a MultiAxisLayout.",
                             {{"single", MultiAxisKind::single},
                              {"sections", MultiAxisKind::sections},
                              {"interleaved", MultiAxisKind::interleaved},
                              {"axial_2d", MultiAxisKind::axial_2d},
                              {"custom", MultiAxisKind::custom},
                              {"xd_sections", MultiAxisKind::xd_sections},
                              {"coordinate_sections", MultiAxisKind::coordinate_sections},
                              {"height_width_alternating", MultiAxisKind::height_width_alternating}});
    py::class_<MultiAxisLayout>(
        m, "MultiAxisLayout",
        "An axis for every rotating pair: pair i turns by positions[axis_of_pair(i)].\n"
        "  sections     Qwen2-VL M-RoPE: contiguous [temporal, height, width] pairs\n"
        "  interleaved  Qwen3-VL: height on i % 3 == 1, width on i % 3 == 2 (within the sections)\n"
        "  axial_2d     vision towers: pairs [0, P/2) rows, [P/2, P) columns")
        .def_static("single", &MultiAxisLayout::single, py::arg("num_pairs"))
        .def_static("sections", &MultiAxisLayout::sections, py::arg("mrope_section"), py::arg("num_pairs"))
        .def_static("interleaved", &MultiAxisLayout::interleaved, py::arg("mrope_section"), py::arg("num_pairs"))
        .def_static("axial_2d", &MultiAxisLayout::axial_2d, py::arg("num_pairs"))
        .def_static("from_pair_axes", &MultiAxisLayout::from_pair_axes, py::arg("axis_of_pair"), py::arg("num_axes"))
        .def_static("xd_sections", &MultiAxisLayout::xd_sections, py::arg("sections"), py::arg("num_pairs"),
                    "HunYuan XD-RoPE as Tencent's code applies it: runs over the pairs, section j on axis j.")
        .def_static("coordinate_sections", &MultiAxisLayout::coordinate_sections, py::arg("sections"),
                    py::arg("num_pairs"),
                    "HunYuan-VL as transformers 5 applies it: the doubled sections cut the 2P coordinates, so a\n"
                    "pair's two coordinates may read different axes (partner_axes, splits_pairs).")
        .def_static("height_width_alternating", &MultiAxisLayout::height_width_alternating, py::arg("mrope_section"),
                    py::arg("num_pairs"),
                    "ERNIE-4.5-VL: [s_h, s_w, s_t]; pairs below s_h + s_w alternate height (even) and width (odd),\n"
                    "the rest temporal (axis 0).")
        .def_property_readonly("partner_axes", &MultiAxisLayout::partner_axes,
                               "The axis the second coordinate of each pair reads.")
        .def_property_readonly("splits_pairs", &MultiAxisLayout::splits_pairs,
                               "Whether some pair's two coordinates read different axes.")
        .def_property_readonly("kind", &MultiAxisLayout::kind)
        .def_property_readonly("num_axes", &MultiAxisLayout::num_axes)
        .def_property_readonly("num_pairs", &MultiAxisLayout::num_pairs)
        .def_property_readonly("pair_axes", &MultiAxisLayout::pair_axes)
        .def_property_readonly("mrope_section", &MultiAxisLayout::mrope_section)
        .def_property_readonly("is_interleaved", &MultiAxisLayout::is_interleaved)
        .def(
            "axis_of_pair",
            [](const MultiAxisLayout& l, int pair) {
                require_index("pair", pair, l.num_pairs());
                return l.axis_of_pair(pair);
            },
            py::arg("pair"));
}

/// The axial 2-D frequency rules and the multi-axis reference rotation.
void bind_multi_axis_functions(py::module_& m)
{
    m.def("axial_2d_shared_frequencies", &axial_2d_shared_frequencies, py::arg("head_dim"), py::arg("base") = 10000.0,
          "2-D axial RoPE with one 1-D table of head_dim/2 rotary dims per axis (Qwen2-VL vision, Llama 4\n"
          "vision): theta_i = base^(-2 (i mod Q) / (head_dim / 2)), Q = head_dim / 4.");
    m.def("axial_2d_even_odd_frequencies", &axial_2d_even_odd_frequencies, py::arg("head_dim"),
          py::arg("base") = 10000.0,
          "Pixtral's 2-D RoPE: phi_k = base^(-2k / head_dim), even k for rows, odd k for columns.");
    m.def(
        "apply_multi_axis_rope_reference",
        [](const RopeSpec& spec, const FrequencyTable& table, const MultiAxisLayout& layout,
           py::array_t<double, py::array::forcecast> head, const std::vector<std::int64_t>& positions) {
            if (head.ndim() != 1 || head.shape(0) != spec.head_dim())
                posenc::detail::raise("head.size", static_cast<long long>(head.size()),
                                      "must be a vector of head_dim " + std::to_string(spec.head_dim()));
            for (std::size_t a = 0; a < positions.size(); ++a)
                require_angle_range("positions[" + std::to_string(a) + "]", positions[a], max_inv_freq(table));
            std::vector<double> out(head.data(), head.data() + head.shape(0));
            apply_multi_axis_rope_reference(spec, table, layout, out.data(), positions);
            return to_array(out);
        },
        py::arg("spec"), py::arg("table"), py::arg("layout"), py::arg("head"), py::arg("positions"),
        "One head rotated with pair i at positions[layout.axis_of_pair(i)] (one position per axis),\n"
        "otherwise exactly apply_rope_reference; equal positions give the 1-D result. Returns float64.");
}

/// RopeGroup: one group of layers sharing a spec and a scaling.
void bind_rope_group(py::module_& m)
{
    // ---- groups and models --------------------------------------------------------------------
    py::class_<RopeGroup>(m, "RopeGroup",
                          "One RoPE configuration shared by a set of layers, named by Hugging Face's layer type\n"
                          "('full_attention', 'sliding_attention', or 'default').")
        .def_static(
            "make",
            [](std::string name, const RopeSpec& spec, const Scaling& scaling, std::int64_t max_position_embeddings) {
                return RopeGroup::make(std::move(name), spec, scaling, max_position_embeddings);
            },
            py::arg("name"), py::arg("spec"), py::arg("scaling") = Scaling {NoScaling {}},
            py::arg("max_position_embeddings") = 0, "A group whose attention factor is the one its scaling gives.")
        .def_readonly("name", &RopeGroup::name)
        .def_readonly("spec", &RopeGroup::spec)
        .def_readonly("scaling", &RopeGroup::scaling)
        .def_readonly("max_position_embeddings", &RopeGroup::max_position_embeddings)
        .def_readonly("original_length", &RopeGroup::original_length)
        .def_readonly("attention_factor", &RopeGroup::attention_factor)
        .def_readonly("softmax_scale_multiplier", &RopeGroup::softmax_scale_multiplier)
        .def_readwrite("inverse_rope_on_output", &RopeGroup::inverse_rope_on_output,
                       "True when the model rotates its attention output's rotated slice back (DeepSeek-V4).")
        .def("table", &group_table, py::arg("sequence_length") = py::none(), py::arg("precision") = Precision::exact,
             "The group's table (its attention factor), at init or for `sequence_length` tokens.")
        .def("__repr__", [](const RopeGroup& g) {
            return "RopeGroup('" + g.name + "', base=" + posenc::detail::format_value(g.spec.base()) + ", scaling='" +
                   scaling_type_name(g.scaling) + "')";
        });
}

/// ModelRope: every layer's group.
void bind_model_rope_class(py::module_& m)
{
    py::class_<ModelRope>(
        m, "ModelRope",
        "The rotary embedding of a whole model: for each layer no RoPE (NoPE) or a named group\n"
        "(RopeSpec, Scaling, lengths, attention factor, softmax multiplier), and the multi-axis\n"
        "layout where positions have several axes (M-RoPE). table_for_layer(i) gives layer i's table.")
        .def(py::init<std::vector<RopeGroup>, std::vector<int>, std::optional<MultiAxisLayout>>(), py::arg("groups"),
             py::arg("layer_groups"), py::arg("multi_axis") = py::none())
        .def_static("uniform", &ModelRope::uniform, py::arg("group"), py::arg("num_layers") = py::none(),
                    py::arg("multi_axis") = py::none())
        .def_readonly_static("no_rope", &ModelRope::no_rope)
        .def_property_readonly("num_layers", &ModelRope::num_layers)
        .def_property_readonly("groups", &ModelRope::groups)
        .def_property_readonly("num_groups", &ModelRope::num_groups)
        .def("group", &ModelRope::group, py::arg("name"), py::return_value_policy::copy)
        .def("primary_group", &ModelRope::primary_group, py::return_value_policy::copy,
             "The only group, else 'full_attention', else the first.")
        .def("group_index_of_layer", &ModelRope::group_index_of_layer, py::arg("layer"))
        .def("layer_has_rope", &ModelRope::layer_has_rope, py::arg("layer"))
        .def("group_of_layer", &ModelRope::group_of_layer, py::arg("layer"), py::return_value_policy::copy)
        .def(
            "table_for_layer",
            [](const ModelRope& r, int layer, std::optional<std::int64_t> sequence_length, Precision precision) {
                return group_table(r.group_of_layer(layer), sequence_length, precision);
            },
            py::arg("layer"), py::arg("sequence_length") = py::none(), py::arg("precision") = Precision::exact,
            "Layer i's table; raises posenc.Error for a NoPE layer ('layer 3 has no RoPE (NoPE layer) ...').")
        .def("nope_layers", &ModelRope::nope_layers)
        .def("layers_of_group", &ModelRope::layers_of_group, py::arg("group_index"))
        .def_property_readonly("layer_map", &ModelRope::layer_map)
        .def_property_readonly("multi_axis", &ModelRope::multi_axis)
        .def("with_query_scale", &ModelRope::with_query_scale, py::arg("scale"), py::arg("layers"),
             "A copy whose listed layers' queries are multiplied by the QueryScale.")
        .def_property_readonly(
            "query_scale",
            [](const ModelRope& r) -> py::object {
                if (!r.query_scale()) return py::none();
                return py::make_tuple(r.query_scale()->scale, r.query_scale()->layers);
            },
            "(QueryScale, layers) or None.")
        .def("query_multiplier", &ModelRope::query_multiplier, py::arg("layer"), py::arg("position"),
             "The query multiplier of a layer at a position (1 when the layer has no query scale).");
}

/// QkNormFacts, MlaFacts and HfModel.
void bind_model_facts(py::module_& m)
{
    py::class_<hf::QkNormFacts>(
        m, "QkNormFacts",
        "A model's QK-norm around RoPE (posenc/models/hf_attention_facts.hpp): kind 'none', "
        "'rms_weight', 'rms_one_plus_weight', 'rms_no_weight', 'layer_norm' or 'other'; scope "
        "'per_head', 'per_head_own_weight' or 'per_projection'; place 'before_rope' or 'after_rope'.")
        .def_property_readonly("kind", [](const hf::QkNormFacts& f) { return hf::to_string(f.kind); })
        .def_property_readonly("scope", [](const hf::QkNormFacts& f) { return hf::to_string(f.scope); })
        .def_property_readonly("place", [](const hf::QkNormFacts& f) { return hf::to_string(f.place); })
        .def_readonly("source", &hf::QkNormFacts::source)
        .def_property_readonly("present", &hf::QkNormFacts::present);
    py::class_<hf::MlaFacts>(
        m, "MlaFacts",
        "MLA's layout: the rotated slice at query_rope_offset / key_rope_offset of the "
        "qk_head_dim-wide heads, the key's rope part shared by every head, and the config's sizes.")
        .def_readonly("qk_nope_head_dim", &hf::MlaFacts::qk_nope_head_dim)
        .def_readonly("qk_rope_head_dim", &hf::MlaFacts::qk_rope_head_dim)
        .def_readonly("qk_head_dim", &hf::MlaFacts::qk_head_dim)
        .def_readonly("query_rope_offset", &hf::MlaFacts::query_rope_offset)
        .def_readonly("key_rope_offset", &hf::MlaFacts::key_rope_offset)
        .def_readonly("key_rope_shared", &hf::MlaFacts::key_rope_shared)
        .def_readonly("v_head_dim", &hf::MlaFacts::v_head_dim)
        .def_readonly("kv_lora_rank", &hf::MlaFacts::kv_lora_rank)
        .def_readonly("q_lora_rank", &hf::MlaFacts::q_lora_rank);

    py::class_<hf::HfModel>(m, "HfModel",
                            "A whole model read from a config.json: its ModelRope plus warnings and notes.")
        .def_readonly("name", &hf::HfModel::name)
        .def_readonly("model_type", &hf::HfModel::model_type)
        .def_readonly("rope", &hf::HfModel::rope)
        .def_readonly("qk_head_dim", &hf::HfModel::qk_head_dim)
        .def_readonly("warnings", &hf::HfModel::warnings)
        .def_readonly("notes", &hf::HfModel::notes)
        .def_readonly("num_attention_heads", &hf::HfModel::num_attention_heads)
        .def_readonly("num_key_value_heads", &hf::HfModel::num_key_value_heads)
        .def_readonly("hidden_size", &hf::HfModel::hidden_size)
        .def_readonly("rms_norm_eps", &hf::HfModel::rms_norm_eps)
        .def_readonly("qk_norm", &hf::HfModel::qk_norm)
        .def_readonly("mla", &hf::HfModel::mla)
        .def_readonly("indexer", &hf::HfModel::indexer);
}

/// The whole-model config readers and frequency_table of a group.
void bind_model_readers(py::module_& m)
{
    m.def(
        "parse_hf_model",
        [](const std::string& text, bool assume_half_split) {
            hf::ReadOptions options;
            options.assume_half_split = assume_half_split;
            return hf::parse_model(text, options);
        },
        py::arg("text"), py::kw_only(), py::arg("assume_half_split") = false,
        "A config.json's text -> HfModel (every layer's RoPE). A model_type posenc does not know is\n"
        "refused unless assume_half_split=True.");
    m.def(
        "model_from_hf_config",
        [](const py::object& source, bool assume_half_split) {
            hf::ReadOptions options;
            options.assume_half_split = assume_half_split;
            if (py::isinstance<py::dict>(source))
                return hf::parse_model(py::module_::import("json").attr("dumps")(source).cast<std::string>(), options);
            return hf::read_model(py::module_::import("os").attr("fspath")(source).cast<std::string>(), options);
        },
        py::arg("source"), py::kw_only(), py::arg("assume_half_split") = false,
        "The whole model of a Hugging Face config (a path or a dict): nested text_config, layer_types,\n"
        "per-layer-type rope_parameters, NoPE layers, M-RoPE. Returns HfModel; .rope is the ModelRope.\n"
        "A model_type posenc does not know is refused (its code decides the pairing) unless\n"
        "assume_half_split=True: half_split pairs, generic defaults, and a warning.");

    m.def(
        "frequency_table",
        [](const RopeGroup& g, const Scaling& s, std::optional<std::int64_t> n, Precision precision) {
            return n ? frequency_table(g.spec, s, *n, precision) : frequency_table(g.spec, s, precision);
        },
        py::arg("group"), py::arg("scaling") = Scaling {NoScaling {}}, py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact);
}

/// The whole-model presets (posenc.presets.*_rope).
void bind_model_presets(py::module_& m)
{
    // ---- whole-model presets ------------------------------------------------------------------
    py::module_ presets = m.attr("presets").cast<py::module_>();
    presets.def("gemma_3_4b_it_rope", &models::gemma_3_4b_it_rope,
                "google/gemma-3-4b-it: 34 layers; sliding (base 1e4) unless (i + 1) % 6 == 0: full (1e6, linear x8).");
    presets.def("llama_4_scout_rope", &models::llama_4_scout_rope,
                "Llama-4-Scout text model: 48 layers, every 4th NoPE, interleaved, llama3 x16.");
    presets.def("smollm3_3b_rope", &models::smollm3_3b_rope, "SmolLM3-3B: 36 layers, every 4th NoPE, base 5e6.");
    presets.def("qwen2_5_vl_7b_rope", &models::qwen2_5_vl_7b_rope,
                "Qwen2.5-VL-7B language model: 28 layers, M-RoPE sections [16, 24, 24].");
    presets.def("gemma_4_e2b_rope", &models::gemma_4_e2b_rope,
                "Gemma 4 E2B text model: 35 layers; full attention every 5th (head 512, proportional 0.25).");
    presets.def("hunyuan_ocr_rope", &models::hunyuan_ocr_rope,
                "HunyuanOCR language model: 24 layers, NTK alpha 1000, four axes [16, 16, 16, 16].");
    presets.def("ernie_4_5_vl_28b_a3b_rope", &models::ernie_4_5_vl_28b_a3b_rope,
                "ERNIE-4.5-VL-28B-A3B language model: 28 layers, interleaved, 3-D RoPE [22, 22, 20].");
}

}  // namespace

void bind_model_rope(py::module_& m)
{
    bind_multi_axis_layout(m);
    bind_multi_axis_functions(m);
    bind_rope_group(m);
    bind_model_rope_class(m);
    bind_model_facts(m);
    bind_model_readers(m);
    bind_model_presets(m);
}

}  // namespace posenc::python
