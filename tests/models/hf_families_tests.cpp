// SPDX-License-Identifier: MIT
// The family table (posenc/models/hf_families.hpp) through the whole-model reader
// (posenc/models/hf_config.hpp read_model): for each model_type, what transformers' own files
// decide (pairing, class defaults, head_dim rules, rope_interleave, class-default RoPE dicts) and
// the families posenc refuses.
//
// Each test case is named after the transformers file (under src/transformers/models/) that
// decides what it checks. Configs are small inline JSON objects built for the test. Expected
// values are derived here from the documented constants, independently of posenc: head_dim and
// rotary_dim by the class's rule (hidden_size // num_attention_heads, int(head_dim *
// partial_rotary_factor), ...), inv_freq_i = base^(-2i / R) with std::pow, Llama 3 scaling by its
// published piecewise formula. Exact tables are checked within 1e-12 relative.
#include <posenc/model_rope.hpp>
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "support/model_parse_errors.hpp"

namespace models_hf_families_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::models::error_of;

double relative(double got, double want) { return std::abs(got - want) / std::abs(want); }

/// inv_freq_i = base^(-2i / R), i < R / 2.
std::vector<double> plain_inv_freq(double base, int rotary_dim)
{
    std::vector<double> out;
    for (int i = 0; i < rotary_dim / 2; ++i) out.push_back(std::pow(base, -2.0 * i / rotary_dim));
    return out;
}

/// One group: its spec, and every inv_freq of its exact table against `want`.
void check_group(const posenc::RopeGroup& g, int head_dim, int rotary_dim, double base, posenc::Pairing pairing,
                 const std::vector<double>& want)
{
    CHECK(g.spec.head_dim() == head_dim);
    CHECK(g.spec.rotary_dim() == rotary_dim);
    CHECK(relative(g.spec.base(), base) <= 1e-15);
    CHECK(g.spec.pairing() == pairing);
    const posenc::FrequencyTable t = g.table(posenc::Precision::exact);
    REQUIRE(t.num_pairs() == static_cast<int>(want.size()));
    double worst = 0.0;
    for (int i = 0; i < t.num_pairs(); ++i)
        worst = std::max(worst, relative(t.inv_freq(i), want[static_cast<std::size_t>(i)]));
    CHECK(worst <= 1e-12);
}

/// A model of `layers` layers that all share one plain (unscaled) group.
void check_uniform_plain(const posenc::hf::HfModel& m, int layers, int head_dim, int rotary_dim, double base,
                         posenc::Pairing pairing)
{
    REQUIRE(m.rope.num_layers().has_value());
    CHECK(*m.rope.num_layers() == layers);
    REQUIRE(m.rope.num_groups() == 1);
    CHECK(m.rope.nope_layers().empty());
    CHECK(m.rope.layer_map() == std::vector<int>(static_cast<std::size_t>(layers), 0));
    const posenc::RopeGroup& g = m.rope.primary_group();
    CHECK(std::holds_alternative<posenc::NoScaling>(g.scaling));
    check_group(g, head_dim, rotary_dim, base, pairing, plain_inv_freq(base, rotary_dim));
}

bool has_warning(const posenc::hf::HfModel& m, const std::string& key)
{
    for (const auto& w : m.warnings)
        if (w.key == key) return true;
    return false;
}

}  // namespace

// ---- DeepSeek MLA: the pairing of the qk_rope_head_dim slice ----

TEST_CASE("[deepseek_v3/modeling_deepseek_v3.py] rope_interleave true or absent: interleaved pairs; false: rotate_half")
{
    // configuration_deepseek_v3.py: rope_interleave defaults to True; the attention applies
    // apply_rotary_pos_emb_interleave when it is true and apply_rotary_pos_emb (rotate_half) otherwise.
    const std::string head = R"({"model_type": "deepseek_v3", "hidden_size": 1024, "num_attention_heads": 8,
                                 "num_hidden_layers": 3, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
                                 "rope_theta": 10000)";
    for (const char* value : {"", ", \"rope_interleave\": true"}) {
        INFO("rope_interleave" << value);
        const auto m = posenc::hf::parse_model(head + value + "}");
        check_uniform_plain(m, 3, 64, 64, 10000.0, posenc::Pairing::interleaved);
        CHECK(m.qk_head_dim == 192);
        CHECK(m.warnings.empty());
    }
    const auto off = posenc::hf::parse_model(head + R"(, "rope_interleave": false})");
    check_uniform_plain(off, 3, 64, 64, 10000.0, posenc::Pairing::half_split);
    CHECK(off.warnings.empty());
    // Without qk_rope_head_dim / qk_nope_head_dim / max_position_embeddings: the class defaults 64, 128, 4096.
    const auto defaults = posenc::hf::parse_model(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
                                                     "num_attention_heads": 128, "num_hidden_layers": 2})");
    check_uniform_plain(defaults, 2, 64, 64, 10000.0, posenc::Pairing::interleaved);
    CHECK(defaults.qk_head_dim == 192);
    CHECK(defaults.rope.primary_group().max_position_embeddings == 4096);
}

TEST_CASE("[deepseek_v2/modular_deepseek_v2.py] complex pairs always: rope_interleave is not read")
{
    // apply_rotary_emb views adjacent pairs (2i, 2i + 1) as complex numbers; the config class has no
    // rope_interleave, so a config's rope_interleave changes nothing (and is reported as ignored).
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_attention_heads": 16,
                                              "num_hidden_layers": 2, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
                                              "rope_theta": 10000, "rope_interleave": false})");
    check_uniform_plain(m, 2, 64, 64, 10000.0, posenc::Pairing::interleaved);
    CHECK(has_warning(m, "rope_interleave"));
    // configuration_deepseek_v2.py: max_position_embeddings 2048.
    CHECK(m.rope.primary_group().max_position_embeddings == 2048);
}

TEST_CASE("[deepseek_v2/modeling_deepseek_v2.py] softmax scale qk_head_dim^(-1/2) alone; deepseek_v3 multiplies by "
          "g(s, mscale_all_dim)^2")
{
    // DeepseekV2Attention sets scaling = qk_head_dim ** -0.5 and nothing else; DeepseekV3Attention
    // then multiplies by mscale * mscale, mscale = 0.1 * mscale_all_dim * ln(factor) + 1, when the
    // YaRN dict sets mscale_all_dim. The dict is DeepSeek-V2-Lite's (factor 40, mscale and
    // mscale_all_dim 0.707, L0 4096).
    const std::string rest = R"("hidden_size": 2048, "num_attention_heads": 16, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128, "rope_theta": 10000, "max_position_embeddings": 163840,
        "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                         "beta_fast": 32, "beta_slow": 1, "mscale": 0.707, "mscale_all_dim": 0.707}})";
    const auto v2 = posenc::hf::single_group(posenc::hf::parse_model(R"({"model_type": "deepseek_v2", )" + rest));
    CHECK(v2.qk_head_dim == 192);
    CHECK(v2.softmax_scale_multiplier == 1.0);
    CHECK(v2.softmax_scale() == std::pow(192.0, -0.5));
    CHECK(v2.attention_factor == 1.0);  // the cos/sin factor g(40, 0.707) / g(40, 0.707) is the same for both
    const auto v3 = posenc::hf::single_group(posenc::hf::parse_model(R"({"model_type": "deepseek_v3", )" + rest));
    const double g = 0.1 * 0.707 * std::log(40.0) + 1.0;
    CHECK(std::abs(v3.softmax_scale_multiplier - g * g) <= 4e-16 * g * g);
    CHECK(std::abs(v3.softmax_scale() - std::pow(192.0, -0.5) * g * g) <= 4e-16 * std::pow(192.0, -0.5) * g * g);
}

TEST_CASE("[deepseek_v32/modular_deepseek_v32.py] MLA always interleaved; class defaults")
{
    // DeepseekV32Attention calls apply_rotary_pos_emb_interleave unconditionally (the DSA indexer's
    // own half_split rotation is outside the attention this table describes); the config class
    // removes rope_interleave and defaults qk_rope_head_dim 64, qk_nope_head_dim 128,
    // max_position_embeddings 163840.
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "deepseek_v32", "hidden_size": 7168, "num_attention_heads": 128,
                                              "num_hidden_layers": 4, "rope_theta": 10000})");
    check_uniform_plain(m, 4, 64, 64, 10000.0, posenc::Pairing::interleaved);
    CHECK(m.qk_head_dim == 192);
    CHECK(m.rope.primary_group().max_position_embeddings == 163840);
    const auto ignored = posenc::hf::parse_model(R"({"model_type": "deepseek_v32", "hidden_size": 7168,
                                                    "num_attention_heads": 128, "num_hidden_layers": 4,
                                                    "rope_interleave": false})");
    CHECK(ignored.rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    CHECK(has_warning(ignored, "rope_interleave"));
}

TEST_CASE("[rope_interleave] a model_type posenc does not know: refused, naming the key")
{
    CHECK(
        error_of(R"({"model_type": "kimi_like", "hidden_size": 1024, "num_attention_heads": 8,
                       "qk_rope_head_dim": 64, "rope_interleave": true})") ==
        "rope_interleave: is read only for model types posenc knows; model_type \"kimi_like\" is not one, and how its "
        "code uses this key cannot be told from the config, got true");
    CHECK(error_of(R"({"qk_rope_head_dim": 64, "rope_interleave": "yes"})") ==
          "rope_interleave: expected true or false, got \"yes\"");
}

// ---- partial rotary families ----

TEST_CASE(
    "[stablelm/configuration_stablelm.py, stablelm/modeling_stablelm.py] 25 % of hidden_size // heads, half_split")
{
    // partial_rotary_factor 0.25; head_dim = hidden_size // num_attention_heads in the attention:
    // 2560 // 32 = 80, rotary_ndims int(80 * 0.25) = 20. A head_dim key reaches only the rotary table
    // (getattr(config, "head_dim")): 128 would make it int(128 * 0.25) = 32 wide, which the attention's
    // 20-dim slice cannot take (transformers fails), so it is refused; 80 agrees.
    const auto m = posenc::hf::parse_model(R"({"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32,
                                              "num_hidden_layers": 4, "rope_theta": 10000})");
    check_uniform_plain(m, 4, 80, 20, 10000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 4096);
    CHECK(m.warnings.empty());
    CHECK(error_of(R"({"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "head_dim": 128})")
              .rfind("head_dim: expected a head_dim whose rotary part", 0) == 0);
    const auto agreeing =
        posenc::hf::parse_model(R"({"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32,
                                                     "num_hidden_layers": 4, "head_dim": 80})");
    check_uniform_plain(agreeing, 4, 80, 20, 10000.0, posenc::Pairing::half_split);
}

TEST_CASE("[persimmon/configuration_persimmon.py (transformers 5.16), persimmon/modeling_persimmon.py] half of the "
          "head, base 10000")
{
    // partial_rotary_factor 0.5, max_position_embeddings 16384; PersimmonConfig declares no default
    // theta, so transformers 5 fills rope_theta with the generic 10000 (transformers 4's class had
    // 25000); head_dim hidden_size // num_attention_heads: 4096 // 64 = 64, rotary 32.
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64,
                                              "num_hidden_layers": 2})");
    check_uniform_plain(m, 2, 64, 32, 10000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 16384);
}

TEST_CASE("[nemotron/configuration_nemotron.py, nemotron/modeling_nemotron.py] half of head_dim, half_split")
{
    // partial_rotary_factor 0.5; a head_dim key is honoured: int(128 * 0.5) = 64.
    const auto m = posenc::hf::parse_model(R"({"model_type": "nemotron", "hidden_size": 3072, "num_attention_heads": 24,
                                              "head_dim": 128, "num_hidden_layers": 2, "rope_theta": 10000})");
    check_uniform_plain(m, 2, 128, 64, 10000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 4096);
}

