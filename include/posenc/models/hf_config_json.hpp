// SPDX-License-Identifier: MIT
// posenc/models/hf_config_json.hpp: read a whole model's RoPE out of a Hugging Face config.json.
//
// Optional: the only part of posenc that needs nlohmann_json (Debian nlohmann-json3-dev).
// resolve_model_config gives an HfModelConfig: the RoPE groups (one HfRopeConfig each, resolved
// by detail/hf_group_json.hpp), which layer uses which group or none, and the M-RoPE sections;
// hf_config.hpp turns it into a ModelRope (model_rope.hpp).
//
// What it reads, as Hugging Face transformers does:
//   text_config        multimodal wrappers (Gemma 3 4B+, Llama 4, Qwen2.5-VL, Qwen3-VL) nest the
//                      language model there; its model_type defaults to the wrapper's text type
//                      (gemma3 -> gemma3_text, llama4 -> llama4_text, qwen2_5_vl -> qwen2_5_vl_text).
//   layer_types        one entry per layer ("full_attention", "sliding_attention",
//                      "linear_attention", "chunked_attention"); derived, when absent, from
//                      sliding_window_pattern (Gemma 3: 6, Cohere 2 and EXAONE 4: 4; layer i is
//                      sliding unless (i + 1) % pattern == 0) or full_attention_interval
//                      (Qwen3-Next: 4; linear unless (i + 1) % interval == 0).
//   rope_parameters    v5: one dict, or one dict per layer type ({"sliding_attention": {...},
//                      "full_attention": {...}}); v4: rope_scaling (+ rope_theta). A config with
//                      both that disagree is refused, naming both.
//   rope_local_base_freq   Gemma 3 (v4 layout): the sliding layers' base, unscaled.
//   no_rope_layers     SmolLM3, Llama 4: entry i == 1 means layer i USES RoPE, 0 means NoPE;
//                      absent (Llama 4: also empty) -> int((i + 1) % no_rope_layer_interval != 0),
//                      interval default 4 (every 4th layer NoPE).
//   NoPE by layer type Cohere 2: full_attention layers never rotate; EXAONE 4: not when a
//                      sliding window is set (sliding_window absent = the class default 4096);
//                      Qwen3-Next: linear_attention layers have no RoPE.
//   mrope_section      Qwen2-VL, Qwen2.5-VL (contiguous sections), Qwen3-VL (always interleaved,
//                      whatever mrope_interleaved says; default [24, 20, 20]): pairs per position
//                      axis [temporal, height, width].
//   rope_interleave    DeepSeek-V3 only (false: half_split); ignored with a warning by other known
//                      families, refused under an unknown model_type.
//   class-default dict gpt_oss (YaRN x32), apertus (llama3 x8), ministral3 (YaRN x16) when the
//                      config has no RoPE dict.
//   num_layers         LongCat Flash: two attention sublayers per decoder layer, 2 * num_layers
//                      attention layers (class default 28 decoder layers).
// Families and their pairing and defaults: hf_families.hpp; the families refused by name (and
// when): its family_refusals.
//
// The rule: a key that changes RoPE and that posenc cannot represent is an error naming the key.
// A model_type posenc does not know is refused, naming model_type (its code decides the pairing
// and the class defaults). ReadOptions::assume_half_split opts in to reading it with half_split
// pairing, generic defaults and a one-line warning, as long as its config uses no key whose
// meaning depends on the model's code (those are refused either way). A config without model_type
// names no model: it is read as the generic description (half_split), with that warning.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/models/detail/hf_config_text.hpp"
#include "posenc/models/detail/hf_group_json.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf {

/// How the reader treats a config it cannot settle from posenc's family table alone.
struct ReadOptions {
    /// Read a model_type posenc does not know (none of hf_families.hpp's rows or refusals) with
    /// half_split pairing (rotate_half) and generic defaults, plus a warning saying so. Off (the
    /// default): such a config is refused with an error naming model_type, since the model's own
    /// code decides its pairing and the config does not say it.
    bool assume_half_split = false;
};

namespace detail_json {

/// One RoPE group of a model: the layer type that names it, and its resolved values.
struct HfGroupConfig {
    std::string name;  ///< "default" when the model has one group, else the layer type
    HfRopeConfig config;
};

/// A per-position query multiplier read from the config (query_scale.hpp): the query of each
/// listed layer times 1 + beta * ln(1 + floor((pos + position_offset) / divisor)).
struct HfQueryScale {
    double beta = 0;
    std::int64_t divisor = 1;
    std::int64_t position_offset = 0;
    std::vector<int> layers;
    std::string key;  ///< the config key of beta, for messages
};

/// A whole model's RoPE as read from a config.json; see the file comment.
struct HfModelConfig {
    std::string name_or_path;  ///< "_name_or_path" of the outer config, "" when absent
    std::string model_type;    ///< the language model's type (text_config's when nested)
    std::string key_prefix;    ///< "text_config." when the language model is nested, else ""
    std::optional<int> num_layers;
    std::vector<HfGroupConfig> groups;
    /// Group index per layer, -1 for a layer without RoPE; empty when the number of layers is unknown.
    std::vector<int> layer_groups;
    std::vector<int> mrope_section;  ///< empty unless the model uses M-RoPE
    bool mrope_interleaved = false;
    /// HunYuan-VL: the sections cut the head's coordinates, not its pairs (MultiAxisLayout::coordinate_sections).
    bool mrope_coordinate_sections = false;
    /// ERNIE-4.5-VL: [h, w, t] with h and w alternating pair by pair (MultiAxisLayout::height_width_alternating).
    bool mrope_height_width_alternating = false;
    /// The attention's sizes, so that an engine need not read config.json a second time:
    /// num_attention_heads (GPT-2 style: n_head), num_key_value_heads (absent: num_attention_heads,
    /// as the configuration classes set it), hidden_size (n_embd); empty when the config has none.
    std::optional<int> num_attention_heads, num_key_value_heads, hidden_size;
    std::optional<double> rms_norm_eps;  ///< the RMSNorm epsilon, when the config gives one
    std::optional<HfQueryScale> query_scale;  ///< Llama 4's temperature tuning, Ministral 3's beta
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;

    /// The group the single-table views describe: the only one, else "full_attention", else the first.
    const HfGroupConfig& primary_group() const noexcept
    {
        if (groups.size() > 1)
            for (const HfGroupConfig& g : groups)
                if (g.name == "full_attention") return g;
        return groups.front();
    }
    HfGroupConfig& primary_group() noexcept
    {
        return const_cast<HfGroupConfig&>(static_cast<const HfModelConfig&>(*this).primary_group());
    }
};


/// Parses config.json text (after scan_text) and hands the document, with its underflowing
/// literals registered in raw_literals() for the duration of the call, to `resolve`.
template <class Resolve>
auto with_parsed_text(std::string_view text, Resolve&& resolve) -> decltype(resolve(std::declval<const json&>()))
{
    require_no_nul(text, "config");
    const std::vector<LossyLiteral> lossy = scan_text(text);
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
        fail("config", "expected valid JSON (" + ellipsized(e.what(), 160) + ")", std::to_string(text.size()) + " bytes");
    }
    struct Registry {
        Registry() { raw_literals().clear(); }
        ~Registry() { raw_literals().clear(); }
    } registry;
    for (const LossyLiteral& l : lossy) {
        try {
            raw_literals()[&j.at(json::json_pointer(l.pointer))] = l.text;
        } catch (const json::exception&) {
            // a duplicate key the parser dropped, or a key the scan could not decode: nothing to show
        }
    }
    return resolve(j);
}

