// SPDX-License-Identifier: MIT
// posenc/model_rope.hpp: the rotary embedding of a whole model, layer by layer.
//
// Many current models do not rotate every layer the same way:
//   Gemma 3       sliding-window layers: base 10,000, no scaling; full-attention layers: base 1e6,
//                 linear x8 (4B and larger). Layer i is sliding unless (i + 1) % 6 == 0.
//   SmolLM3       every 4th layer has no RoPE at all (NoPE).
//   Llama 4       every 4th layer NoPE; the others llama3-scaled, interleaved pairs.
//   Cohere 2, EXAONE 4   the global (full-attention) layers are NoPE when a sliding window is set.
//   Qwen3-Next    the linear-attention (Gated DeltaNet) layers carry no RoPE.
//   LFM2          the short-convolution layers carry no RoPE (no attention at all).
//   Gemma 3n      as Gemma 3, every 5th layer full attention.
//   Qwen2-VL, Qwen2.5-VL, Qwen3-VL   one table, but each pair follows one of three position
//                 axes (temporal, height, width): M-RoPE (multi_axis.hpp).
//
// A ModelRope says, for a model:
//   - the number of layers, when known;
//   - for each layer: no RoPE, or the index of the RoPE group it uses;
//   - the groups, each named by Hugging Face's layer type ("full_attention",
//     "sliding_attention", ...; "default" when the whole model shares one), each with its
//     RopeSpec, Scaling, lengths, cos/sin attention factor and softmax-scale multiplier;
//   - the multi-axis layout of the pairs, where positions have several axes;
//   - per group, whether the attention OUTPUT's rotated slice is rotated back
//     (inverse_rope_on_output: DeepSeek-V4 applies the inverse rotation, at the query's
//     position, to the rotated slice of each head of its attention output, because its values
//     are its rotated keys);
//   - the per-position query scale and the layers it applies to, when the model has one
//     (query_scale.hpp: Llama 4's temperature tuning on its NoPE layers, Ministral 3 and
//     Mistral 4's llama_4_scaling_beta on every layer).
// Per-layer frequency tables come from it: table_for_layer(i). The rotated slice of a group is
// its spec's [rotary_offset, rotary_offset + rotary_dim) (spec.hpp; DeepSeek-V4 and Mistral 4's
// MLA rotate the last coordinates of the head).
//
// Invariants (checked on construction, posenc::error naming the field otherwise):
//   at least one group; group names non-empty and distinct; every group used by some layer
//   when the layer map is known; num_layers, when known, in [1, 1'000'000] and equal to the
//   length of the layer map; without a layer map (num_layers unknown) exactly one group and
//   every layer uses it; attention factor and softmax multiplier finite and > 0; the multi-axis
//   layout, when present, covers exactly the pairs of every group; the query scale's layers,
//   when present, non-empty, ascending, distinct and (when the layer map is known) < num_layers.
//
// Header-only and free of nlohmann_json: engines that build the description themselves (or
// from presets.hpp) need nothing else. models/hf_model.hpp reads one from a config.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/query_scale.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// One RoPE configuration shared by a set of layers.
struct RopeGroup {
    std::string name;  ///< Hugging Face's layer type ("full_attention", "sliding_attention") or "default"
    RopeSpec spec;
    Scaling scaling = NoScaling {};
    std::int64_t max_position_embeddings = 0;  ///< 0 when unknown
    /// The length the group was trained at before extension (the scaling's original length,
    /// else max_position_embeddings); 0 when unknown.
    std::int64_t original_length = 0;
    /// The factor cos and sin are multiplied by (YaRN's mscale, LongRoPE's factor, else 1).
    double attention_factor = 1.0;
    /// Multiplier on the softmax scale outside cos/sin (DeepSeek MLA's g(s, mscale_all_dim)^2; 1 otherwise).
    double softmax_scale_multiplier = 1.0;
    /// True when the model rotates the rotated slice of its attention output back with the
    /// inverse rotation at the query's position (DeepSeek-V4, models/deepseek_v4/modeling_deepseek_v4.py:
    /// `apply_rotary_pos_emb(attn_output, cos, -sin)`, i.e. the same cos/sin, attention factor
    /// included, with sin negated: kernels' Direction::inverse, or apply_rope_reference at -position).
    bool inverse_rope_on_output = false;