TEST_CASE(
    "[glm4_moe/configuration_glm4_moe.py, glm4_moe/modeling_glm4_moe.py] half_split (unlike GLM-4), half the head")
{
    // partial_rotary_factor 0.5 (setdefault), rotate_half on the first rotary_dim dims, head_dim key read.
    const auto m = posenc::hf::parse_model(R"({"model_type": "glm4_moe", "hidden_size": 5120, "num_attention_heads": 96,
                                              "head_dim": 128, "num_hidden_layers": 3, "rope_theta": 1000000})");
    check_uniform_plain(m, 3, 128, 64, 1e6, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 131072);
    // A config that states 1.0 rotates the whole head.
    const auto full = posenc::hf::parse_model(R"({"model_type": "glm4_moe", "head_dim": 128, "num_hidden_layers": 1,
                                                 "partial_rotary_factor": 1.0})");
    CHECK(full.rope.primary_group().spec.rotary_dim() == 128);
}

// ---- interleaved families ----

TEST_CASE("[helium/modular_helium.py, helium/configuration_helium.py] interleaved pairs, base 100000, head_dim 128")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "helium", "hidden_size": 2560, "num_attention_heads": 20,
                                              "num_hidden_layers": 2})");
    check_uniform_plain(m, 2, 128, 128, 100000.0, posenc::Pairing::interleaved);
    CHECK(m.rope.primary_group().max_position_embeddings == 4096);
}

TEST_CASE("[glm4v/modular_glm4v.py, glm4v/configuration_glm4v.py] interleaved pairs with M-RoPE sections")
{
    // The wrapper glm4v nests glm4v_text; the attention's head = hidden_size // num_attention_heads =
    // 4096 // 32 = 128 (a head_dim key reaches only the table: 96 would make it int(96 * 0.5) = 48
    // wide, which the attention cannot take, and is refused); partial_rotary_factor 0.5 -> 64 dims,
    // 32 pairs, split [8, 12, 12] into temporal, height, width; pair i is (2i, 2i + 1).
    CHECK(error_of(R"({"model_type": "glm4v", "text_config": {"hidden_size": 4096, "num_attention_heads": 32,
        "head_dim": 96, "partial_rotary_factor": 0.5}})")
              .rfind("text_config.head_dim: expected a head_dim", 0) == 0);
    const auto m = posenc::hf::parse_model(R"({"model_type": "glm4v", "text_config": {"hidden_size": 4096,
        "num_attention_heads": 32, "num_hidden_layers": 2, "partial_rotary_factor": 0.5,
        "rope_theta": 10000, "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}}})");
    CHECK(m.model_type == "glm4v_text");
    check_uniform_plain(m, 2, 128, 64, 10000.0, posenc::Pairing::interleaved);
    REQUIRE(m.rope.multi_axis().has_value());
    std::vector<int> axes;
    for (int i = 0; i < 32; ++i) axes.push_back(i < 8 ? 0 : i < 20 ? 1 : 2);
    CHECK(m.rope.multi_axis()->pair_axes() == axes);
    CHECK(m.rope.primary_group().max_position_embeddings == 32768);
}

// ---- head_dim rules ----

TEST_CASE("[jetmoe/configuration_jetmoe.py] head_dim is kv_channels, not hidden_size // heads")
{
    // attribute_map head_dim -> kv_channels (default 128). 2048 // 32 = 64 would be wrong.
    const auto m = posenc::hf::parse_model(R"({"model_type": "jetmoe", "hidden_size": 2048, "num_attention_heads": 32,
                                              "kv_channels": 96, "num_hidden_layers": 2, "rope_theta": 10000})");
    check_uniform_plain(m, 2, 96, 96, 10000.0, posenc::Pairing::half_split);
    const auto absent = posenc::hf::parse_model(R"({"model_type": "jetmoe", "hidden_size": 2048,
                                                   "num_attention_heads": 32, "num_hidden_layers": 2})");
    check_uniform_plain(absent, 2, 128, 128, 10000.0, posenc::Pairing::half_split);
    CHECK(absent.rope.primary_group().max_position_embeddings == 4096);
    // head_dim is the same attribute: read when kv_channels is absent, refused when they disagree.
    CHECK(posenc::hf::parse_model(R"({"model_type": "jetmoe", "head_dim": 64, "num_hidden_layers": 1})")
              .rope.primary_group()
              .spec.head_dim() == 64);
    CHECK(error_of(R"({"model_type": "jetmoe", "head_dim": 64, "kv_channels": 128, "num_hidden_layers": 1})") ==
          "head_dim: expected the value of kv_channels 128 (jetmoe's head_dim is an alias of kv_channels; the config "
          "carries both and they disagree), got 64");
}

TEST_CASE(
    "[granitemoe/modeling_granitemoe.py (transformers 5.16), granite/modular_granite.py] head_dim read when given")
{
    // GraniteMoeAttention and its rotary embedding: getattr(config, "head_dim", hidden_size //
    // num_attention_heads); the configuration class declares no head_dim, so the key is set on it.
    const auto moe =
        posenc::hf::parse_model(R"({"model_type": "granitemoe", "hidden_size": 1024, "num_attention_heads": 16,
                                                "head_dim": 128, "num_hidden_layers": 2})");
    check_uniform_plain(moe, 2, 128, 128, 10000.0, posenc::Pairing::half_split);
    const auto moe_derived = posenc::hf::parse_model(R"({"model_type": "granitemoe", "hidden_size": 1024,
                                                        "num_attention_heads": 16, "num_hidden_layers": 2})");
    check_uniform_plain(moe_derived, 2, 64, 64, 10000.0, posenc::Pairing::half_split);
    CHECK(moe.rope.primary_group().max_position_embeddings == 2048);
    // Granite inherits LlamaAttention (getattr head_dim).
    const auto granite =
        posenc::hf::parse_model(R"({"model_type": "granite", "hidden_size": 1024, "num_attention_heads": 16,
                                                    "head_dim": 128, "num_hidden_layers": 2})");
    check_uniform_plain(granite, 2, 128, 128, 10000.0, posenc::Pairing::half_split);
    CHECK(granite.rope.primary_group().max_position_embeddings == 2048);
    CHECK(granite.warnings.empty());
}

TEST_CASE("[bitnet/configuration_bitnet.py] base 500000 when rope_theta is absent")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "bitnet", "hidden_size": 2560, "num_attention_heads": 20,
                                              "num_hidden_layers": 2})");
    check_uniform_plain(m, 2, 128, 128, 500000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 2048);
}

// ---- plain half_split families: no warning, their class defaults ----

TEST_CASE("[starcoder2, olmoe, ministral, dots1, seed_oss, arcee, vaultgemma, falcon_h1 configuration files] known, "
          "half_split")
{
    struct Case {
        const char* model_type;
        int head_dim;  // what the class gives for hidden 2048 / 16 heads and no head_dim key
        std::int64_t max_position;  // class default max_position_embeddings
    };
    const Case cases[] = {
        {"starcoder2", 128, 4096},  // starcoder2/configuration_starcoder2.py
        {"olmoe", 128, 4096},  // olmoe/configuration_olmoe.py
        {"ministral", 128, 131072},  // ministral/configuration_ministral.py (4096 * 32)
        {"dots1", 128, 2048},  // dots1/configuration_dots1.py
        {"seed_oss", 128, 524288},  // seed_oss/configuration_seed_oss.py: head_dim 128 declared
        {"arcee", 128, 4096},  // arcee/configuration_arcee.py
        {"vaultgemma", 256, 8192},  // vaultgemma/configuration_vaultgemma.py: head_dim 256 declared
        {"falcon_h1", 128, 8192},  // falcon_h1/configuration_falcon_h1.py
    };
    for (const Case& c : cases) {
        INFO(c.model_type);
        const auto m =
            posenc::hf::parse_model(std::string(R"({"model_type": ")") + c.model_type +
                                    R"(", "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 4})");
        CHECK(m.warnings.empty());
        check_uniform_plain(m, 4, c.head_dim, c.head_dim, 10000.0, posenc::Pairing::half_split);
        CHECK(m.rope.primary_group().max_position_embeddings == c.max_position);
    }
    // seed_oss honours a head_dim key; ministral's sliding layers share the one table.
    CHECK(posenc::hf::parse_model(R"({"model_type": "seed_oss", "head_dim": 64, "num_hidden_layers": 1})")
              .rope.primary_group()
              .spec.head_dim() == 64);
    const auto ministral =
        posenc::hf::parse_model(R"({"model_type": "ministral", "head_dim": 128, "num_hidden_layers": 2,
        "sliding_window": 4096, "layer_types": ["sliding_attention", "sliding_attention"], "rope_theta": 1e8})");
    check_uniform_plain(ministral, 2, 128, 128, 1e8, posenc::Pairing::half_split);
}

TEST_CASE("[apertus/configuration_apertus.py] no RoPE dict: the class default llama3 x8 at base 12e6")
{
    // rope_parameters None -> {rope_type llama3, rope_theta 12e6, factor 8, original_max_position_embeddings
    // 8192, low_freq_factor 1, high_freq_factor 4}. Llama 3: wavelength w_i = 2 pi / inv_i; w < L0 / high
    // keeps inv_i; w > L0 / low divides it by the factor; between, smooth = (L0 / w - low) / (high - low),
    // inv = (1 - smooth) inv / factor + smooth inv.
    const auto m = posenc::hf::parse_model(R"({"model_type": "apertus", "hidden_size": 4096, "num_attention_heads": 32,
                                              "num_hidden_layers": 2})");
    CHECK(m.warnings.empty());
    const posenc::RopeGroup& g = m.rope.primary_group();
    REQUIRE(std::holds_alternative<posenc::Llama3Scaling>(g.scaling));
    const auto& l3 = std::get<posenc::Llama3Scaling>(g.scaling);
    CHECK(l3.factor() == 8.0);
    CHECK(l3.original_max_position_embeddings() == 8192);
    CHECK(l3.low_freq_factor() == 1.0);
    CHECK(l3.high_freq_factor() == 4.0);
    CHECK(g.max_position_embeddings == 65536);
    const double pi = std::acos(-1.0), factor = 8.0, low = 1.0, high = 4.0, l0 = 8192.0;
    std::vector<double> want;
    for (double inv : plain_inv_freq(12e6, 128)) {
        const double w = 2.0 * pi / inv;
        if (w < l0 / high) want.push_back(inv);
        else if (w > l0 / low) want.push_back(inv / factor);
        else {
            const double smooth = (l0 / w - low) / (high - low);
            want.push_back((1.0 - smooth) * inv / factor + smooth * inv);
        }
    }
    check_group(g, 128, 128, 12e6, posenc::Pairing::half_split, want);
    // A config's own dict replaces the class default.
    const auto own = posenc::hf::parse_model(R"({"model_type": "apertus", "head_dim": 128, "num_hidden_layers": 1,
                                                "rope_theta": 12000000, "rope_scaling": null})");
    CHECK(std::holds_alternative<posenc::Llama3Scaling>(own.rope.primary_group().scaling));
    const auto plain = posenc::hf::parse_model(R"({"model_type": "apertus", "head_dim": 128, "num_hidden_layers": 1,
                                                  "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}})");
    check_uniform_plain(plain, 1, 128, 128, 1e6, posenc::Pairing::half_split);
    // A top-level rope_theta that the class default would shadow: refused.
    CHECK(error_of(R"({"model_type": "apertus", "head_dim": 128, "rope_theta": 500000})")
              .rfind("rope_theta: expected no rope_theta without rope_parameters, or 12000000.0", 0) == 0);
}