/// Reads a whole model out of a config object: one member function per section of the config
/// and one per layer rule (hf_families.hpp LayerRule), called in the order of read().
class ModelReader
{
public:
    ModelReader(const json& root, const ReadOptions& options) : root(root), options(options) {}

    HfModelConfig read()
    {
        if (!root.is_object()) fail_json("config", "expected a JSON object", root);
        read_identity();
        refuse_other_position_encodings();
        apply_family_refusal();
        check_rope_interleave();
        check_model_specific_keys();
        check_unknown_family();
        read_num_layers();
        read_attention_sizes();
        read_layer_types();
        decide_rotation();
        require_a_rope_layer();
        build_groups();
        build_layer_map();
        read_mrope();
        read_query_scale();
        // Key paths of a nested config carry its prefix.
        for (HfGroupConfig& g : out.groups)
            for (ConfigWarning& w : g.config.warnings) w.key = pre + w.key;
        return out;
    }

private:
    const json& root;
    const ReadOptions& options;
    HfModelConfig out;
    const json* text = nullptr;  ///< the language model's object (root, or text_config)
    std::string pre;             ///< "text_config." when nested, else ""
    const FamilyRules* family = nullptr;
    std::string type_shown;      ///< model_type quoted, or "(absent)"
    const json* rope_parameters = nullptr;
    bool per_type = false;       ///< rope_parameters holds one dict per layer type
    LayerRule rule = LayerRule::uniform;
    std::vector<std::string> types;        ///< layer type per layer (empty: no layer map)
    std::vector<bool> rotates;             ///< whether layer i has RoPE
    std::vector<std::string> group_types;  ///< the layer type each group serves ("" = every RoPE layer)
    json class_default_rope;               ///< a family's class-default per-layer-type rope_parameters

    int need_layers(const char* why) const
    {
        if (!out.num_layers)
            fail(pre + "num_hidden_layers", std::string("expected a positive integer (") + why + ")", "nothing");
        return *out.num_layers;
    }

    /// The layer types in order of first use (only those of layers with RoPE when `rotating_only`).
    std::vector<std::string> distinct_layer_types(bool rotating_only) const
    {
        std::vector<std::string> seen;
        for (std::size_t i = 0; i < types.size(); ++i)
            if ((!rotating_only || rotates[i]) && std::find(seen.begin(), seen.end(), types[i]) == seen.end())
                seen.push_back(types[i]);
        return seen;
    }

    HfRopeConfig resolve_group(const GroupContext& context) const
    {
        HfRopeConfig c = resolve_config_values(*text, context);
        if (c.name_or_path.empty()) c.name_or_path = out.name_or_path;
        return c;
    }

    GroupContext base_context() const
    {
        GroupContext base;
        base.model_type = out.model_type;
        base.name_or_path = out.name_or_path;
        return base;
    }


    /// model_type, _name_or_path, the language model's object (text_config when nested), the family row.
    void read_identity()
    {
        std::string outer_type;
        if (const json* v = member(root, "model_type")) {
            if (!v->is_string()) fail_json("model_type", "expected a string", *v);
            outer_type = v->get<std::string>();
        }
        if (const json* v = member(root, "_name_or_path")) {
            if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
            out.name_or_path = v->get<std::string>();
        }

        text = &root;
        if (const json* v = member(root, "text_config")) {
            if (!v->is_object()) fail_json("text_config", "expected an object or null", *v);
            text = v;
            out.key_prefix = "text_config.";
        }
        pre = out.key_prefix;
        out.model_type = text == &root ? outer_type : std::string(text_model_type_of(outer_type));
        if (text != &root)
            if (const json* v = member(*text, "model_type")) {
                if (!v->is_string()) fail_json(pre + "model_type", "expected a string", *v);
                out.model_type = v->get<std::string>();
            }
        family = find_family(out.model_type);
        type_shown = out.model_type.empty() ? "(absent)" : ellipsized('"' + out.model_type + '"');  // as shown() cuts
        rope_parameters = member(*text, "rope_parameters");
        per_type = is_per_layer_type(rope_parameters);
        rule = family ? family->layers : LayerRule::uniform;
        if (rule == LayerRule::gemma4_per_layer_type) use_gemma4_rope_parameters();
        if (rule == LayerRule::deepseek_v4_main_compress) use_deepseek_v4_rope_parameters();
    }

    /// Per-position query scaling (hf_families.hpp trait::llama4_temperature_tuning, trait::llama_4_scaling_beta).
    void read_query_scale()
    {
        if (family && family->has(trait::llama4_temperature_tuning)) llama4_temperature_tuning();
        if (family && family->has(trait::llama_4_scaling_beta)) llama_4_scaling_beta();
    }

    /// llama4/modeling_llama4.py: NoPE layers' query times 1 + attn_scale ln(1 + floor((pos + 1) / floor_scale)).
    void llama4_temperature_tuning()
    {
        if (const json* v = member(*text, "attn_temperature_tuning")) {
            if (!v->is_boolean()) fail_json(pre + "attn_temperature_tuning", "expected true or false", *v);
            if (!v->get<bool>()) return;
        }
        HfQueryScale q{0.1, 8192, 1, {}, pre + "attn_scale"};
        if (const json* v = member(*text, "attn_scale")) {
            q.beta = number(*v, pre + "attn_scale", "expected a finite number >= 0");
            if (!(q.beta >= 0.0)) fail_json(pre + "attn_scale", "expected a finite number >= 0", *v);
        }
        if (const json* v = member(*text, "floor_scale")) q.divisor = positive_int(*v, pre + "floor_scale");
        for (std::size_t i = 0; i < out.layer_groups.size(); ++i)
            if (out.layer_groups[i] < 0) q.layers.push_back(static_cast<int>(i));
        if (!q.layers.empty() && q.beta != 0.0) out.query_scale = q;
    }