    /// A group whose attention factor is the one its scaling gives (scaling_attention_factor).
    /// Throws posenc::error for an empty name ("name \"\" must not be empty") or a negative
    /// max_position_embeddings ("max_position_embeddings -1 must be >= 0 (0 when unknown)"),
    /// which ModelRope would refuse only later.
    static RopeGroup make(std::string name, const RopeSpec& spec, Scaling scaling = NoScaling {},
                          std::int64_t max_position_embeddings = 0)
    {
        if (name.empty()) detail::raise("name", name, "must not be empty");
        detail::require(max_position_embeddings >= 0, "max_position_embeddings", max_position_embeddings,
                        "must be >= 0 (0 when unknown)");
        const std::int64_t original = scaling_original_length(scaling).value_or(max_position_embeddings);
        const double attention = scaling_attention_factor(scaling);
        // `scaling` is copied, not moved: no inline code then needs Scaling's move constructor,
        // whose variant visit every includer would compile.
        return RopeGroup {std::move(name), spec, scaling, max_position_embeddings, original, attention, 1.0, false};
    }

    /// The frequency table at Hugging Face's init (frequency_table(spec, scaling)), with this
    /// group's attention factor.
    FrequencyTable table(Precision precision = Precision::exact) const
    {
        return with_attention(frequency_table(spec, scaling, precision));
    }

    /// The table in effect for a sequence of `sequence_length` tokens (dynamic NTK, LongRoPE),
    /// with this group's attention factor, except under PhiMoE's LongRoPE rule, whose magnitude
    /// depends on the length (scaling_attention_factor(scaling, sequence_length)).
    FrequencyTable table(std::int64_t sequence_length, Precision precision = Precision::exact) const
    {
        const FrequencyTable t = frequency_table(spec, scaling, sequence_length, precision);
        return attention_factor_depends_on_length(scaling) ? t : with_attention(t);
    }

private:
    FrequencyTable with_attention(const FrequencyTable& t) const
    {
        return FrequencyTable(t.inv_freq(), attention_factor);
    }
};

/// A per-position query scale and the layers whose query it multiplies (ascending).
struct ModelQueryScale {
    QueryScale scale;
    std::vector<int> layers;
};

/// The rotary embedding of a whole model; see the file comment.
class ModelRope
{
public:
    /// Marks a layer without RoPE in the layer map given to the constructor.
    static constexpr int no_rope = -1;

    /// `layer_groups[i]` is the index into `groups` of layer i's group, or no_rope. An empty
    /// layer map means "number of layers unknown": then there must be exactly one group and
    /// every layer uses it. Throws posenc::error when an invariant of the file comment fails.
    ModelRope(std::vector<RopeGroup> groups, std::vector<int> layer_groups,
              std::optional<MultiAxisLayout> multi_axis = std::nullopt)
        : groups_(std::move(groups)), layers_(std::move(layer_groups)), multi_axis_(std::move(multi_axis))
    {
        validate();
    }

    /// Every layer (num_layers of them, or an unknown number) uses `group`.
    static ModelRope uniform(RopeGroup group, std::optional<int> num_layers = std::nullopt,
                             std::optional<MultiAxisLayout> multi_axis = std::nullopt)
    {
        if (num_layers)
            detail::require(*num_layers > 0 && *num_layers <= max_layers, "num_layers", *num_layers,
                            "must be in [1, 1000000]");
        std::vector<int> map(num_layers ? static_cast<std::size_t>(*num_layers) : 0, 0);
        std::vector<RopeGroup> groups(1, group);  // not push_back: one fewer vector member to compile
        return ModelRope(std::move(groups), std::move(map), std::move(multi_axis));
    }

    /// The number of layers, when known.
    std::optional<int> num_layers() const noexcept
    {
        if (layers_.empty()) return std::nullopt;
        return static_cast<int>(layers_.size());
    }

    const std::vector<RopeGroup>& groups() const noexcept { return groups_; }
    int num_groups() const noexcept { return static_cast<int>(groups_.size()); }