TEST_CASE("[mistral3/configuration_mistral3.py] text_config without model_type is mistral")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "mistral3", "text_config": {"hidden_size": 5120,
        "num_attention_heads": 32, "head_dim": 128, "num_hidden_layers": 2, "rope_theta": 1000000000.0}})");
    CHECK(m.model_type == "mistral");
    CHECK(m.warnings.empty());
    check_uniform_plain(m, 2, 128, 128, 1e9, posenc::Pairing::half_split);
}

TEST_CASE("[gemma3n/modeling_gemma3n.py, gemma3n/configuration_gemma3n.py] Gemma 3's local base, every 5th layer full")
{
    // The wrapper gemma3n nests gemma3n_text. layer_types default: full_attention iff (i + 1) % 5 == 0;
    // sliding layers rotate at rope_local_base_freq (default 10000) unscaled, full layers at
    // rope_theta (default 1e6) with rope_scaling; head_dim 256; rotate_half.
    const auto m = posenc::hf::parse_model(R"({"model_type": "gemma3n", "text_config": {"hidden_size": 2048,
        "num_attention_heads": 8, "num_hidden_layers": 10, "max_position_embeddings": 32768,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0}}})");
    CHECK(m.model_type == "gemma3n_text");
    REQUIRE(m.rope.num_groups() == 2);
    std::vector<std::string> names;
    for (int i = 0; i < 10; ++i) names.push_back(m.rope.group_of_layer(i).name);
    for (int i = 0; i < 10; ++i)
        CHECK(names[static_cast<std::size_t>(i)] == ((i + 1) % 5 == 0 ? "full_attention" : "sliding_attention"));
    const posenc::RopeGroup& local = m.rope.group("sliding_attention");
    CHECK(std::holds_alternative<posenc::NoScaling>(local.scaling));
    check_group(local, 256, 256, 1e4, posenc::Pairing::half_split, plain_inv_freq(1e4, 256));
    const posenc::RopeGroup& global = m.rope.group("full_attention");
    REQUIRE(std::holds_alternative<posenc::LinearScaling>(global.scaling));
    std::vector<double> want = plain_inv_freq(1e6, 256);
    for (double& x : want) x /= 2.0;  // linear: inv_freq / factor
    check_group(global, 256, 256, 1e6, posenc::Pairing::half_split, want);
    // num_hidden_layers absent: Gemma3nTextConfig's class default 35 (layers 4, 9, ..., 34 full).
    const auto default_layers = posenc::hf::parse_model(R"({"model_type": "gemma3n_text", "head_dim": 256})");
    REQUIRE(default_layers.rope.num_layers() == 35);
    CHECK(default_layers.rope.layers_of_group(1) == std::vector<int> {4, 9, 14, 19, 24, 29, 34});
    // An explicit rope_local_base_freq and layer_types are read as given.
    const auto explicit_types = posenc::hf::parse_model(R"({"model_type": "gemma3n_text", "head_dim": 128,
        "num_hidden_layers": 2, "rope_local_base_freq": 20000, "rope_theta": 500000,
        "layer_types": ["full_attention", "sliding_attention"]})");
    CHECK(explicit_types.rope.layer_map() == std::vector<int> {0, 1});
    CHECK(explicit_types.rope.group("sliding_attention").spec.base() == 20000.0);
    CHECK(explicit_types.rope.group("full_attention").spec.base() == 500000.0);
}

TEST_CASE("[lfm2/configuration_lfm2.py, lfm2/modular_lfm2.py] conv layers have no RoPE; theta before rope_theta")
{
    // layer_types holds "full_attention" or "conv"; absent, it is built from full_attn_idxs (attention
    // there, conv elsewhere), and with neither every layer is attention. The base is "theta", else
    // rope_theta, else 1e6. head_dim: 2048 // 32 = 64.
    const auto typed = posenc::hf::parse_model(R"({"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 5, "theta": 1000000.0,
        "layer_types": ["conv", "conv", "full_attention", "conv", "full_attention"]})");
    CHECK(typed.rope.nope_layers() == std::vector<int> {0, 1, 3});
    REQUIRE(typed.rope.num_groups() == 1);
    check_group(typed.rope.primary_group(), 64, 64, 1e6, posenc::Pairing::half_split, plain_inv_freq(1e6, 64));
    CHECK(typed.rope.primary_group().max_position_embeddings == 128000);
    const auto idxs = posenc::hf::parse_model(R"({"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 4, "full_attn_idxs": [1, 3], "theta": 500000})");
    CHECK(idxs.rope.nope_layers() == std::vector<int> {0, 2});
    CHECK(idxs.rope.primary_group().spec.base() == 500000.0);
    const auto all = posenc::hf::parse_model(R"({"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 3})");
    check_uniform_plain(all, 3, 64, 64, 1e6, posenc::Pairing::half_split);
    // rope_parameters per layer type ({"full_attention": {...}, "conv": null}): Lfm2RotaryEmbedding builds
    // one table, and transformers 5.16 turns such a dict into {..., "rope_theta": 1e6, "rope_type":
    // "default"} (the class default at its top level), leaving full_attention's rope_theta unread: refused.
    CHECK(error_of(R"({"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 2, "layer_types": ["conv", "full_attention"],
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 2000000.0}, "conv": null}})")
              .rfind("rope_parameters: expected one dict: model_type \"lfm2\"'s rotary embedding builds one table",
                     0) == 0);
    CHECK(error_of(R"({"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32, "num_hidden_layers": 2,
                       "theta": 1000000.0, "rope_theta": 10000.0})") ==
          "theta: expected the value of rope_theta 10000 (lfm2's code reads theta first; the config carries both and "
          "they disagree), got 1000000.0");
    CHECK(error_of(
              R"({"model_type": "lfm2", "head_dim": 64, "num_hidden_layers": 2, "layer_types": ["conv", "mamba"]})") ==
          "layer_types[1]: expected \"conv\" or \"full_attention\" for model_type \"lfm2\", got \"mamba\"");
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "num_hidden_layers": 2, "full_attn_idxs": [1]})")
              .rfind("full_attn_idxs: is read only for model types posenc knows", 0) == 0);
}

TEST_CASE("[bamba/configuration_bamba.py, bamba/modular_bamba.py] attention only at attn_layer_indices, half the head")
{
    // layers_block_type: "attention" iff i in attn_layer_indices, else "mamba" (no attention, no RoPE);
    // partial_rotary_factor is set to 0.5 by the configuration class; rotate_half on the first
    // rotary_dim dims. head_dim 4096 // 32 = 128, rotary_dim 64.
    const auto m = posenc::hf::parse_model(R"({"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 6, "attn_layer_indices": [1, 4], "rope_theta": 10000})");
    CHECK(m.rope.nope_layers() == std::vector<int> {0, 2, 3, 5});
    REQUIRE(m.rope.num_groups() == 1);
    check_group(m.rope.primary_group(), 128, 64, 10000.0, posenc::Pairing::half_split, plain_inv_freq(10000.0, 64));
    CHECK(m.rope.primary_group().max_position_embeddings == 262144);
    CHECK(m.warnings.empty());
    // A stated 0.5 is the same; another value is refused (the code overwrites it).
    CHECK(posenc::hf::parse_model(R"({"model_type": "bamba", "head_dim": 128, "num_hidden_layers": 2,
                                      "attn_layer_indices": [0], "partial_rotary_factor": 0.5})")
              .rope.primary_group()
              .spec.rotary_dim() == 64);
    CHECK(error_of(R"({"model_type": "bamba", "head_dim": 128, "num_hidden_layers": 2, "attn_layer_indices": [0],
                       "partial_rotary_factor": 1.0})") ==
          "partial_rotary_factor: expected 0.5 (bamba's code sets partial_rotary_factor 0.5 whatever the config says), "
          "got 1");
    // Without attn_layer_indices every layer is mamba: nothing rotates.
    CHECK(error_of(R"({"model_type": "bamba", "head_dim": 128, "num_hidden_layers": 2})") ==
          "attn_layer_indices: expected at least one attention layer below num_hidden_layers 2 (every other layer is "
          "mamba, without RoPE), got nothing");
    // layer_types is not what its code reads.
    const auto typed = posenc::hf::parse_model(R"({"model_type": "bamba", "head_dim": 128, "num_hidden_layers": 2,
        "attn_layer_indices": [1], "layer_types": ["full_attention", "full_attention"]})");
    CHECK(typed.rope.nope_layers() == std::vector<int> {0});
    CHECK(has_warning(typed, "layer_types"));
}

// ---- families added from transformers' current model files ----

TEST_CASE("[longcat_flash/modeling_longcat_flash.py, longcat_flash/configuration_longcat_flash.py] MLA, interleaved "
          "always, two attention sublayers per layer")
{
    // LongcatFlashMLA applies apply_rotary_pos_emb_interleave to the qk_rope_head_dim slice (no
    // rope_interleave); each of the num_layers decoder layers holds two attention sublayers
    // (layer indices 2l and 2l + 1), and the model sets num_hidden_layers = 2 * num_layers. Class
    // defaults: rope_theta 1e7, num_layers 28, qk_rope_head_dim 64, qk_nope_head_dim 128, head_dim
    // 64 (the rotary table's width), max_position_embeddings 131072.
    const double theta = 1e7;
    const int rope_dim = 64, nope_dim = 128, decoder_layers = 3;
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "longcat_flash", "hidden_size": 6144, "num_attention_heads": 64,
        "num_layers": 3, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "head_dim": 64, "rope_theta": 10000000.0})");
    check_uniform_plain(m, 2 * decoder_layers, rope_dim, rope_dim, theta, posenc::Pairing::interleaved);
    CHECK(m.qk_head_dim == nope_dim + rope_dim);
    CHECK(m.rope.primary_group().max_position_embeddings == 131072);
    CHECK(m.warnings.empty());
    // Without any of them: 2 * 28 attention layers at base 1e7, 64 of 192 dims rotated.
    const auto defaults = posenc::hf::parse_model(R"({"model_type": "longcat_flash", "hidden_size": 6144,
                                                     "num_attention_heads": 64})");
    check_uniform_plain(defaults, 2 * 28, 64, 64, theta, posenc::Pairing::interleaved);
    CHECK(defaults.qk_head_dim == 192);
    // num_hidden_layers is overwritten by the model; rope_interleave is not read.
    const auto ignored = posenc::hf::parse_model(R"({"model_type": "longcat_flash", "num_layers": 2,
        "num_hidden_layers": 56, "rope_interleave": false})");
    check_uniform_plain(ignored, 4, 64, 64, theta, posenc::Pairing::interleaved);
    CHECK(has_warning(ignored, "num_hidden_layers"));
    CHECK(has_warning(ignored, "rope_interleave"));
    // The table is head_dim wide and rotates the qk_rope_head_dim slice: they must agree.
    CHECK(
        error_of(R"({"model_type": "longcat_flash", "num_layers": 1, "qk_rope_head_dim": 64, "head_dim": 128})") ==
        "head_dim: expected qk_rope_head_dim's value 64 (longcat_flash's rotary table is head_dim wide and rotates the "
        "qk_rope_head_dim slice of each head; with other widths transformers cannot apply it), got 128");
    CHECK(error_of(R"({"model_type": "longcat_flash", "num_layers": 1, "qk_rope_head_dim": 32})")
              .rfind("head_dim: expected qk_rope_head_dim's value 32", 0) == 0);
    // Softmax scale: qk_head_dim^(-1/2) times g(s, mscale_all_dim)^2 under YaRN (DeepSeek-V3's rule),
    // g = 0.1 * mscale_all_dim * ln(s) + 1.
    const auto yarn =
        posenc::hf::single_group(posenc::hf::parse_model(R"({"model_type": "longcat_flash", "num_layers": 1,
        "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
        "original_max_position_embeddings": 32768, "mscale": 1.0, "mscale_all_dim": 1.0}})"));
    const double g = 0.1 * 1.0 * std::log(4.0) + 1.0;
    CHECK(std::abs(yarn.softmax_scale_multiplier - g * g) <= 4e-16 * g * g);
    CHECK(std::abs(yarn.softmax_scale() - std::pow(192.0, -0.5) * g * g) <= 4e-16 * std::pow(192.0, -0.5) * g * g);
}