    /// ministral3/modeling_ministral3.py: every query times 1 + beta ln(1 + floor(pos / L0)), beta and
    /// L0 from the RoPE dict (rope_parameters.get(...): absent, the forward pass fails).
    void llama_4_scaling_beta()
    {
        const HfRopeConfig& c = out.primary_group().config;
        json class_default;
        const json* dict = member(*text, "rope_parameters");
        if (!dict) dict = member(*text, "rope_scaling");
        std::string dict_key = c.scaling_key.empty() ? std::string("rope_parameters") : c.scaling_key;
        std::string shown_as;
        if (!dict && !family->default_rope.empty()) {
            class_default = json::parse(family->default_rope.begin(), family->default_rope.end());
            dict = &class_default;
            shown_as = " (the class-default rope_parameters)";
        }
        const std::string key = pre + dict_key + ".llama_4_scaling_beta";
        const json* v = dict && dict->is_object() ? member(*dict, "llama_4_scaling_beta") : nullptr;
        if (!v)
            fail(key, "expected a number: model_type " + type_shown + "'s attention multiplies every query by 1 + "
                      "llama_4_scaling_beta * ln(1 + floor(position / original_max_position_embeddings)) and reads it "
                      "from the RoPE dict on every forward pass",
                 "nothing");
        HfQueryScale q{number(*v, key, "expected a finite number >= 0"), 1, 0, {}, key};
        if (!(q.beta >= 0.0)) fail(key, "expected a finite number >= 0", shown(*v) + shown_as);
        if (q.beta == 0.0) return;
        if (!c.original_max_position_embeddings)
            fail(pre + dict_key + ".original_max_position_embeddings",
                 "expected a positive integer: model_type " + type_shown + "'s query scale divides the position by it",
                 "nothing");
        q.divisor = *c.original_max_position_embeddings;
        for (std::size_t i = 0; i < out.layer_groups.size(); ++i)
            if (out.layer_groups[i] >= 0) q.layers.push_back(static_cast<int>(i));
        if (out.layer_groups.empty())
            fail(pre + "num_hidden_layers", "expected a positive integer (the query scale applies to every layer)",
                 "nothing");
        out.query_scale = q;
    }

    /// Gemma 4 (gemma4/configuration_gemma4.py): rope_parameters one dict per layer type, the class
    /// default when absent (convert_rope_params_to_dict keeps no legacy rope_scaling form).
    void use_gemma4_rope_parameters()
    {
        if (rope_parameters && !per_type)
            fail(pre + "rope_parameters", "expected one dict per layer type (\"sliding_attention\", \"full_attention\"): "
                                          "model_type " + type_shown + " looks its dicts up by layer type",
                 shown(*rope_parameters));
        if (const json* v = member(*text, "rope_scaling"))
            fail(pre + "rope_scaling", "expected no rope_scaling: model_type " + type_shown +
                                           " reads rope_parameters per layer type only",
                 shown(*v));
        if (rope_parameters) return;
        class_default_rope = json::parse(family->default_rope.begin(), family->default_rope.end());
        rope_parameters = &class_default_rope;
        per_type = true;
        out.notes.push_back("rope_parameters absent: " + out.model_type + "'s class default " +
                            std::string(family->default_rope));
    }

    /// DeepSeek-V4 (deepseek_v4/configuration_deepseek_v4.py __post_init__): rope_parameters {"main",
    /// "compress"} as given, else built as transformers folds the config: main {default, rope_theta},
    /// compress {the flat dict's keys (YaRN), compress_rope_theta (160000), attention_factor 1 for yarn
    /// unless given}, both with partial_rotary_factor = the top-level one, else the legacy
    /// qk_rope_head_dim / head_dim, else 64 / 512.
    void use_deepseek_v4_rope_parameters()
    {
        if (per_type) return;
        double head_dim = 512.0;
        if (const json* v = member(*text, "head_dim")) head_dim = positive_int(*v, pre + "head_dim");
        double prf = 64.0 / 512.0;
        if (const json* v = member(*text, "qk_rope_head_dim")) prf = positive_int(*v, pre + "qk_rope_head_dim") / head_dim;
        if (const json* v = member(*text, "partial_rotary_factor")) prf = number(*v, pre + "partial_rotary_factor");
        json flat = json::object();
        if (rope_parameters && rope_parameters->is_object()) flat = *rope_parameters;
        else if (const json* v = member(*text, "rope_scaling"); v && v->is_object()) flat = *v;
        json compress = flat;
        compress.erase("main");
        compress.erase("compress");
        compress["rope_theta"] = 160000.0;
        if (const json* v = member(*text, "compress_rope_theta")) compress["rope_theta"] = *v;
        compress["partial_rotary_factor"] = prf;
        if (!compress.contains("rope_type") && !compress.contains("type")) compress["rope_type"] = "default";
        const json& type = compress.contains("rope_type") ? compress["rope_type"] : compress["type"];
        if (type == "yarn" && !compress.contains("attention_factor")) compress["attention_factor"] = 1.0;
        json main = {{"rope_type", "default"}, {"rope_theta", 10000.0}, {"partial_rotary_factor", prf}};
        if (const json* v = member(*text, "rope_theta")) main["rope_theta"] = *v;
        class_default_rope = {{"main", main}, {"compress", compress}};
        rope_parameters = &class_default_rope;
        per_type = true;
        out.notes.push_back("rope_parameters {main, compress} built as transformers folds the config: " +
                            ellipsized(class_default_rope.dump(), 400));
    }