    /// The group called `name`. Throws posenc::error listing the names otherwise.
    const RopeGroup& group(std::string_view name) const
    {
        std::string known;
        for (const RopeGroup& g : groups_) {
            if (g.name == name) return g;
            known += (known.empty() ? "" : ", ") + g.name;
        }
        detail::raise("group", std::string(name), "is not a RoPE group of this model (groups: " + known + ")");
    }

    /// The group the single-table views describe: the only group, else "full_attention" when
    /// there is one, else the first.
    const RopeGroup& primary_group() const noexcept
    {
        if (groups_.size() > 1)
            for (const RopeGroup& g : groups_)
                if (g.name == "full_attention") return g;
        return groups_.front();
    }

    /// Index into groups() of layer `layer`'s group, or std::nullopt for a layer without RoPE.
    /// Throws posenc::error for a layer outside [0, num_layers) (any layer >= 0 when unknown).
    std::optional<int> group_index_of_layer(int layer) const
    {
        check_layer(layer);
        if (layers_.empty()) return 0;
        const int g = layers_[static_cast<std::size_t>(layer)];
        if (g == no_rope) return std::nullopt;
        return g;
    }

    /// Whether layer `layer` rotates q and k at all.
    bool layer_has_rope(int layer) const { return group_index_of_layer(layer).has_value(); }

    /// The group of layer `layer`. Throws posenc::error for a NoPE layer ("layer 3: has no
    /// RoPE (NoPE layer); there is no table to apply") or a layer out of range.
    const RopeGroup& group_of_layer(int layer) const
    {
        const std::optional<int> g = group_index_of_layer(layer);
        if (!g) detail::raise("layer", layer, "has no RoPE (NoPE layer); there is no table to apply");
        return groups_[static_cast<std::size_t>(*g)];
    }

    /// The frequency table of layer `layer` at init; throws as group_of_layer does.
    FrequencyTable table_for_layer(int layer, Precision precision = Precision::exact) const
    {
        return group_of_layer(layer).table(precision);
    }

    /// The table of layer `layer` for a sequence of `sequence_length` tokens (dynamic NTK, LongRoPE).
    FrequencyTable table_for_layer(int layer, std::int64_t sequence_length,
                                   Precision precision = Precision::exact) const
    {
        return group_of_layer(layer).table(sequence_length, precision);
    }

    /// The layers without RoPE, ascending (empty when the layer map is unknown).
    std::vector<int> nope_layers() const
    {
        std::vector<int> out;
        for (std::size_t i = 0; i < layers_.size(); ++i)
            if (layers_[i] == no_rope) out.push_back(static_cast<int>(i));
        return out;
    }

    /// The layers that use group `group_index`, ascending (empty when the layer map is unknown).
    std::vector<int> layers_of_group(int group_index) const
    {
        detail::require(group_index >= 0 && group_index < num_groups(), "group_index", group_index,
                        "must name a group (0 .. num_groups - 1)");
        std::vector<int> out;
        for (std::size_t i = 0; i < layers_.size(); ++i)
            if (layers_[i] == group_index) out.push_back(static_cast<int>(i));
        return out;
    }

    /// The layer map as given: group index per layer, no_rope for NoPE (empty when unknown).
    const std::vector<int>& layer_map() const noexcept { return layers_; }

    /// The multi-axis layout of the pairs (M-RoPE), or std::nullopt for one position per token.
    const std::optional<MultiAxisLayout>& multi_axis() const noexcept { return multi_axis_; }