TEST_CASE("[ministral3/modular_ministral3.py, ministral3/configuration_ministral3.py] rotate_half; Llama 4's query "
          "scale on every layer")
{
    // Ministral3Attention multiplies the rotated query by 1 + beta * ln(1 + floor(position / L0)),
    // beta = rope_parameters["llama_4_scaling_beta"] (class default 0.1), L0 its original_max_position_embeddings.
    const auto dflt = posenc::hf::parse_model(R"({"model_type": "ministral3", "num_hidden_layers": 2})");
    REQUIRE(dflt.rope.query_scale().has_value());
    CHECK(dflt.rope.query_scale()->scale.beta() == 0.1);
    CHECK(dflt.rope.query_scale()->scale.divisor() == 16384);
    CHECK(dflt.rope.query_scale()->scale.position_offset() == 0);
    CHECK(dflt.rope.query_scale()->layers == std::vector<int> {0, 1});
    // 1 + 0.1 ln(1 + floor(40000 / 16384)) = 1 + 0.1 ln 3 = 1.1098612288668110 (mpmath)
    CHECK(std::abs(dflt.rope.query_scale()->scale.multiplier(40000) - 1.1098612288668110) <= 1e-15);
    // No num_hidden_layers: the class default 34 (ministral3/configuration_ministral3.py), and the
    // query scale on every one of them; Mistral 4's class default is 36 (mistral4/configuration_mistral4.py).
    const auto no_count = posenc::hf::parse_model(R"({"model_type": "ministral3"})");
    CHECK(no_count.rope.num_layers() == 34);
    REQUIRE(no_count.rope.query_scale().has_value());
    CHECK(no_count.rope.query_scale()->layers.size() == 34);
    const auto mistral4 = posenc::hf::parse_model(R"({"model_type": "mistral4"})");
    CHECK(mistral4.rope.num_layers() == 36);
    REQUIRE(mistral4.rope.query_scale().has_value());
    CHECK(mistral4.rope.query_scale()->layers.size() == 36);
    // Absent from a config's dict, transformers' forward fails on None: refused.
    CHECK(
        error_of(
            R"({"model_type": "ministral3", "num_hidden_layers": 2, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}})")
            .rfind("rope_parameters.llama_4_scaling_beta: expected a number", 0) == 0);
    // A default dict with beta but no original length: the divisor is missing.
    CHECK(error_of(R"({"model_type": "ministral3", "num_hidden_layers": 2, "rope_parameters": {"rope_type": "default",
        "rope_theta": 1e6, "llama_4_scaling_beta": 0.1}})")
              .rfind("rope_parameters.original_max_position_embeddings: expected a positive integer", 0) == 0);
    // beta 0: the query scale is 1 and the dict is read (class defaults head_dim 128,
    // max_position_embeddings 262144; the dict's own keys are not "unrecognized").
    const auto m = posenc::hf::parse_model(R"({"model_type": "mistral3", "text_config": {"model_type": "ministral3",
        "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2,
        "rope_parameters": {"type": "yarn", "rope_theta": 1000000.0, "factor": 16.0,
                            "original_max_position_embeddings": 16384, "max_position_embeddings": 262144,
                            "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                            "llama_4_scaling_beta": 0}}})");
    CHECK(m.model_type == "ministral3");
    CHECK(m.warnings.empty());
    const posenc::RopeGroup& g = m.rope.primary_group();
    CHECK(g.max_position_embeddings == 262144);
    REQUIRE(std::holds_alternative<posenc::YarnScaling>(g.scaling));
    // YaRN: pairs below floor(d(beta_fast)) keep inv_freq, pairs above ceil(d(beta_slow)) are divided
    // by the factor, d(r) = R ln(L0 / (2 pi r)) / (2 ln base); mscale = mscale_all_dim: factor 1.
    const double pi = std::acos(-1.0), base = 1e6, factor = 16.0, l0 = 16384.0;
    const int R = 128;
    auto d = [&](double r) { return R * std::log(l0 / (2.0 * pi * r)) / (2.0 * std::log(base)); };
    REQUIRE(std::floor(d(32.0)) > 0.0);
    REQUIRE(std::ceil(d(1.0)) < R / 2 - 1);
    const posenc::FrequencyTable t = g.table(posenc::Precision::exact);
    CHECK(g.spec.head_dim() == 128);
    CHECK(g.spec.pairing() == posenc::Pairing::half_split);
    CHECK(relative(t.inv_freq(0), 1.0) <= 1e-12);
    CHECK(relative(t.inv_freq(R / 2 - 1), std::pow(base, -2.0 * (R / 2 - 1) / R) / factor) <= 1e-12);
    CHECK(g.attention_factor == 1.0);
}

TEST_CASE("[qwen2_5_omni/configuration_qwen2_5_omni.py, qwen2_5_omni/modeling_qwen2_5_omni.py] thinker and talker on "
          "their own; the wrapper reads as its thinker")
{
    // Both language models use apply_multimodal_rotary_pos_emb: rotate_half, mrope_section over the
    // pairs. Thinker text config (qwen2_5_omni_text, nested in qwen2_5_omni_thinker): rope_theta 1e6,
    // max_position_embeddings 32768, head_dim hidden_size // heads = 3584 // 28 = 128.
    const auto thinker = posenc::hf::parse_model(R"({"model_type": "qwen2_5_omni_thinker", "text_config": {
        "hidden_size": 3584, "num_attention_heads": 28, "num_hidden_layers": 2,
        "rope_scaling": {"type": "default", "mrope_section": [16, 24, 24]}}})");
    CHECK(thinker.model_type == "qwen2_5_omni_text");
    check_uniform_plain(thinker, 2, 3584 / 28, 3584 / 28, 1e6, posenc::Pairing::half_split);
    CHECK(thinker.rope.primary_group().max_position_embeddings == 32768);
    REQUIRE(thinker.rope.multi_axis().has_value());
    std::vector<int> axes;
    for (int i = 0; i < 64; ++i) axes.push_back(i < 16 ? 0 : i < 40 ? 1 : 2);
    CHECK(thinker.rope.multi_axis()->pair_axes() == axes);
    // Talker: head_dim declared 128, not hidden_size // heads (896 // 12 = 74).
    const auto talker = posenc::hf::parse_model(R"({"model_type": "qwen2_5_omni_talker", "hidden_size": 896,
        "num_attention_heads": 12, "num_hidden_layers": 2,
        "rope_scaling": {"type": "default", "mrope_section": [16, 24, 24]}})");
    check_uniform_plain(talker, 2, 128, 128, 1e6, posenc::Pairing::half_split);
    CHECK(talker.rope.multi_axis()->pair_axes() == axes);
    // Without a RoPE dict: the thinker's configuration class fills in sections [16, 24, 24]; the
    // talker's has no default, and its attention indexes rope_scaling["mrope_section"].
    const auto thinker_default = posenc::hf::parse_model(R"({"model_type": "qwen2_5_omni_text", "hidden_size": 3584,
        "num_attention_heads": 28, "num_hidden_layers": 2})");
    REQUIRE(thinker_default.rope.multi_axis().has_value());
    CHECK(thinker_default.rope.multi_axis()->pair_axes() == axes);
    CHECK(
        error_of(R"({"model_type": "qwen2_5_omni_talker", "hidden_size": 896, "num_attention_heads": 12,
                       "num_hidden_layers": 2})") ==
        "rope_scaling.mrope_section: expected a list of pairs per position axis: model_type \"qwen2_5_omni_talker\"'s "
        "attention reads mrope_section on every forward pass and its configuration class has no default, got nothing");
    // The wrapper holds both: the thinker's language model (thinker_config.text_config) is read, with a
    // note; key paths carry the whole prefix.
    const auto omni = posenc::hf::parse_model(R"({"model_type": "qwen2_5_omni", "thinker_config": {
        "model_type": "qwen2_5_omni_thinker", "text_config": {"model_type": "qwen2_5_omni_text", "hidden_size": 3584,
        "num_attention_heads": 28, "num_hidden_layers": 2, "rope_scaling": {"type": "default", "mrope_section": [16, 24, 24]}}},
        "talker_config": {"model_type": "qwen2_5_omni_talker"}})");
    CHECK(omni.model_type == "qwen2_5_omni_text");
    check_uniform_plain(omni, 2, 128, 128, 1e6, posenc::Pairing::half_split);
    CHECK(omni.rope.multi_axis()->pair_axes() == axes);
    CHECK(error_of(R"({"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {"head_dim": 127,
        "num_hidden_layers": 2}}})")
              .rfind("thinker_config.text_config.head_dim: expected", 0) == 0);
    CHECK(
        error_of(R"({"model_type": "qwen2_5_omni"})") ==
        "thinker_config: expected an object (model_type \"qwen2_5_omni\" keeps its language model there), got nothing");
}

TEST_CASE("[qwen3_omni_moe/configuration_qwen3_omni_moe.py, modeling_qwen3_omni_moe.py (transformers 5.16)] the "
          "thinker's text model")
{
    // Qwen3OmniMoeThinkerTextRotaryEmbedding: Qwen3-VL's always-interleaved M-RoPE, default sections
    // [24, 20, 20]; class-level default_theta 1e6. head_dim 128 here: pair k < 60 reads axis k mod 3.
    const auto m = posenc::hf::parse_model(R"({"model_type": "qwen3_omni_moe", "thinker_config": {"text_config": {
        "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 128, "num_hidden_layers": 2}}})");
    CHECK(m.model_type == "qwen3_omni_moe_text");
    check_uniform_plain(m, 2, 128, 128, 1e6, posenc::Pairing::half_split);
    REQUIRE(m.rope.multi_axis().has_value());
    std::vector<int> axes;
    for (int k = 0; k < 64; ++k) axes.push_back(k < 60 ? k % 3 : 0);
    CHECK(m.rope.multi_axis()->pair_axes() == axes);
}

TEST_CASE("[qwen3_5/configuration_qwen3_5.py, modeling_qwen3_5.py (transformers 5.16)] Qwen3.5: linear attention NoPE, "
          "25 %, interleaved M-RoPE [11, 11, 10]")
{
    // Class defaults: head_dim 256, partial_rotary_factor 0.25 (rotary 64: 32 pairs = 11 + 11 + 10),
    // layer i linear_attention unless (i + 1) % 4 == 0; apply_interleaved_mrope always; legacy layer
    // type names remapped (remap_legacy_layer_types: "attention" is full_attention).
    const auto m = posenc::hf::parse_model(R"({"model_type": "qwen3_5", "text_config": {"num_hidden_layers": 8,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000}}})");
    CHECK(m.model_type == "qwen3_5_text");
    CHECK(m.rope.nope_layers() == std::vector<int> {0, 1, 2, 4, 5, 6});
    check_group(m.rope.primary_group(), 256, 64, 1e7, posenc::Pairing::half_split, plain_inv_freq(1e7, 64));
    REQUIRE(m.rope.multi_axis().has_value());
    std::vector<int> axes;
    // apply_interleaved_mrope: height at slice(1, 3 * 11, 3), width at slice(2, 3 * 10, 3), time elsewhere.
    for (int k = 0; k < 32; ++k) axes.push_back(k % 3 == 1 && k < 33 ? 1 : k % 3 == 2 && k < 30 ? 2 : 0);
    CHECK(m.rope.multi_axis()->pair_axes() == axes);
    const auto legacy = posenc::hf::parse_model(R"({"model_type": "qwen3_5_moe_text", "num_hidden_layers": 2,
        "layer_types": ["mamba", "attention"]})");
    CHECK(legacy.rope.nope_layers() == std::vector<int> {0});
    CHECK(legacy.rope.num_layers() == 2);
}