    /// DeepSeek-V4's layer types (sliding_attention, compressed_sparse_attention,
    /// heavily_compressed_attention) as the rope each uses: "main" or "compress".
    void deepseek_v4_rope_labels()
    {
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] != "sliding_attention" && types[i] != "compressed_sparse_attention" &&
                types[i] != "heavily_compressed_attention")
                fail(pre + "layer_types[" + std::to_string(i) + "]",
                     "expected sliding_attention, compressed_sparse_attention or heavily_compressed_attention",
                     '"' + ellipsized(types[i]) + '"');
            types[i] = types[i] == "sliding_attention" ? "main" : "compress";
        }
    }

    /// DeepSeek-V4 without layer_types: the legacy compress_ratios (0 sliding, 4 CSA, 128 HCA), else two
    /// heavily compressed layers, then compressed_sparse_attention at odd i, heavily compressed at even i.
    void deepseek_v4_layer_types()
    {
        const int n = need_layers("the layer pattern needs it");
        if (const json* ratios = member(*text, "compress_ratios")) {
            if (!ratios->is_array()) fail_json(pre + "compress_ratios", "expected a list of 0, 4 or 128", *ratios);
            for (std::size_t k = 0; k < ratios->size() && k < static_cast<std::size_t>(n); ++k) {
                const std::int64_t r = integer((*ratios)[k], pre + "compress_ratios[" + std::to_string(k) + "]", "expected 0, 4 or 128");
                if (r != 0 && r != 4 && r != 128)
                    fail_json(pre + "compress_ratios[" + std::to_string(k) + "]", "expected 0, 4 or 128", (*ratios)[k]);
                types.push_back(r == 0 ? "sliding_attention" : r == 4 ? "compressed_sparse_attention" : "heavily_compressed_attention");
            }
            if (types.size() != static_cast<std::size_t>(n))
                fail(pre + "compress_ratios", "expected at least one entry per layer (" + std::to_string(n) + ")",
                     std::to_string(ratios->size()) + " entries");
            return;
        }
        for (int i = 0; i < n; ++i)
            types.push_back(i < 2 ? "heavily_compressed_attention"
                                  : ((i - 2) % 2 ? "compressed_sparse_attention" : "heavily_compressed_attention"));
    }

    /// Gemma 4's full_attention head dim: global_head_dim, class default 512.
    int global_head_dim()
    {
        if (const json* v = member(*text, "global_head_dim")) {
            const int h = positive_int(*v, pre + "global_head_dim");
            if (h > max_head_dim) fail_json(pre + "global_head_dim", "expected a positive integer <= 65536", *v);
            return h;
        }
        out.notes.push_back("global_head_dim absent: " + out.model_type + "'s class default 512");
        return 512;
    }

    /// ALiBi (Falcon, BLOOM, MPT) and position_embedding_type other than "rope".
    void refuse_other_position_encodings()
    {
        // Falcon's alibi (also BLOOM- and MPT-style configs): attention biases instead of RoPE.
        if (const json* v = member(*text, "alibi"); v && v->is_boolean() && v->get<bool>())
            fail(pre + "alibi", "expected false: ALiBi adds attention biases instead of rotating q and k, and posenc "
                                "describes RoPE only",
                 "true");
        // Qwen2.5-1M: dual chunk attention (vLLM's), which transformers does not implement: its qwen2 code
        // ignores the key and rotates as if it were absent, which is not what the model was trained for.
        if (const json* v = member(*text, "dual_chunk_attention_config"))
            fail(pre + "dual_chunk_attention_config",
                 "is not representable: dual chunk attention (Qwen2.5-1M) remaps positions per chunk, which "
                 "transformers does not implement and posenc does not describe; remove the key to read the plain "
                 "RoPE that transformers applies",
                 shown(*v));
        if (const json* v = member(*text, "position_embedding_type"); v && v->is_string() && v->get<std::string>() != "rope")
            fail(pre + "position_embedding_type", "expected \"rope\" (posenc describes RoPE only)", shown(*v));
    }

    /// The families posenc refuses, always or for some configs (hf_families.hpp family_refusals).
    void apply_family_refusal()
    {
        const FamilyRefusal* refusal = find_refusal(out.model_type);
        if (!refusal) return;
        const std::string reason = std::string(refusal->reason) + " (" + std::string(refusal->source) + ")";
        if (refusal->when == RefuseWhen::always) {
            const std::string key(refusal->key);
            if (const json* v = member(*text, key.c_str())) fail(pre + key, reason, shown(*v));
            fail(pre + "model_type", reason, type_shown);
        }
        // The single RoPE dict: rope_parameters, else rope_scaling (per-layer-type dicts say per
        // type what applies, and are read as given).
        const json* dict = rope_parameters;
        std::string dict_key = "rope_parameters";
        if (!dict || !dict->is_object()) dict = member(*text, "rope_scaling"), dict_key = "rope_scaling";
        if (refusal->when == RefuseWhen::unless_zero) {
            // The config's dict, else the class default's value of the key (transformers fills a
            // missing dict with it).
            const std::string key(refusal->key);
            std::string shown_value = "nothing";
            std::string path = pre + (dict && dict->is_object() ? dict_key : std::string("rope_parameters")) + "." + key;
            bool zero = false;
            if (dict && dict->is_object()) {
                if (const json* v = member(*dict, key.c_str())) {
                    zero = v->is_number() && v->get<double>() == 0.0;
                    shown_value = shown(*v);
                }
            } else if (family && !family->default_rope.empty()) {
                const json class_default = json::parse(family->default_rope.begin(), family->default_rope.end());
                if (const json* v = member(class_default, key.c_str())) {
                    zero = v->is_number() && v->get<double>() == 0.0;
                    shown_value = shown(*v) + " (the class-default rope_parameters)";
                }
            }
            if (!zero) fail(path, reason, shown_value);
        }
        if (refusal->when != RefuseWhen::unless_zero && !per_type && dict && dict->is_object()) {
            const json* type = member(*dict, "rope_type");
            std::string type_key = dict_key + ".rope_type";
            if (!type) type = member(*dict, "type"), type_key = dict_key + ".type";
            const std::string t = type && type->is_string() ? type->get<std::string>() : "default";
            const bool longrope = t == "longrope" || t == "su";
            const bool refused = refusal->when == RefuseWhen::scaled                   ? t != "default"
                                 : refusal->when == RefuseWhen::scaled_except_longrope ? t != "default" && !longrope
                                                                                       : longrope;
            if (refused) {
                const std::string key(refusal->key);
                if (const json* v = member(*dict, key.c_str())) fail(pre + dict_key + "." + key, reason, shown(*v));
                fail(pre + type_key, reason, shown(*type));
            }
        }
    }

    /// rope_interleave: read by the families whose code reads it (DeepSeek-V3); refused under an unknown model_type.
    void check_rope_interleave()
    {
        // rope_interleave: read by the families whose code reads it (DeepSeek-V3); a boolean under a
        // model_type posenc does not know is refused (its code decides the pairing).
        if (const json* v = member(*text, "rope_interleave"); v && v->is_boolean()) {
            if (!family)
                fail(pre + "rope_interleave", "is read only for model types posenc knows; model_type " + type_shown +
                                                  " is not one, and how its code uses this key cannot be told from the config",
                     shown(*v));
            if (!family->has(trait::reads_rope_interleave))
                out.warnings.push_back({pre + "rope_interleave", "model_type " + type_shown + "'s code does not read it; ignored"});
        }
    }

    /// Keys that only a known model's code gives a meaning.
    void check_model_specific_keys()
    {
        for (const char* key : model_specific_keys) {
            if (!member(*text, key)) continue;
            const std::string k = key;
            const bool used = family && ((k == "rope_local_base_freq" && family->layers == LayerRule::gemma3_local_base) ||
                                         ((k == "no_rope_layers" || k == "no_rope_layer_interval") &&
                                          family->layers == LayerRule::no_rope_layers) ||
                                         (k == "sliding_window_pattern" &&
                                          (family->layers == LayerRule::gemma3_local_base ||
                                           family->layers == LayerRule::nope_when_full)) ||
                                         (k == "full_attention_interval" && family->layers == LayerRule::linear_attention_nope) ||
                                         (k == "full_attn_idxs" && family->layers == LayerRule::conv_nope &&
                                          !family->has(trait::layer_types_required)) ||
                                         (k == "attn_layer_indices" && family->layers == LayerRule::mamba_nope));
            if (!family)
                fail(pre + k, "is read only for model types posenc knows; model_type " + type_shown +
                                  " is not one, and how its code uses this key cannot be told from the config",
                     shown(*member(*text, key)));
            if (!used && k != "sliding_window_pattern")
                out.warnings.push_back({pre + k, "model_type " + type_shown + "'s code does not read it; ignored"});
        }
    }

    /// A model_type posenc does not know: refused unless ReadOptions::assume_half_split.
    void check_unknown_family()
    {
        if (family) return;
        if (per_type)
            fail(pre + "rope_parameters", "expected one dict for model_type " + type_shown +
                                              " (per-layer-type RoPE is read only for model types posenc knows)",
                 shown(*rope_parameters));
        for (const char* dict_key : {"rope_parameters", "rope_scaling"})
            if (const json* d = member(*text, dict_key); d && d->is_object())
                for (const char* k : {"mrope_section", "mrope_interleaved", "alpha"})
                    if (const json* v = member(*d, k))
                        fail(pre + dict_key + "." + k,
                             "is read only for model types posenc knows; model_type " + type_shown +
                                 " is not one, and how its code uses this key cannot be told from the config",
                             shown(*v));
        if (!out.model_type.empty() && !options.assume_half_split)
            fail(pre + "model_type",
                 "expected a model type posenc knows (include/posenc/models/hf_families.hpp): the model's own code decides "
                 "its pairing (rotate_half or interleaved) and class defaults, and the config does not say them; to read it "
                 "with half_split pairing and generic defaults anyway, opt in with ReadOptions::assume_half_split "
                 "(posenc-inspect --assume-half-split)",
                 type_shown);
        out.warnings.push_back({pre + "model_type", type_shown + " is not a model type posenc knows; half_split "
                                                                 "pairing (rotate_half) and generic defaults assumed"});
    }

    /// num_hidden_layers (n_layer, num_layers); LongCat Flash's two sublayers per decoder layer.
    void read_num_layers()
    {
        for (const char* key : {"num_hidden_layers", "n_layer", "num_layers"})
            if (const json* v = member(*text, key)) {
                const int n = positive_int(*v, pre + key);
                if (n > ModelRope::max_layers) fail_json(pre + key, "expected a positive integer <= 1000000", *v);
                out.num_layers = n;
                break;
            }
        if (!out.num_layers && family && family->num_hidden_layers > 0 && !member(*text, "layer_types")) {
            out.num_layers = family->num_hidden_layers;
            out.notes.push_back("num_hidden_layers absent: " + out.model_type + "'s class default " +
                                std::to_string(family->num_hidden_layers));
        }
        if (family && family->layers == LayerRule::paired_sublayers) {
            // longcat_flash/modeling_longcat_flash.py: num_layers decoder layers of two attention
            // sublayers each; the model sets num_hidden_layers = 2 * num_layers.
            int decoder_layers = family->layer_pattern;
            if (const json* v = member(*text, "num_layers")) {
                decoder_layers = positive_int(*v, pre + "num_layers");
                if (decoder_layers > ModelRope::max_layers / 2)
                    fail_json(pre + "num_layers", "expected a positive integer <= 500000 (two attention layers each)", *v);
            } else {
                out.notes.push_back("num_layers absent: " + out.model_type + "'s class default " + std::to_string(decoder_layers));
            }
            const int attention_layers = 2 * decoder_layers;
            if (const json* v = member(*text, "num_hidden_layers"); v && !(v->is_number() && v->get<double>() == attention_layers))
                out.warnings.push_back({pre + "num_hidden_layers", "model_type " + type_shown +
                                                                       "'s model sets it to 2 * num_layers = " +
                                                                       std::to_string(attention_layers) + "; ignored"});
            out.num_layers = attention_layers;
            out.notes.push_back("two attention sublayers per decoder layer: " + std::to_string(attention_layers) +
                                " attention layers (2 * num_layers), every one with the one table");
        }
    }

    /// Head counts, hidden size and rms_norm_eps, for engines (not used by the RoPE tables).
    void read_attention_sizes()
    {
        auto count = [&](std::initializer_list<const char*> keys) -> std::optional<int> {
            for (const char* key : keys)
                if (const json* v = member(*text, key)) return positive_int(*v, pre + key);
            return std::nullopt;
        };
        out.num_attention_heads = count({"num_attention_heads", "n_head"});
        out.num_key_value_heads = count({"num_key_value_heads"});
        if (!out.num_key_value_heads) out.num_key_value_heads = out.num_attention_heads;
        out.hidden_size = count({"hidden_size", "n_embd"});
        if (const json* v = member(*text, "rms_norm_eps")) {
            const double eps = number(*v, pre + "rms_norm_eps", "expected a finite number > 0");
            if (!(eps > 0.0)) fail_json(pre + "rms_norm_eps", "expected a finite number > 0", *v);
            out.rms_norm_eps = eps;
        }
    }

    /// layer_types as given, else derived by the family's layer rule.
    void read_layer_types()
    {
        if (family && family->has(trait::layer_types_required) && !member(*text, "layer_types"))
            fail(pre + "layer_types", "expected one entry per layer: model_type " + type_shown +
                                          "'s code reads layer_types[i] for every layer and has no default for it",
                 "nothing");
        if (const json* v = member(*text, "layer_types"); v && rule == LayerRule::paired_sublayers) {
            out.warnings.push_back({pre + "layer_types", "model_type " + type_shown +
                                                             "'s code does not read it (every attention sublayer has the one "
                                                             "table); ignored"});
        }
        if (const json* v = member(*text, "layer_types"); v && rule == LayerRule::mamba_nope) {
            out.warnings.push_back({pre + "layer_types", "model_type " + type_shown +
                                                             "'s code takes its layers from attn_layer_indices; ignored"});
        }
        if (const json* v = member(*text, "layer_types"); v && rule != LayerRule::mamba_nope && rule != LayerRule::paired_sublayers) {
            types = layer_type_list(*v, pre + "layer_types");
            if (!out.num_layers) {
                if (types.empty() || types.size() > static_cast<std::size_t>(ModelRope::max_layers))
                    fail_json(pre + "layer_types", "expected one entry per layer (1 to 1000000)", *v);
                out.num_layers = static_cast<int>(types.size());
            }
            if (types.size() != static_cast<std::size_t>(*out.num_layers))
                fail(pre + "layer_types", "expected one entry per layer (num_hidden_layers " +
                                              std::to_string(*out.num_layers) + ")",
                     std::to_string(types.size()) + " entries");
        } else {
            derive_layer_types();
        }
        if (rule == LayerRule::deepseek_v4_main_compress) deepseek_v4_rope_labels();
        if (rule == LayerRule::gemma4_per_layer_type && !types.empty() && types.back() != "full_attention") {
            // gemma4/configuration_gemma4.py __post_init__: the last layer is forced to full_attention.
            out.warnings.push_back({pre + "layer_types", "the last entry is \"" + ellipsized(types.back()) +
                                                             "\"; transformers forces the last layer to full_attention "
                                                             "(write \"full_attention\" there to silence this)"});
            types.back() = "full_attention";
        }
        if (!family && !types.empty())
            for (std::size_t i = 1; i < types.size(); ++i)
                if (types[i] != types[0])
                    fail(pre + "layer_types[" + std::to_string(i) + "]",
                         "expected every layer of the same type for model_type " + type_shown +
                             " (whether its layer types share one RoPE cannot be told from the config)",
                         '"' + types[i] + '"');
    }

    /// Layer types from a pattern or from index lists, per layer rule.
    void derive_layer_types()
    {
        if (rule == LayerRule::gemma3_local_base || (per_type && out.model_type == "gemma3_text")) {
            types = pattern_layer_types(need_layers("Gemma 3's layer pattern needs it"),
                                        pattern_value(*text, "sliding_window_pattern", family->layer_pattern, pre),
                                        "sliding_attention", "full_attention");
        } else if (rule == LayerRule::nope_when_full) {
            const json* window = text->find("sliding_window") == text->end() ? nullptr : &(*text)["sliding_window"];
            const bool windowed = !window || !window->is_null();
            if (out.model_type == "exaone4" && !windowed)
                types.assign(static_cast<std::size_t>(need_layers("the layer map needs it")), "full_attention");
            else
                types = pattern_layer_types(need_layers("the layer pattern needs it"),
                                            pattern_value(*text, "sliding_window_pattern", family->layer_pattern, pre),
                                            "sliding_attention", "full_attention");
        } else if (rule == LayerRule::linear_attention_nope) {
            types = pattern_layer_types(need_layers("the layer pattern needs it"),
                                        pattern_value(*text, "full_attention_interval", family->layer_pattern, pre),
                                        "linear_attention", "full_attention");
        } else if (rule == LayerRule::gemma4_per_layer_type) {
            types = pattern_layer_types(need_layers("the layer pattern needs it"), family->layer_pattern,
                                        "sliding_attention", "full_attention");
        } else if (rule == LayerRule::deepseek_v4_main_compress) {
            deepseek_v4_layer_types();
        } else if (rule == LayerRule::tables_per_layer_type) {
            types = pattern_layer_types(need_layers("the layer pattern needs it"), family->layer_pattern,
                                        "sliding_attention", "full_attention");
        } else if (rule == LayerRule::mamba_nope) {
            mamba_layer_types();
        } else if (rule == LayerRule::conv_nope) {
            conv_layer_types();
        }
    }

    /// Bamba (bamba/configuration_bamba.py layers_block_type): attention at attn_layer_indices, mamba elsewhere.
    void mamba_layer_types()
    {
        // bamba/configuration_bamba.py (layers_block_type): attention at attn_layer_indices, mamba
        // elsewhere; without indices every layer is mamba.
        const int n = need_layers("the layer map needs it");
        types.assign(static_cast<std::size_t>(n), "mamba");
        const json* idxs = member(*text, "attn_layer_indices");
        if (idxs && !idxs->is_array()) fail_json(pre + "attn_layer_indices", "expected a list of layer indices", *idxs);
        if (idxs)
            for (std::size_t k = 0; k < idxs->size(); ++k) {
                const std::string path = pre + "attn_layer_indices[" + std::to_string(k) + "]";
                const std::int64_t i = integer((*idxs)[k], path, "expected a layer index >= 0");
                if (i < 0) fail_json(path, "expected a layer index >= 0", (*idxs)[k]);
                if (i < n) types[static_cast<std::size_t>(i)] = "attention";
            }
        if (std::find(types.begin(), types.end(), "attention") == types.end())
            fail(pre + "attn_layer_indices", "expected at least one attention layer below num_hidden_layers " +
                                                 std::to_string(n) + " (every other layer is mamba, without RoPE)",
                 idxs ? shown(*idxs) : std::string("nothing"));

    }

    /// LFM2 (lfm2/configuration_lfm2.py): attention at full_attn_idxs, conv elsewhere; absent: every layer attention.
    void conv_layer_types()
    {
        // lfm2/configuration_lfm2.py: attention at full_attn_idxs, conv elsewhere; absent: every layer attention.
        const int n = need_layers("the layer map needs it");
        types.assign(static_cast<std::size_t>(n), "full_attention");
        if (const json* idxs = member(*text, "full_attn_idxs")) {
            if (!idxs->is_array()) fail_json(pre + "full_attn_idxs", "expected a list of layer indices", *idxs);
            types.assign(static_cast<std::size_t>(n), "conv");
            for (std::size_t k = 0; k < idxs->size(); ++k) {
                const std::string path = pre + "full_attn_idxs[" + std::to_string(k) + "]";
                const std::int64_t i = integer((*idxs)[k], path, "expected a layer index >= 0");
                if (i < 0) fail_json(path, "expected a layer index >= 0", (*idxs)[k]);
                if (i < n) types[static_cast<std::size_t>(i)] = "full_attention";
            }
        }
    }

    /// Which layers rotate: the families whose layer types decide RoPE accept only the types their code tests for.
    void decide_rotation()
    {
        // The families whose layer types decide RoPE accept only the types their code tests for.
        if (rule == LayerRule::nope_when_full || rule == LayerRule::linear_attention_nope || rule == LayerRule::conv_nope) {
            const char* other = rule == LayerRule::nope_when_full        ? "sliding_attention"
                                : rule == LayerRule::linear_attention_nope ? "linear_attention"
                                                                           : "conv";
            for (std::size_t i = 0; i < types.size(); ++i)
                if (types[i] != "full_attention" && types[i] != other)
                    fail(pre + "layer_types[" + std::to_string(i) + "]",
                         std::string("expected \"") + other + "\" or \"full_attention\" for model_type " + type_shown,
                         '"' + types[i] + '"');
        }
        rotates.assign(types.size(), true);
        if (rule == LayerRule::nope_when_full) {
            const json* window = text->find("sliding_window") == text->end() ? nullptr : &(*text)["sliding_window"];
            const bool windowed = !window || !window->is_null();
            if (out.model_type == "cohere2" && !windowed)
                fail(pre + "sliding_window", "expected a window: Cohere 2 rotates only its sliding-window layers, so null "
                                             "leaves the model without RoPE",
                     "null");
            if (windowed)
                for (std::size_t i = 0; i < types.size(); ++i) rotates[i] = types[i] != "full_attention";
        } else if (rule == LayerRule::linear_attention_nope) {
            for (std::size_t i = 0; i < types.size(); ++i) rotates[i] = types[i] != "linear_attention";
        } else if (rule == LayerRule::conv_nope) {
            for (std::size_t i = 0; i < types.size(); ++i) rotates[i] = types[i] != "conv";
        } else if (rule == LayerRule::mamba_nope) {
            for (std::size_t i = 0; i < types.size(); ++i) rotates[i] = types[i] == "attention";
        } else if (rule == LayerRule::no_rope_layers) {
            no_rope_layer_rotation();
        }
    }

    /// A layer map without any RoPE layer describes no rotary embedding: refused, naming the key that
    /// decided it and what to change (ModelRope holds at least one group used by some layer).
    void require_a_rope_layer() const
    {
        if (types.empty() || per_type || std::find(rotates.begin(), rotates.end(), true) != rotates.end()) return;
        const std::string n = std::to_string(types.size());
        if (rule == LayerRule::no_rope_layers && member(*text, "no_rope_layers"))
            fail(pre + "no_rope_layers", "expected at least one 1 (a layer with RoPE): every entry is 0, so none of the " +
                                             n + " layers rotates and there is no RoPE to describe",
                 shown(*member(*text, "no_rope_layers")));
        if (rule == LayerRule::nope_when_full)
            fail(pre + "layer_types", "expected at least one \"sliding_attention\" layer: model_type " + type_shown +
                                          " rotates only its sliding-window layers and every one of the " + n +
                                          " layers is \"full_attention\", so no layer has RoPE",
                 member(*text, "layer_types") ? shown(*member(*text, "layer_types")) : n + " full_attention layers");
        fail(pre + "layer_types", "expected at least one layer with RoPE", n + " layers without");
    }

    /// SmolLM3, Llama 4: no_rope_layers[i] == 1 rotates; absent, every no_rope_layer_interval-th layer is NoPE.
    void no_rope_layer_rotation()
    {
        const int n = need_layers("no_rope_layers needs it");
        rotates.assign(static_cast<std::size_t>(n), true);
        const json* list = member(*text, "no_rope_layers");
        // Llama 4 treats an empty list as absent (`if self.no_rope_layers`); SmolLM3 only None.
        if (list && out.model_type == "llama4_text" && list->is_array() && list->empty()) list = nullptr;
        if (list) {
            if (!list->is_array() || list->size() < static_cast<std::size_t>(n))
                fail_json(pre + "no_rope_layers", "expected a list of 0 / 1 with at least one entry per layer (" +
                                                      std::to_string(n) + ")",
                          *list);
            for (int i = 0; i < n; ++i) {
                const json& e = (*list)[static_cast<std::size_t>(i)];
                const std::string path = pre + "no_rope_layers[" + std::to_string(i) + "]";
                if (e.is_boolean()) rotates[static_cast<std::size_t>(i)] = e.get<bool>();
                else {
                    const std::int64_t x = integer(e, path, "expected 1 (RoPE) or 0 (NoPE)");
                    if (x != 0 && x != 1) fail_json(path, "expected 1 (RoPE) or 0 (NoPE)", e);
                    rotates[static_cast<std::size_t>(i)] = x == 1;
                }
            }
        } else {
            int interval = family->layer_pattern;
            if (const json* v = member(*text, "no_rope_layer_interval")) interval = positive_int(*v, pre + "no_rope_layer_interval");
            for (int i = 0; i < n; ++i) rotates[static_cast<std::size_t>(i)] = (i + 1) % interval != 0;
            out.notes.push_back("no_rope_layers absent: every " + std::to_string(interval) +
                                "th layer has no RoPE (no_rope_layer_interval)");
        }
        if (types.empty()) types.assign(static_cast<std::size_t>(n), "full_attention");
    }

    /// One group per layer type with its own dict (per-layer-type rope_parameters, Gemma 3), else one.
    void build_groups()
    {
        if (per_type) per_layer_type_groups();
        else if (rule == LayerRule::gemma3_local_base) gemma3_groups();
        else if (rule == LayerRule::tables_per_layer_type) layer_type_groups();
        else single_group();
        if (out.groups.empty())
            fail(pre + "layer_types", "expected at least one layer with RoPE", std::to_string(types.size()) + " layers without");
        if (out.groups.size() == 1) out.groups.front().name = "default";
    }

    /// v5 per-layer-type rope_parameters: one group per layer type that rotates.
    void per_layer_type_groups()
    {
        const GroupContext base = base_context();
        group_types = distinct_layer_types(true);
        if (types.empty())
            fail(pre + "rope_parameters", "expected layer_types (or num_hidden_layers and a layer pattern) to say "
                                          "which layers use which entry",
                 shown(*rope_parameters));
        for (const std::string& t : group_types) {
            const json* dict = member(*rope_parameters, t.c_str());
            if (!dict)
                fail(pre + "rope_parameters", "expected an entry for layer type \"" + t + "\" (used in layer_types)",
                     shown(*rope_parameters));
            GroupContext c = base;
            c.dict = dict;
            c.dict_key = "rope_parameters." + t;
            c.per_layer_type = true;
            c.check_rope_scaling = t == "full_attention" || group_types.size() == 1;
            if (t == "full_attention" && family && family->has(trait::proportional_full_attention)) {
                c.head_dim = global_head_dim();
                c.head_dim_key = "global_head_dim";
            }
            out.groups.push_back({t, resolve_group(c)});
        }
    }

    /// Gemma 3 (v4 layout): sliding_attention layers at rope_local_base_freq, unscaled; full_attention with rope_theta and the scaling.
    void gemma3_groups()
    {
        const GroupContext base = base_context();
        group_types = distinct_layer_types(false);
        for (const std::string& t : group_types) {
            GroupContext c = base;
            if (t == "sliding_attention") {
                c.no_scaling = true;
                c.base = 10000.0;
                c.base_key = "rope_local_base_freq";
                if (const json* v = member(*text, "rope_local_base_freq"))
                    c.base = number(*v, pre + "rope_local_base_freq");
            } else if (t != "full_attention") {
                fail(pre + "layer_types", "expected \"sliding_attention\" or \"full_attention\" for Gemma 3", '"' + t + '"');
            }
            out.groups.push_back({t, resolve_group(c)});
        }
    }

    /// One table per layer type from the one dict (OLMo 3): groups named by layer type, equal tables.
    void layer_type_groups()
    {
        group_types = distinct_layer_types(true);
        // olmo3/configuration_olmo3.py (transformers 5.16): convert_rope_params_to_dict pops the top-level
        // rope_theta into full_attention's dict, then gives sliding_attention the class default 500000.
        if (const json* theta = member(*text, "rope_theta");
            theta && !(theta->is_number() && theta->get<double>() == 500000.0) && !member(*text, "rope_parameters") &&
            std::find(group_types.begin(), group_types.end(), "sliding_attention") != group_types.end())
            fail(pre + "rope_theta", "expected 500000 or per-layer-type rope_parameters: transformers gives only "
                                     "full_attention layers the top-level rope_theta and sliding_attention layers "
                                     "the class default 500000",
                 shown(*theta));
        for (const std::string& t : group_types) out.groups.push_back({t, resolve_group(base_context())});
    }

    /// One group for every RoPE layer; a family's class-default dict when the config has none.
    void single_group()
    {
        const GroupContext base = base_context();
        group_types.push_back("");
        // A family's class-default RoPE dict (gpt_oss: YaRN x32; apertus: llama3 x8) when the config has none.
        json class_default;
        GroupContext c = base;
        if (family && !family->default_rope.empty() && !member(*text, "rope_parameters") && !member(*text, "rope_scaling")) {
            class_default = json::parse(family->default_rope.begin(), family->default_rope.end());
            if (const json* theta = member(*text, "rope_theta"); theta && class_default.contains("rope_theta") &&
                                                                  !(theta->is_number() && *theta == class_default["rope_theta"]))
                fail(pre + "rope_theta", "expected no rope_theta without rope_parameters, or " +
                                             class_default["rope_theta"].dump() + ": model_type " + type_shown +
                                             "'s class-default rope_parameters carries its own rope_theta, and whether a "
                                             "top-level value replaces it depends on the transformers version",
                     shown(*theta));
            c.dict = &class_default;
            c.dict_key = "rope_parameters";
            out.notes.push_back("rope_parameters absent: " + out.model_type + "'s class default " +
                                std::string(family->default_rope));
        }
        out.groups.push_back({"default", resolve_group(c)});
    }

    /// The group index of each layer, -1 for NoPE.
    void build_layer_map()
    {
        if (out.num_layers) {
            const auto n = static_cast<std::size_t>(*out.num_layers);
            out.layer_groups.assign(n, 0);
            for (std::size_t i = 0; i < n; ++i) {
                if (i < rotates.size() && !rotates[i]) {
                    out.layer_groups[i] = -1;
                    continue;
                }
                if (group_types.size() > 1 || !group_types.front().empty())
                    for (std::size_t g = 0; g < group_types.size(); ++g)
                        if (group_types[g] == types[i]) out.layer_groups[i] = static_cast<int>(g);
            }
        }
    }

    /// M-RoPE sections and interleaving, where the family reads them.
    void read_mrope()
    {
        HfRopeConfig& primary = out.primary_group().config;
        if (family && family->has(trait::height_width_alternating_mrope) && primary.mrope_section.empty()) {
            // ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py: rope_parameters.get("mrope_section", [22, 22, 20]).
            primary.mrope_section = {22, 22, 20};
            out.notes.push_back((primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key) +
                                ".mrope_section absent: " + out.model_type + "'s default [22, 22, 20]");
        }
        if (family && family->has(trait::always_interleaved_mrope)) {
            // qwen3_vl/modeling_qwen3_vl.py: the text rotary embedding reads mrope_section with the default
            // [24, 20, 20] and always applies apply_interleaved_mrope (mrope_interleaved is not read).
            const std::string dict = primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key;
            if (primary.mrope_section.empty()) {
                primary.mrope_section = {24, 20, 20};
                out.notes.push_back(dict + ".mrope_section absent: " + out.model_type + "'s default [24, 20, 20]");
            }
            if (!primary.mrope_interleaved) {
                // an explicit false in the dict the group was read from is not what the code does
                if (primary.mrope_interleaved_given)
                    out.warnings.push_back({pre + dict + ".mrope_interleaved",
                                            "model_type " + type_shown + "'s code always interleaves the M-RoPE axes; ignored"});
                primary.mrope_interleaved = true;
            }
        }
        if (!primary.mrope_section.empty()) {
            if (family && !family->has(trait::multi_axis))
                out.warnings.push_back({pre + primary.scaling_key + ".mrope_section",
                                        "model_type " + type_shown + "'s code does not read it; ignored"});
            else {
                out.mrope_section = primary.mrope_section;
                out.mrope_interleaved = primary.mrope_interleaved;
                out.mrope_coordinate_sections = family && family->has(trait::xd_coordinate_sections);
                out.mrope_height_width_alternating = family && family->has(trait::height_width_alternating_mrope);
            }
        }
        if (primary.mrope_section.empty() && family && family->has(trait::mrope_required))
            fail(pre + (primary.scaling_key.empty() ? std::string("rope_scaling") : primary.scaling_key) + ".mrope_section",
                 "expected a list of pairs per position axis: model_type " + type_shown +
                     "'s attention reads mrope_section on every forward pass and its configuration class has no default",
                 "nothing");
    }
};