    /// A copy whose query of each layer in `layers` is multiplied by `scale` (query_scale.hpp).
    /// Throws posenc::error unless `layers` is non-empty, ascending, distinct, >= 0 and, when the
    /// layer map is known, < num_layers ("query_scale.layers[2] 48 must be < num_layers 48").
    ModelRope with_query_scale(QueryScale scale, std::vector<int> layers) const
    {
        if (layers.empty()) detail::raise("query_scale.layers.size", 0, "must be > 0");
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const std::string field = "query_scale.layers[" + std::to_string(i) + "]";
            if (layers[i] < 0) detail::raise(field, layers[i], "must be >= 0");
            if (i > 0 && layers[i] <= layers[i - 1])
                detail::raise(field, layers[i],
                              "must be > the previous layer " + std::to_string(layers[i - 1]) +
                                  " (ascending, distinct)");
            if (!layers_.empty() && static_cast<std::size_t>(layers[i]) >= layers_.size())
                detail::raise(field, layers[i], "must be < num_layers " + std::to_string(layers_.size()));
        }
        ModelRope copy = *this;
        copy.query_scale_.emplace(ModelQueryScale {scale, std::move(layers)});
        return copy;
    }

    /// The query scale and its layers, or std::nullopt when the model has none.
    const std::optional<ModelQueryScale>& query_scale() const noexcept { return query_scale_; }

    /// The query multiplier of layer `layer` at `position` (1 when the layer has no query scale).
    /// Throws posenc::error for a layer out of range or a position QueryScale refuses.
    double query_multiplier(int layer, std::int64_t position) const
    {
        check_layer(layer);
        if (!query_scale_) return 1.0;
        for (int l : query_scale_->layers)
            if (l == layer) return query_scale_->scale.multiplier(position);
        return 1.0;
    }

    /// Largest number of layers accepted.
    static constexpr int max_layers = 1000000;

private:
    void check_layer(int layer) const
    {
        if (layer < 0) detail::raise("layer", layer, "must be >= 0");
        if (!layers_.empty() && static_cast<std::size_t>(layer) >= layers_.size())
            detail::raise("layer", layer, "must be < num_layers " + std::to_string(layers_.size()));
    }

    void validate() const
    {
        detail::require(!groups_.empty(), "groups.size", groups_.size(), "must be > 0");
        for (std::size_t i = 0; i < groups_.size(); ++i) {
            const RopeGroup& g = groups_[i];
            const std::string where = "groups[" + std::to_string(i) + "]";
            if (g.name.empty()) detail::raise(where + ".name", g.name, "must not be empty");
            for (std::size_t j = 0; j < i; ++j)
                if (groups_[j].name == g.name)
                    detail::raise(where + ".name", g.name, "must differ from every other group's name");
            if (!(std::isfinite(g.attention_factor) && g.attention_factor > 0.0))
                detail::raise(where + ".attention_factor", g.attention_factor, "must be finite and > 0");
            if (!(std::isfinite(g.softmax_scale_multiplier) && g.softmax_scale_multiplier > 0.0))
                detail::raise(where + ".softmax_scale_multiplier", g.softmax_scale_multiplier,
                              "must be finite and > 0");
            if (g.max_position_embeddings < 0)
                detail::raise(where + ".max_position_embeddings", g.max_position_embeddings, "must be >= 0");
            if (g.original_length < 0) detail::raise(where + ".original_length", g.original_length, "must be >= 0");
            if (multi_axis_ && multi_axis_->num_pairs() != g.spec.num_pairs())
                detail::raise("multi_axis.num_pairs", multi_axis_->num_pairs(),
                              "must equal the pairs of group \"" + g.name + "\" (" +
                                  std::to_string(g.spec.num_pairs()) + ")");
        }
        if (layers_.empty()) {
            if (groups_.size() != 1)
                detail::raise("num_layers", "unknown",
                              "must be known (a layer map) when there are " + std::to_string(groups_.size()) +
                                  " groups");
            return;
        }
        if (layers_.size() > static_cast<std::size_t>(max_layers))
            detail::raise("num_layers", layers_.size(), "must be in [1, 1000000]");
        std::vector<int> used(groups_.size(), 0);  // vector<int>, not vector<bool>: one fewer vector to compile
        for (std::size_t i = 0; i < layers_.size(); ++i) {
            const int g = layers_[i];
            if (g == no_rope) continue;
            if (g < 0 || static_cast<std::size_t>(g) >= groups_.size())
                detail::raise("layer_groups[" + std::to_string(i) + "]", g,
                              "must be ModelRope::no_rope or a group index (0 .. " +
                                  std::to_string(groups_.size() - 1) + ")");
            used[static_cast<std::size_t>(g)] = 1;
        }
        for (std::size_t j = 0; j < groups_.size(); ++j)
            if (!used[j]) detail::raise("groups[" + std::to_string(j) + "]", groups_[j].name, "is used by no layer");
    }

    std::vector<RopeGroup> groups_;
    std::vector<int> layers_;
    std::optional<MultiAxisLayout> multi_axis_;
    std::optional<ModelQueryScale> query_scale_;
};

}  // namespace posenc