TEST_CASE("[glm_ocr/modeling_glm_ocr.py, paddleocr_vl/modeling_paddleocr_vl.py, cwm/configuration_cwm.py (transformers "
          "5.16)] GLM-OCR, PaddleOCR-VL, CWM")
{
    // GLM-OCR text: class defaults hidden 1024 / 16 heads = 64, interleaved (repeat_interleave of the
    // first half of cos / sin), M-RoPE sections [8, 12, 12] by default: pair k reads axis 0, 1, 2 by block.
    const auto g = posenc::hf::parse_model(
        R"({"model_type": "glm_ocr", "text_config": {"rope_parameters": {"rope_type": "default"}}})");
    CHECK(g.model_type == "glm_ocr_text");
    CHECK(g.rope.num_layers() == 16);
    check_group(g.rope.primary_group(), 64, 64, 1e4, posenc::Pairing::interleaved, plain_inv_freq(1e4, 64));
    std::vector<int> axes;
    for (int k = 0; k < 32; ++k) axes.push_back(k < 8 ? 0 : k < 20 ? 1 : 2);
    CHECK(g.rope.multi_axis()->pair_axes() == axes);
    // PaddleOCR-VL: flat hub layout, rotate_half with Qwen2-VL sections; base 5e5 and head_dim 128 by default;
    // mrope_section has no default (apply_multimodal_rotary_pos_emb indexes it).
    const auto p =
        posenc::hf::parse_model(R"({"model_type": "paddleocr_vl", "hidden_size": 1024, "num_attention_heads": 16,
        "num_hidden_layers": 18, "rope_scaling": {"rope_type": "default", "mrope_section": [16, 24, 24]}})");
    check_group(p.rope.primary_group(), 128, 128, 5e5, posenc::Pairing::half_split, plain_inv_freq(5e5, 128));
    CHECK(error_of(R"({"model_type": "paddleocr_vl", "num_hidden_layers": 2})")
              .rfind("rope_scaling.mrope_section: expected", 0) == 0);
    // CWM: no RoPE dict = llama3 x16 at base 1e6, L0 8192, low / high 1 / 4; one table for every layer.
    const auto c = posenc::hf::parse_model(R"({"model_type": "cwm", "num_hidden_layers": 4})");
    REQUIRE(c.rope.num_groups() == 1);
    CHECK(c.rope.nope_layers().empty());
    const posenc::RopeGroup& cg = c.rope.primary_group();
    REQUIRE(std::holds_alternative<posenc::Llama3Scaling>(cg.scaling));
    CHECK(cg.spec.base() == 1e6);
    CHECK(cg.spec.head_dim() == 128);
    // Llama 3's rule at pair 63: wavelength 2 pi / 1e6^(-126/128) > L0 / low_freq_factor = 8192: divided by 16.
    CHECK(relative(cg.table(posenc::Precision::exact).inv_freq(63), std::pow(1e6, -126.0 / 128.0) / 16.0) <= 1e-12);
}

TEST_CASE("[glm4v_moe/modular_glm4v_moe.py, glm4v_moe/configuration_glm4v_moe.py] half_split M-RoPE sections in the "
          "rotary half")
{
    // Glm4vMoeTextAttention applies GPT-NeoX's apply_rotary_pos_emb (rotate_half on the first
    // rotary_dim dims); the text rotary embedding picks axis i % 3 per mrope_section block of the
    // pairs. partial_rotary_factor 0.5 (setdefault), max_position_embeddings 65536; the wrapper
    // glm4v_moe nests glm4v_moe_text. head_dim 128 -> rotary 64, 32 pairs = [8, 12, 12].
    const auto m = posenc::hf::parse_model(R"({"model_type": "glm4v_moe", "text_config": {"hidden_size": 4096,
        "num_attention_heads": 96, "head_dim": 128, "num_hidden_layers": 2, "rope_theta": 10000,
        "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}}})");
    CHECK(m.model_type == "glm4v_moe_text");
    check_uniform_plain(m, 2, 128, 128 / 2, 10000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 65536);
    REQUIRE(m.rope.multi_axis().has_value());
    std::vector<int> axes;
    for (int i = 0; i < 32; ++i) axes.push_back(i < 8 ? 0 : i < 20 ? 1 : 2);
    CHECK(m.rope.multi_axis()->pair_axes() == axes);
}

TEST_CASE("[flex_olmo/modular_flex_olmo.py, flex_olmo/configuration_flex_olmo.py] OLMo 2's rotate_half, base 500000")
{
    // FlexOlmoAttention is Olmo2Attention; class defaults rope_theta 500000, max_position_embeddings 4096.
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "flex_olmo", "hidden_size": 4096, "num_attention_heads": 32,
                                              "num_hidden_layers": 2})");
    check_uniform_plain(m, 2, 4096 / 32, 4096 / 32, 500000.0, posenc::Pairing::half_split);
    CHECK(m.rope.primary_group().max_position_embeddings == 4096);
    CHECK(m.warnings.empty());
}

TEST_CASE("[lfm2_moe/modular_lfm2_moe.py, lfm2_moe/configuration_lfm2_moe.py] LFM2's conv layers without RoPE; "
          "layer_types required")
{
    // Lfm2MoeDecoderLayer is LFM2's: attention (rotate_half, Llama's rotary embedding) where
    // layer_types[i] == "full_attention", a short convolution elsewhere. The configuration class
    // stores layer_types as given (no default, no full_attn_idxs); rope_theta 1e6,
    // max_position_embeddings 128000; head_dim 2048 // 32 = 64.
    const auto m = posenc::hf::parse_model(R"({"model_type": "lfm2_moe", "hidden_size": 2048, "num_attention_heads": 32,
        "num_hidden_layers": 4, "layer_types": ["conv", "full_attention", "conv", "full_attention"]})");
    CHECK(m.rope.nope_layers() == std::vector<int> {0, 2});
    REQUIRE(m.rope.num_groups() == 1);
    check_group(m.rope.primary_group(), 2048 / 32, 2048 / 32, 1e6, posenc::Pairing::half_split,
                plain_inv_freq(1e6, 2048 / 32));
    CHECK(m.rope.primary_group().max_position_embeddings == 128000);
    CHECK(m.warnings.empty());
    CHECK(
        error_of(
            R"({"model_type": "lfm2_moe", "hidden_size": 2048, "num_attention_heads": 32, "num_hidden_layers": 2})") ==
        "layer_types: expected one entry per layer: model_type \"lfm2_moe\"'s code reads layer_types[i] for every "
        "layer "
        "and has no default for it, got nothing");
    const auto idxs = posenc::hf::parse_model(R"({"model_type": "lfm2_moe", "head_dim": 64, "num_hidden_layers": 2,
        "full_attn_idxs": [0], "layer_types": ["conv", "full_attention"]})");
    CHECK(idxs.rope.nope_layers() == std::vector<int> {0});
    CHECK(has_warning(idxs, "full_attn_idxs"));
}

TEST_CASE("[minimax_m2/configuration_minimax_m2.py, modeling_minimax_m2.py (transformers 5.16)] partial_rotary_factor, "
          "not rotary_dim")
{
    // MiniMax-M2's published key set: head_dim 128, rotary_dim 64, partial_rotary_factor 0.5, rope_theta 5e6.
    // The rotary embedding takes int(head_dim * partial_rotary_factor) = 64 dims, apply_rotary_pos_emb
    // rotates q[..., :64] with rotate_half; rotary_dim is not read.
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "minimax_m2", "hidden_size": 3072, "num_attention_heads": 48,
        "head_dim": 128, "rotary_dim": 64, "partial_rotary_factor": 0.5, "rope_theta": 5000000, "num_hidden_layers": 62,
        "max_position_embeddings": 196608})");
    CHECK(m.rope.num_layers() == 62);
    check_group(m.rope.primary_group(), 128, 64, 5e6, posenc::Pairing::half_split, plain_inv_freq(5e6, 64));
    CHECK(m.warnings.empty());
    // The class-level default_theta 5e6 and head_dim 128 when absent; no factor: the whole head.
    const auto d = posenc::hf::parse_model(R"({"model_type": "minimax_m2"})");
    check_group(d.rope.primary_group(), 128, 128, 5e6, posenc::Pairing::half_split, plain_inv_freq(5e6, 128));
    // partial_rotary_factor wins where the two disagree: a warning names rotary_dim.
    const auto w =
        posenc::hf::parse_model(R"({"model_type": "minimax_m2", "rotary_dim": 32, "partial_rotary_factor": 0.5})");
    CHECK(w.rope.primary_group().spec.rotary_dim() == 64);
    CHECK(has_warning(w, "rotary_dim"));
    // rotary_dim alone, unequal to the width transformers rotates: refused, naming it.
    CHECK(
        error_of(R"({"model_type": "minimax_m2", "rotary_dim": 64})") ==
        "rotary_dim: expected int(head_dim * partial_rotary_factor) = 128: model_type \"minimax_m2\"'s code does not "
        "read rotary_dim and rotates 128 dims of each head; give partial_rotary_factor (rotary_dim / head_dim) to say "
        "the width, got 64");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 128, "rotary_dim": 64})").rfind("rotary_dim: expected", 0) ==
          0);
}

TEST_CASE("[mllama/configuration_mllama.py, mllama/modeling_mllama.py (transformers 5.16)] Llama 3.2 Vision: "
          "cross-attention layers without RoPE")
{
    // MllamaTextModel: layers in cross_attention_layers attend to the image (no position embeddings), the
    // others are Llama self-attention with rotate_half; class defaults 40 layers, [3, 8, ..., 38], base 5e5.
    const auto m = posenc::hf::parse_model(R"({"model_type": "mllama", "text_config": {"hidden_size": 4096,
        "num_attention_heads": 32}})");
    CHECK(m.model_type == "mllama_text_model");
    CHECK(m.rope.num_layers() == 40);
    CHECK(m.rope.nope_layers() == std::vector<int> {3, 8, 13, 18, 23, 28, 33, 38});
    check_group(m.rope.primary_group(), 128, 128, 5e5, posenc::Pairing::half_split, plain_inv_freq(5e5, 128));
    const auto listed =
        posenc::hf::parse_model(R"({"model_type": "mllama_text_model", "head_dim": 64, "num_hidden_layers": 4,
        "cross_attention_layers": [1, 9]})");
    CHECK(listed.rope.nope_layers() == std::vector<int> {1});
    CHECK(
        error_of(
            R"({"model_type": "mllama_text_model", "head_dim": 64, "num_hidden_layers": 4, "cross_attention_layers": [-1]})") ==
        "cross_attention_layers[0]: expected a layer index >= 0, got -1");
}

TEST_CASE("[docs/models.md] every row of known_families is in the pairing table readers see")
{
    std::ifstream in(POSENC_TEST_DATA_DIR "/../../docs/models.md");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const std::size_t begin = doc.find("## Pairing by model_type");
    const std::size_t end = doc.find("## Defaults by model_type");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end > begin);
    const std::string table = doc.substr(begin, end - begin);
    for (const posenc::hf::FamilyRules& f : posenc::hf::known_families) {
        INFO(f.model_type);
        CHECK(table.find("`" + std::string(f.model_type) + "`") != std::string::npos);
    }
}