/// The JSON stage of hf::read_model (hf_config.hpp): resolves a parsed config.json object into
/// the model's RoPE groups and layer map. Throws posenc::error with the key path (prefixed
/// "text_config." when nested) on wrong types, missing required keys, values outside what Hugging
/// Face or posenc accepts, and keys posenc cannot represent.
inline HfModelConfig resolve_model(const nlohmann::json& config, const ReadOptions& options)
{
    // Nested configs report key paths under text_config.
    const bool nested = config.is_object() && member(config, "text_config") != nullptr;
    try {
        return ModelReader(config, options).read();
    } catch (const nlohmann::json::exception& e) {
        fail("config", "expected JSON values nlohmann_json can read (" + ellipsized(e.what(), 160) + ")",
             "an unreadable value");
    } catch (const posenc::error& e) {
        const std::string field = e.field();
        if (!nested || field.rfind("text_config", 0) == 0 || field == "config" || field == "model_type" ||
            field == "_name_or_path")
            throw;
        const std::string path = "text_config." + field;
        throw posenc::error(path, e.value(), e.rule(), path + ": " + e.rule() + ", got " + e.value());
    }
}

/// Parses config.json text and resolves the whole model (resolve_model). Malformed JSON,
/// numbers outside double's range (named by their key, long literals cut with an ellipsis), and
/// nesting deeper than 64 levels are refused with posenc::error; a number that underflows
/// (1e-400) is refused, shown as written, when its key is read.
inline HfModelConfig parse_model_values(std::string_view text, const ReadOptions& options = {})
{
    return with_parsed_text(text, [&](const nlohmann::json& j) { return resolve_model(j, options); });
}