// ---- a model_type posenc does not know ----

TEST_CASE("[model_type] a model_type posenc does not know: refused unless the caller opts in to half_split")
{
    const std::string config = R"({"model_type": "brand_new_lm", "hidden_size": 1024, "num_attention_heads": 8,
                                   "num_hidden_layers": 2})";
    CHECK(
        error_of(config) ==
        "model_type: expected a model type posenc knows (include/posenc/models/hf_families.hpp): the model's own code "
        "decides its pairing (rotate_half or interleaved) and class defaults, and the config does not say them; to "
        "read "
        "it with half_split pairing and generic defaults anyway, opt in with ReadOptions::assume_half_split "
        "(posenc-inspect --assume-half-split), got \"brand_new_lm\"");
    CHECK(error_of(R"({"model_type": "new_vlm", "text_config": {"model_type": "new_vlm_text", "head_dim": 64}})")
              .rfind("text_config.model_type: expected a model type posenc knows", 0) == 0);
    // Opted in: half_split over the whole head, generic base, one warning naming model_type.
    posenc::hf::ReadOptions opt_in;
    opt_in.assume_half_split = true;
    const auto m = posenc::hf::parse_model(config, opt_in);
    check_uniform_plain(m, 2, 1024 / 8, 1024 / 8, 10000.0, posenc::Pairing::half_split);
    REQUIRE(m.warnings.size() == 1);
    CHECK(m.warnings[0].key == "model_type");
    CHECK(posenc::hf::single_group(posenc::hf::parse_model(config, opt_in)).spec.pairing() ==
          posenc::Pairing::half_split);
    // The opt-in lifts neither the model-specific keys nor the families refused by name.
    CHECK(error_of(R"({"model_type": "brand_new_lm", "head_dim": 64, "rope_interleave": true})")
              .rfind("rope_interleave: is read only for model types posenc knows", 0) == 0);
    std::string refused = "(accepted)";
    try {
        posenc::hf::parse_model(R"({"model_type": "dbrx", "d_model": 6144, "n_heads": 48})", opt_in);
    } catch (const posenc::error& e) {
        refused = e.what();
    }
    CHECK(refused.rfind("model_type: is not representable: DBRX", 0) == 0);
    // A config without model_type names no model: the generic description, with the warning.
    const auto plain =
        posenc::hf::parse_model(R"({"hidden_size": 1024, "num_attention_heads": 8, "num_hidden_layers": 2})");
    check_uniform_plain(plain, 2, 128, 128, 10000.0, posenc::Pairing::half_split);
    CHECK(has_warning(plain, "model_type"));
}

// ---- families with rules posenc cannot represent: refused, naming the key ----

TEST_CASE("[phimoe/modeling_phimoe.py forward (transformers 5.16)] plain RoPE; LongRoPE keeps the short factors, "
          "mscale switches past L0")
{
    const auto plain =
        posenc::hf::parse_model(R"({"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32,
                                                  "num_hidden_layers": 2})");
    check_uniform_plain(plain, 2, 128, 128, 1e6, posenc::Pairing::half_split);
    CHECK(plain.rope.primary_group().max_position_embeddings == 131072);
    // Phi-3.5-MoE's layout (rope_theta 10000, L0 4096, max 131072, short_mscale = long_mscale = 1.243163121016122
    // in the published config); here a head of 8 with short factors 1, 2, 4, 8, long factors 16 and
    // long_mscale 1.5 so that the switch shows. PhimoeRotaryEmbedding.forward: rope_init_fn(config) without
    // seq_len, so inv_freq_i = 1 / (short_factor_i * 10000^(2i / 8)) at every length; cos and sin times
    // short_mscale for max(position_ids) + 1 <= 4096, long_mscale past it.
    const auto m = posenc::hf::parse_model(R"({"model_type": "phimoe", "head_dim": 8, "num_hidden_layers": 2,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope", "short_factor": [1.0, 2.0, 4.0, 8.0], "long_factor": [16.0, 16.0, 16.0, 16.0],
                         "short_mscale": 1.243163121016122, "long_mscale": 1.5, "original_max_position_embeddings": 4096}})");
    const posenc::RopeGroup& g = m.rope.primary_group();
    REQUIRE(std::holds_alternative<posenc::LongRopeScaling>(g.scaling));
    const std::vector<double> short_factor {1.0, 2.0, 4.0, 8.0};
    for (std::int64_t n : {std::int64_t {4096}, std::int64_t {4097}, std::int64_t {131072}}) {
        CAPTURE(n);
        const posenc::FrequencyTable t = g.table(n);
        for (std::size_t i = 0; i < 4; ++i)
            CHECK(relative(t.inv_freq(static_cast<int>(i)),
                           1.0 / (short_factor[i] * std::pow(1e4, 2.0 * static_cast<double>(i) / 8.0))) <= 1e-15);
        CHECK(t.attention_factor() == (n <= 4096 ? 1.243163121016122 : 1.5));
    }
    // Both magnitudes are required (phimoe/configuration_phimoe.py validate_rope).
    CHECK(error_of(R"({"model_type": "phimoe", "head_dim": 8, "max_position_embeddings": 131072,
                       "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1], "long_factor": [1, 1, 1, 1],
                                        "short_mscale": 1.2, "original_max_position_embeddings": 4096}})") ==
          "rope_scaling.long_mscale: expected a number (PhiMoE's configuration class requires it), got nothing");
}

TEST_CASE("[minicpm/modular_minicpm.py] plain RoPE read; its per-forward LongRoPE refused")
{
    const auto plain =
        posenc::hf::parse_model(R"({"model_type": "minicpm", "hidden_size": 2304, "num_attention_heads": 36,
                                                  "num_hidden_layers": 2})");
    check_uniform_plain(plain, 2, 64, 64, 10000.0, posenc::Pairing::half_split);
    CHECK(plain.rope.primary_group().max_position_embeddings == 32768);
    CHECK(error_of(R"({"model_type": "minicpm", "hidden_size": 2304, "num_attention_heads": 36,
                       "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0],
                                        "original_max_position_embeddings": 32768}})")
              .rfind("rope_scaling.rope_type: is not representable: MiniCPM's own LongRoPE", 0) == 0);
}

TEST_CASE("[gemma4/configuration_gemma4.py, modeling_rope_utils.py proportional (transformers 5.16), "
          "gemma4_reference_values.py] Gemma 4")
{
    // tests/data/configs/gemma-4-e2b-it.json: the published E2B key set (text_config: 35 layers, every
    // 5th full_attention, head_dim 256, global_head_dim 512, rope_parameters per layer type).
    const auto m = posenc::hf::read_model(std::string(POSENC_TEST_DATA_DIR) + "/configs/gemma-4-e2b-it.json");
    CHECK(m.model_type == "gemma4_text");
    REQUIRE(m.rope.num_layers() == 35);
    REQUIRE(m.rope.num_groups() == 2);
    CHECK(m.rope.layers_of_group(1) == std::vector<int> {4, 9, 14, 19, 24, 29, 34});
    const posenc::RopeGroup& sliding = m.rope.group("sliding_attention");
    CHECK(sliding.spec.head_dim() == 256);
    CHECK(std::holds_alternative<posenc::NoScaling>(sliding.scaling));
    const posenc::FrequencyTable local = sliding.table();
    CHECK(std::abs(local.inv_freq()[5] / 0.69783058485986633841 - 1) <= 1e-15);  // mpmath
    // full_attention: proportional over global_head_dim 512: 64 pairs rotate with the exponent over 512, 192 are 0.
    const posenc::RopeGroup& full = m.rope.group("full_attention");
    CHECK(full.spec.head_dim() == 512);
    CHECK(full.spec.rotary_dim() == 512);
    CHECK(full.spec.pairing() == posenc::Pairing::half_split);
    REQUIRE(std::holds_alternative<posenc::ProportionalScaling>(full.scaling));
    CHECK(std::get<posenc::ProportionalScaling>(full.scaling).partial_rotary_factor() == 0.25);
    const posenc::FrequencyTable global = full.table();
    REQUIRE(global.inv_freq().size() == 256);
    CHECK(global.inv_freq()[0] == 1.0);
    CHECK(std::abs(global.inv_freq()[1] / 0.94746352565537539776 - 1) <= 1e-15);  // mpmath
    CHECK(std::abs(global.inv_freq()[63] / 0.033376246942920385462 - 1) <= 1e-14);  // mpmath
    for (std::size_t i = 64; i < 256; ++i) CHECK(global.inv_freq()[i] == 0.0);
    CHECK(full.attention_factor == 1.0);
    CHECK(m.warnings.empty());

    // Class defaults: no rope_parameters, no layer_types, no counts: 30 layers, every 6th full, the
    // default dicts, global_head_dim 512.
    const auto d = posenc::hf::parse_model(R"({"model_type": "gemma4_text"})");
    REQUIRE(d.rope.num_layers() == 30);
    CHECK(d.rope.layers_of_group(d.rope.group("full_attention").name == d.rope.groups()[1].name ? 1 : 0) ==
          std::vector<int> {5, 11, 17, 23, 29});
    CHECK(d.rope.group("full_attention").spec.head_dim() == 512);
    CHECK(d.rope.group("sliding_attention").spec.base() == 1e4);
    // The last layer is forced to full_attention, with a warning the user can act on.
    const auto forced = posenc::hf::parse_model(R"({"model_type": "gemma4_text", "num_hidden_layers": 2,
        "layer_types": ["full_attention", "sliding_attention"]})");
    CHECK(forced.rope.layer_map() == std::vector<int> {0, 0});
    REQUIRE(forced.warnings.size() == 1);
    CHECK(forced.warnings[0].key == "layer_types");
    // A flat dict is not what Gemma 4 reads.
    CHECK(error_of(R"({"model_type": "gemma4_text", "rope_parameters": {"rope_type": "default", "rope_theta": 10000}})")
              .rfind("rope_parameters: expected one dict per layer type", 0) == 0);
    // proportional is read for Gemma 4 only; the fraction must be in [0, 1].
    CHECK(error_of(R"({"model_type": "gemma4_text", "rope_parameters": {"sliding_attention": {"rope_type": "default"},
        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 1.5}}})") ==
          "rope_parameters.full_attention.partial_rotary_factor: must be in [0, 1], got 1.5");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_parameters": {"rope_type": "proportional"}})")
              .rfind("rope_parameters.rope_type: expected one of default", 0) == 0);
}

TEST_CASE("[mistral4/configuration_mistral4.py, mistral4/modeling_mistral4.py (transformers 5.16)] MLA: the last 64 of "
          "128, YaRN, beta")
{
    // Class defaults (Mistral4Config): qk_nope_head_dim 64 + qk_rope_head_dim 64 = head 128, partial_rotary_factor
    // 64 / 128, rope_interleave true, YaRN x128 (theta 1e4, L0 8192, mscale = mscale_all_dim = 1), llama_4_scaling_beta
    // 0.1; q splits into [q_pass (64), q_rot (64)]: the rotated slice is [64, 128).
    const auto m = posenc::hf::parse_model(R"({"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 2})");
    const posenc::RopeGroup& g = m.rope.primary_group();
    CHECK(g.spec.head_dim() == 128);
    CHECK(g.spec.rotary_dim() == 64);
    CHECK(g.spec.rotary_offset() == 64);
    CHECK(g.spec.pairing() == posenc::Pairing::interleaved);
    REQUIRE(std::holds_alternative<posenc::YarnScaling>(g.scaling));
    CHECK(std::get<posenc::YarnScaling>(g.scaling).factor() == 128.0);
    CHECK(g.max_position_embeddings == 1048576);
    CHECK(g.attention_factor == 1.0);  // mscale / mscale_all_dim = 1
    // softmax: qk_head_dim^(-1/2) * g(128, 1)^2, g = 0.1 ln 128 + 1 = 1.4852030263919617 (mpmath): multiplier g^2
    CHECK(relative(g.softmax_scale_multiplier, 1.4852030263919617 * 1.4852030263919617) <= 1e-15);
    CHECK(m.qk_head_dim == 128);
    REQUIRE(m.rope.query_scale().has_value());
    CHECK(m.rope.query_scale()->scale.beta() == 0.1);
    CHECK(m.rope.query_scale()->scale.divisor() == 8192);
    CHECK(m.rope.query_scale()->layers == std::vector<int> {0, 1});
    // rope_interleave false: rotate_half on the rope part.
    CHECK(posenc::hf::parse_model(R"({"model_type": "mistral4", "num_hidden_layers": 1, "rope_interleave": false})")
              .rope.primary_group()
              .spec.pairing() == posenc::Pairing::half_split);
    // A partial_rotary_factor whose width is not qk_rope_head_dim cannot be applied.
    CHECK(error_of(R"({"model_type": "mistral4", "num_hidden_layers": 1, "rope_parameters": {"rope_type": "default",
        "rope_theta": 10000.0, "partial_rotary_factor": 0.25, "llama_4_scaling_beta": 0}})")
              .rfind("rope_parameters.partial_rotary_factor: expected int(head_dim * partial_rotary_factor) = "
                     "qk_rope_head_dim 64",
                     0) == 0);
}

TEST_CASE("[families transformers does not define] Bailing / Ling and Qwen2.5-1M dual chunk attention refused by name")
{
    for (const char* type : {"bailing_moe", "bailing_moe_v2", "bailingmm"}) {
        CAPTURE(type);
        CHECK(error_of(std::string(R"({"model_type": ")") + type + R"(", "head_dim": 128})")
                  .rfind(std::string("model_type: is not defined in transformers"), 0) == 0);
    }
    // Qwen2.5-7B-Instruct-1M's config carries dual_chunk_attention_config beside model_type qwen2.
    CHECK(error_of(R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
        "dual_chunk_attention_config": {"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 262144}})")
              .rfind("dual_chunk_attention_config: is not representable: dual chunk attention (Qwen2.5-1M)", 0) == 0);
}

TEST_CASE("[deepseek_v4/configuration_deepseek_v4.py __post_init__, modeling_deepseek_v4.py (transformers 5.16)] main "
          "and compress ropes")
{
    // The published key set in the legacy form transformers folds: head_dim 512, qk_rope_head_dim 64,
    // compress_ratios (0 sliding, 4 CSA, 128 HCA), rope_theta 1e4, compress_rope_theta 160000, rope_scaling YaRN.
    const auto m = posenc::hf::parse_model(R"({"model_type": "deepseek_v4", "head_dim": 512, "qk_rope_head_dim": 64,
        "num_hidden_layers": 4, "compress_ratios": [0, 4, 128, 4], "rope_theta": 10000.0, "compress_rope_theta": 160000.0,
        "max_position_embeddings": 1048576,
        "rope_scaling": {"type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536,
                         "beta_fast": 32, "beta_slow": 1}})");
    REQUIRE(m.rope.num_groups() == 2);
    CHECK(m.rope.layer_map() == std::vector<int> {0, 1, 1, 1});
    const posenc::RopeGroup& main = m.rope.group("main");
    // The class defaults alone (no key at all): 43 layers, every one compressed (two heavily compressed,
    // then compressed_sparse / heavily_compressed alternating), one group "compress".
    const auto c = posenc::hf::parse_model(R"({"model_type": "deepseek_v4"})");
    CHECK(c.rope.num_layers() == 43);
    REQUIRE(c.rope.num_groups() == 1);
    CHECK(c.rope.groups()[0].name == "compress");
    const posenc::RopeGroup& compress = m.rope.group("compress");
    for (const posenc::RopeGroup* g : {&main, &compress}) {
        // the last 64 of 512, interleaved, the output's slice rotated back
        CHECK(g->spec.head_dim() == 512);
        CHECK(g->spec.rotary_dim() == 64);
        CHECK(g->spec.rotary_offset() == 448);
        CHECK(g->spec.pairing() == posenc::Pairing::interleaved);
        CHECK(g->inverse_rope_on_output);
        CHECK(g->attention_factor == 1.0);  // main: default; compress: yarn's attention_factor set to 1.0
    }
    CHECK(std::holds_alternative<posenc::NoScaling>(main.scaling));
    CHECK(relative(main.table().inv_freq(5), 0.23713737056616552617) <= 1e-15);  // 1e4^(-10/64), mpmath
    REQUIRE(std::holds_alternative<posenc::YarnScaling>(compress.scaling));
    CHECK(compress.spec.base() == 160000.0);
    // d(beta_slow = 1) = 64 ln(65536 / 2 pi) / (2 ln 160000) = 24.7: pair 31 fully interpolated, 160000^(-62/64) / 16
    CHECK(relative(compress.table().inv_freq(31), 5.6805290369099753253e-7) <= 1e-14);  // mpmath
    CHECK(compress.table().inv_freq(0) == 1.0);
    // Without compress_ratios or layer_types: two heavily compressed layers, then CSA / HCA alternating: all compress.
    const auto d = posenc::hf::parse_model(R"({"model_type": "deepseek_v4", "num_hidden_layers": 4})");
    CHECK(d.rope.num_groups() == 1);
    // DeepseekV4RotaryEmbedding keeps one table per rope label: the group is "compress", not "default".
    CHECK(d.rope.primary_group().name == "compress");
    CHECK(d.rope.primary_group().spec.base() == 160000.0);
    CHECK(d.rope.primary_group().spec.rotary_offset() == 448);
    CHECK(error_of(R"({"model_type": "deepseek_v4", "num_hidden_layers": 2, "compress_ratios": [0, 8]})") ==
          "compress_ratios[1]: expected 0, 4 or 128, got 8");
}

TEST_CASE("[hunyuan_vl/configuration_hunyuan_vl.py, modeling_hunyuan_vl.py (transformers 5.16)] HunyuanOCR: xdrope = "
          "dynamic + alpha, four axes")
{
    // HunyuanOCR's text config as public ports quote it: head_dim 128, rope_theta 10000, 24 layers, max 32768,
    // rope_scaling {type "xdrope", alpha 1000, factor 1, xdrope_section [16, 16, 16, 16]}.
    const auto m = posenc::hf::parse_model(R"({"model_type": "hunyuan_vl", "text_config": {"hidden_size": 1024,
        "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 24, "max_position_embeddings": 32768,
        "rope_theta": 10000.0, "rope_scaling": {"type": "xdrope", "alpha": 1000.0, "factor": 1.0, "beta_fast": 32,
        "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0, "xdrope_section": [16, 16, 16, 16]}}})");
    CHECK(m.model_type == "hunyuan_vl_text");
    const posenc::RopeGroup& g = m.rope.primary_group();
    // base = 10000 * 1000^(128 / 126) = 11158839.925077484729 (mpmath)
    CHECK(relative(g.spec.base(), 11158839.925077484729) <= 1e-14);
    CHECK(g.spec.rotary_dim() == 128);
    REQUIRE(m.rope.multi_axis().has_value());
    CHECK(m.rope.multi_axis()->num_axes() == 4);
    CHECK(m.rope.multi_axis()->mrope_section() == std::vector<int> {16, 16, 16, 16});
    CHECK(m.rope.multi_axis()->kind() == posenc::MultiAxisKind::coordinate_sections);
    CHECK(m.warnings.empty());
    // The two spellings must agree.
    CHECK(error_of(R"({"model_type": "hunyuan_vl_text", "head_dim": 128, "num_hidden_layers": 1,
        "rope_scaling": {"type": "xdrope", "alpha": 1000.0, "factor": 1.0, "xdrope_section": [16, 16, 16, 16],
                         "mrope_section": [32, 16, 16]}})")
              .rfind("rope_scaling.mrope_section: expected the values of xdrope_section", 0) == 0);
}

TEST_CASE("[ernie4_5_vl_moe/configuration_ernie4_5_vl_moe.py, modeling_ernie4_5_vl_moe.py (transformers 5.16)] "
          "ERNIE-4.5-VL 3-D RoPE")
{
    // ERNIE-4.5-VL-28B-A3B's text config as public ports quote it: hidden 2560 / 20 heads = 128, 28 layers,
    // rope_theta 500000, no mrope_section (the rotary embedding's default [22, 22, 20]).
    const auto m = posenc::hf::parse_model(R"({"model_type": "ernie4_5_vl_moe", "text_config": {"hidden_size": 2560,
        "num_attention_heads": 20, "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 131072,
        "rope_theta": 500000.0}})");
    CHECK(m.model_type == "ernie4_5_vl_moe_text");
    check_uniform_plain(m, 28, 128, 128, 500000.0, posenc::Pairing::interleaved);
    REQUIRE(m.rope.multi_axis().has_value());
    CHECK(m.rope.multi_axis()->kind() == posenc::MultiAxisKind::height_width_alternating);
    CHECK(m.rope.multi_axis()->mrope_section() == std::vector<int> {22, 22, 20});
    // pairs 0, 2, ..., 42 height, 1, 3, ..., 43 width, 44 .. 63 time (the stack / flatten of freq_h and freq_w)
    const std::vector<int> axes = m.rope.multi_axis()->pair_axes();
    REQUIRE(axes.size() == 64);
    CHECK(axes[0] != axes[1]);
    CHECK(axes[0] == axes[42]);
    CHECK(axes[1] == axes[43]);
    for (std::size_t i = 44; i < 64; ++i) CHECK(axes[i] == axes[44]);
    CHECK(axes[44] != axes[0]);
    CHECK(axes[44] != axes[1]);
}

TEST_CASE("[minicpm3/configuration_minicpm3.py, minicpm3/modeling_minicpm3.py (transformers 5.16)] MLA rope part, "
          "rotate_half")
{
    // MiniCPM3-4B's published sizes: 40 heads of hidden 2560, qk_rope_head_dim 32, qk_nope_head_dim 64,
    // rope_theta 10000; the class defaults are the same 32 / 64. The rotary table is 32 wide, half_split
    // (apply_rotary_pos_emb with rotate_half on the rope part); the softmax width is 64 + 32 = 96.
    const auto m = posenc::hf::parse_model(R"({"model_type": "minicpm3", "hidden_size": 2560, "num_attention_heads": 40,
        "num_hidden_layers": 62, "max_position_embeddings": 32768, "rope_theta": 10000.0})");
    check_uniform_plain(m, 62, 32, 32, 10000.0, posenc::Pairing::half_split);
    CHECK(m.qk_head_dim == 96);
    CHECK(m.rope.primary_group().max_position_embeddings == 32768);
    CHECK(m.rope.primary_group().softmax_scale_multiplier == 1.0);
}