/// Reads and parses a config.json file (parse_model_values); an unreadable file or a directory
/// is a posenc::error naming the path.
inline HfModelConfig read_model_values(const std::string& path, const ReadOptions& options = {})
{
    return parse_model_values(read_config_text(path), options);
}

/// The JSON stage's single-group view, for the tests of this stage: the primary group (the only
/// one, else "full_attention"), with a warning naming the other groups and the NoPE layers when
/// there are any. hf::single_group gives the same view of the validated model.
inline HfRopeConfig primary_values(const HfModelConfig& model)
{
    HfRopeConfig out = model.primary_group().config;
    out.model_type = model.model_type;
    if (out.name_or_path.empty()) out.name_or_path = model.name_or_path;
    std::vector<ConfigWarning> warnings = model.warnings;
    if (model.groups.size() > 1) {
        std::string others;
        for (const HfGroupConfig& g : model.groups)
            if (&g != &model.primary_group()) others += (others.empty() ? "" : ", ") + g.name;
        warnings.push_back({model.key_prefix + "layer_types",
                            "this model has " + std::to_string(model.groups.size()) + " RoPE groups; this view shows \"" +
                                model.primary_group().name + "\" only (also: " + others + ")"});
    }
    std::string nope;
    for (std::size_t i = 0; i < model.layer_groups.size(); ++i)
        if (model.layer_groups[i] < 0) nope += (nope.empty() ? "" : ", ") + std::to_string(i);
    if (!nope.empty())
        warnings.push_back({model.key_prefix + "layers", "layers without RoPE (NoPE): " + ellipsized(nope, 60)});
    warnings.insert(warnings.end(), out.warnings.begin(), out.warnings.end());
    out.warnings = std::move(warnings);
    out.notes.insert(out.notes.begin(), model.notes.begin(), model.notes.end());
    return out;
}

}  // namespace detail_json

}  // namespace posenc::hf