TEST_CASE("[olmo3/modular_olmo3.py] base 500000; per-layer-type dicts read; one scaled dict refused")
{
    // Unscaled: Olmo3RotaryEmbedding builds one table per layer type: two groups with equal tables.
    const auto plain =
        posenc::hf::parse_model(R"({"model_type": "olmo3", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 4, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]})");
    REQUIRE(plain.rope.num_groups() == 2);
    CHECK(plain.rope.layer_map() == std::vector<int> {0, 0, 0, 1});
    for (const char* type : {"sliding_attention", "full_attention"})
        check_group(plain.rope.group(type), 128, 128, 500000.0, posenc::Pairing::half_split,
                    plain_inv_freq(500000.0, 128));
    CHECK(plain.rope.primary_group().max_position_embeddings == 2048);
    // layer_types absent: olmo3/configuration_olmo3.py's default, sliding unless (i + 1) % 4 == 0.
    const auto derived = posenc::hf::parse_model(R"({"model_type": "olmo3", "head_dim": 128, "num_hidden_layers": 8})");
    CHECK(derived.rope.layer_map() == std::vector<int> {0, 0, 0, 1, 0, 0, 0, 1});
    CHECK(derived.rope.groups()[0].name == "sliding_attention");
    // A top-level rope_theta other than 500000 reaches only the full_attention layers in transformers 5.16.
    CHECK(error_of(R"({"model_type": "olmo3", "head_dim": 128, "num_hidden_layers": 4, "rope_theta": 1000000})") ==
          "rope_theta: expected 500000 or per-layer-type rope_parameters: transformers gives only full_attention "
          "layers the top-level rope_theta and sliding_attention layers the class default 500000, got 1000000");
    // v5 per-layer-type rope_parameters: one group per type, as given.
    const auto per_type = posenc::hf::parse_model(R"({"model_type": "olmo3", "head_dim": 128, "num_hidden_layers": 4,
        "max_position_embeddings": 65536,
        "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 500000},
                            "full_attention": {"rope_type": "yarn", "rope_theta": 500000, "factor": 8.0,
                                               "original_max_position_embeddings": 8192}}})");
    REQUIRE(per_type.rope.num_groups() == 2);
    CHECK(per_type.rope.layer_map() == std::vector<int> {0, 0, 0, 1});
    check_group(per_type.rope.group("sliding_attention"), 128, 128, 500000.0, posenc::Pairing::half_split,
                plain_inv_freq(500000.0, 128));
    CHECK(std::holds_alternative<posenc::YarnScaling>(per_type.rope.group("full_attention").scaling));
    // A legacy rope_scaling beside them that repeats the full_attention entry: read the same way.
    const auto both = posenc::hf::parse_model(R"({"model_type": "olmo3", "head_dim": 128, "num_hidden_layers": 4,
        "max_position_embeddings": 65536,
        "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
        "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192},
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 500000},
                            "full_attention": {"rope_type": "yarn", "rope_theta": 500000, "factor": 8.0,
                                               "original_max_position_embeddings": 8192}}})");
    CHECK(both.rope.layer_map() == std::vector<int> {0, 0, 0, 1});
    CHECK(error_of(R"({"model_type": "olmo3", "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 65536,
                       "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192}})")
              .rfind("rope_scaling.rope_type: is not representable as one dict: OLMo 3 scales only its full_attention "
                     "layers",
                     0) == 0);
}

TEST_CASE("[granitemoehybrid, zamba2, dbrx, minimax modeling files] refused, naming the key")
{
    CHECK(error_of(R"({"model_type": "granitemoehybrid", "hidden_size": 1024, "num_attention_heads": 16,
                       "position_embedding_type": "rope"})")
              .rfind("position_embedding_type: is not representable: GraniteMoeHybrid rotates only when", 0) == 0);
    CHECK(error_of(R"({"model_type": "granitemoehybrid", "hidden_size": 1024, "num_attention_heads": 16})")
              .rfind("model_type: is not representable: GraniteMoeHybrid", 0) == 0);
    CHECK(error_of(R"({"model_type": "zamba2", "hidden_size": 2560, "num_attention_heads": 32, "use_mem_rope": true})")
              .rfind("use_mem_rope: is not representable: Zamba2 rotates only its shared hybrid blocks", 0) == 0);
    CHECK(error_of(R"({"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "attn_config": {"rope_theta": 500000}})")
              .rfind("attn_config: is not representable: DBRX keeps rope_theta in attn_config", 0) == 0);
    CHECK(error_of(R"({"model_type": "minimax", "hidden_size": 6144, "num_attention_heads": 64})")
              .rfind("model_type: is not representable: MiniMax rotates only its full-attention layers", 0) == 0);
    const std::string minimax =
        error_of(R"({"model_type": "minimax", "hidden_size": 6144, "num_attention_heads": 64})");
    CHECK(minimax.find("(minimax/modular_minimax.py)") != std::string::npos);
}

TEST_CASE("[gpt_neox/configuration_gpt_neox.py (transformers 5.16 and 4.x)] the base is rotary_emb_base; a top-level "
          "rope_theta is not read")
{
    // 5.16: rope_parameters.setdefault("rope_theta", kwargs.pop("rotary_emb_base", default_theta 10000)); 4.x:
    // self.rope_theta = rotary_emb_base after the generic kwargs. Neither reads a top-level rope_theta.
    const auto only_theta = posenc::hf::parse_model(R"({"model_type": "gpt_neox", "hidden_size": 512,
        "num_attention_heads": 8, "rotary_pct": 1.0, "rope_theta": 123456})");
    CHECK(only_theta.rope.primary_group().spec.base() == 10000.0);
    CHECK(has_warning(only_theta, "rope_theta"));
    const auto both = posenc::hf::parse_model(R"({"model_type": "gpt_neox", "hidden_size": 512,
        "num_attention_heads": 8, "rotary_pct": 1.0, "rotary_emb_base": 20000, "rope_theta": 5})");
    CHECK(both.rope.primary_group().spec.base() == 20000.0);
    // Llama's configuration class reads rope_theta and not rotary_emb_base.
    const auto llama = posenc::hf::parse_model(R"({"model_type": "llama", "hidden_size": 512,
        "num_attention_heads": 8, "rotary_emb_base": 20000})");
    CHECK(llama.rope.primary_group().spec.base() == 10000.0);
    CHECK(has_warning(llama, "rotary_emb_base"));
}

TEST_CASE("[mixtral, cohere, qwen3_vl, glm configuration files (transformers 5.16)] class-default base and head_dim "
          "when the config has none")
{
    // default_theta: Mixtral 1e6, Cohere 5e5; Qwen3-VL's text config 5e5 with head_dim 128; GLM head_dim
    // 128 whatever hidden_size // num_attention_heads is (768 // 4 = 192 here), partial factor 0.5.
    CHECK(posenc::hf::parse_model(R"({"model_type": "mixtral", "head_dim": 64})").rope.primary_group().spec.base() ==
          1e6);
    CHECK(posenc::hf::parse_model(R"({"model_type": "cohere", "head_dim": 64})").rope.primary_group().spec.base() ==
          5e5);
    const auto glm = posenc::hf::parse_model(R"({"model_type": "glm", "hidden_size": 768, "num_attention_heads": 4})");
    CHECK(glm.rope.primary_group().spec.head_dim() == 128);
    CHECK(glm.rope.primary_group().spec.rotary_dim() == 64);
    const auto qwen3_vl = posenc::hf::parse_model(R"({"model_type": "qwen3_vl", "text_config": {"hidden_size": 768,
        "num_attention_heads": 4}})");
    CHECK(qwen3_vl.rope.primary_group().spec.head_dim() == 128);
    CHECK(qwen3_vl.rope.primary_group().spec.base() == 5e5);
}

TEST_CASE("[gptj/modeling_gptj.py, codegen/modeling_codegen.py; moshi/modeling_moshi.py] GPT-J reads no RoPE dict; "
          "Moshi's depth decoder has no RoPE")
{
    // create_sinusoidal_positions(max_positions, rotary_dim) at base 10000: no rope_scaling,
    // rope_parameters or rope_theta is read (transformers 4 and 5).
    const auto gptj = posenc::hf::parse_model(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 2,
        "rotary_dim": 64, "rope_theta": 500000, "rope_scaling": {"rope_type": "linear", "factor": 4.0}})");
    CHECK(has_warning(gptj, "rope_scaling"));
    CHECK(has_warning(gptj, "rope_theta"));
    check_uniform_plain(gptj, 2, 256, 64, 10000.0, posenc::Pairing::interleaved);
    // MoshiDepthDecoder builds its layers with use_rope=False.
    CHECK(error_of(R"({"model_type": "moshi_depth"})").rfind("model_type: has no RoPE", 0) == 0);
}

TEST_CASE("[deepseek_v3, glm4_moe_lite, mistral4, deepseek_ocr2 configuration and modeling files (transformers 5.16)] "
          "a head_dim key in MLA and fixed-head families")
{
    // DeepSeek-V3: the class sets head_dim = qk_rope_head_dim and a head_dim key overrides it; the rotary
    // table is head_dim wide while the attention rotates qk_rope_head_dim: another width cannot be applied.
    CHECK(error_of(R"({"model_type": "deepseek_v3", "head_dim": 96})")
              .rfind("head_dim: expected qk_rope_head_dim's value 64", 0) == 0);
    const auto v3 = posenc::hf::parse_model(R"({"model_type": "deepseek_v3", "head_dim": 64, "num_hidden_layers": 2})");
    CHECK(v3.rope.primary_group().spec.rotary_dim() == 64);
    // GLM-4.7-Flash (glm4_moe_lite): attribute_map head_dim -> qk_rope_head_dim.
    const auto lite =
        posenc::hf::parse_model(R"({"model_type": "glm4_moe_lite", "head_dim": 96, "num_hidden_layers": 2})");
    CHECK(lite.rope.primary_group().spec.rotary_dim() == 96);
    CHECK(error_of(R"({"model_type": "glm4_moe_lite", "head_dim": 96, "qk_rope_head_dim": 64})")
              .rfind("head_dim: expected the value of qk_rope_head_dim 64", 0) == 0);
    // Mistral 4: the head is qk_nope_head_dim + qk_rope_head_dim (64 + 64); a head_dim key of another
    // width would build a table the attention's rope part cannot take.
    CHECK(error_of(R"({"model_type": "mistral4", "head_dim": 96})")
              .rfind("head_dim: expected qk_nope_head_dim + qk_rope_head_dim = 128", 0) == 0);
    // DeepSeek-OCR 2's text model declares head_dim and sets it to hidden_size // num_attention_heads.
    const auto ocr = posenc::hf::parse_model(R"({"model_type": "deepseek_ocr2_text", "hidden_size": 1024,
                                                "num_attention_heads": 8, "head_dim": 96, "num_hidden_layers": 2})");
    CHECK(ocr.rope.primary_group().spec.head_dim() == 128);
    CHECK(has_warning(ocr, "head_dim"));
    // Cohere 2: its rotary embedding and attention both read a head_dim key.
    const auto cohere2 = posenc::hf::parse_model(R"({"model_type": "cohere2", "hidden_size": 1024,
                                                    "num_attention_heads": 8, "head_dim": 96, "num_hidden_layers": 4})");
    CHECK(cohere2.rope.primary_group().spec.head_dim() == 96);
}

TEST_CASE("[qwen2_vl/modeling_qwen2_vl.py, qwen2_5_vl/modeling_qwen2_5_vl.py (transformers 5.16)] mrope_interleaved is "
          "not read: contiguous sections")
{
    // apply_multimodal_rotary_pos_emb cuts the pairs into contiguous sections [t, h, w]; no modeling
    // file reads mrope_interleaved (Qwen3-VL interleaves always). Sections [4, 6, 6]: pairs 0-3 temporal,
    // 4-9 height, 10-15 width.
    const auto m = posenc::hf::parse_model(R"({"model_type": "qwen2_vl", "hidden_size": 256, "num_attention_heads": 8,
        "num_hidden_layers": 1, "rope_scaling": {"type": "mrope", "mrope_section": [4, 6, 6], "mrope_interleaved": true}})");
    CHECK(has_warning(m, "rope_scaling.mrope_interleaved"));
    REQUIRE(m.rope.multi_axis().has_value());
    std::vector<int> want;
    for (int i = 0; i < 16; ++i) want.push_back(i < 4 ? 0 : i < 10 ? 1 : 2);
    CHECK(m.rope.multi_axis()->pair_axes() == want);
}

}  // namespace models_hf_families_tests_tests
