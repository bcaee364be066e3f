// SPDX-License-Identifier: MIT
// python/src/scaling.cpp: the context-extension methods, Scaling, scaled tables.
#include "bindings.hpp"

#include <pybind11/operators.h>

#include <posenc/frequencies.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace posenc::python {

namespace {

py::object parameter_value(const ScalingParameter& p)
{
    return std::visit(
        [](const auto& v) -> py::object {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::vector<double>>) return to_array(v);
            else return py::cast(v);
        },
        p.value);
}

py::dict parameters_of(const Scaling& scaling)
{
    py::dict d;
    for (const ScalingParameter& p : scaling_parameters(scaling)) d[py::str(p.name)] = parameter_value(p);
    return d;
}

std::string repr_of(const Scaling& scaling)
{
    std::string out = "Scaling('" + std::string(scaling_type_name(scaling)) + "'";
    for (const ScalingParameter& p : scaling_parameters(scaling)) {
        out += ", " + p.name + "=";
        std::visit(
            [&out](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, bool>) out += v ? "True" : "False";
                else if constexpr (std::is_same_v<V, std::vector<double>>)
                    out += "[" + std::to_string(v.size()) + " values]";
                else out += posenc::detail::format_value(v);
            },
            p.value);
    }
    return out + ")";
}

/// Common members of every scaling class: type name, parameters dict, repr, equality.
template <class S, class Class>
void add_common(Class& c, const char* type_name)
{
    c.def_property_readonly_static("type_name", [type_name](const py::object&) { return type_name; })
        .def(
            "parameters", [](const S& s) { return parameters_of(Scaling {s}); },
            "The resolved parameters under Hugging Face's key names, as a dict.")
        .def("__repr__", [](const S& s) { return repr_of(Scaling {s}); })
        .def(py::self == py::self)
        .def(py::self != py::self);
}

/// LongRopeSwitchRule and the scalings with one or two numbers: none, linear, NTK-aware, dynamic NTK.
void bind_plain_scalings(py::module_& m)
{
    bind_enum<LongRopeSwitchRule>(
        m, "LongRopeSwitchRule", "What a LongRoPE model switches past L0: Phi-3's factor tables or PhiMoE's magnitude.",
        {{"phi3_factor_tables", LongRopeSwitchRule::phi3_factor_tables},
         {"phimoe_magnitude_only", LongRopeSwitchRule::phimoe_magnitude_only}});
    auto none =
        py::class_<NoScaling>(m, "NoScaling", "No context extension: theta_i = base^(-2i/R), attention factor 1.")
            .def(py::init<>());
    add_common<NoScaling>(none, "none");

    auto linear = py::class_<LinearScaling>(
        m, "LinearScaling",
        "Position Interpolation (Chen et al. 2023, arXiv 2306.15595, eq. 4): position m -> m / s, i.e.\n"
        "  theta'_i = theta_i / s,   attention factor 1      (Hugging Face 'linear').\n"
        "Invariant: s >= 1 and finite in float32.");
    linear.def(py::init<double>(), py::arg("factor")).def_property_readonly("factor", &LinearScaling::factor);
    add_common<LinearScaling>(linear, "linear");

    auto ntk = py::class_<NtkAwareScaling>(
        m, "NtkAwareScaling",
        "Static NTK-aware scaling (bloc97 2023; YaRN section 3.1): change the base, not the positions,\n"
        "  b' = b s^(R / (R - 2)),   theta'_i = b'^(-2i/R)\n"
        "so the fastest pair does not move and the slowest is divided by s exactly. Attention factor 1.");
    ntk.def(py::init<double>(), py::arg("factor")).def_property_readonly("factor", &NtkAwareScaling::factor);
    add_common<NtkAwareScaling>(ntk, "ntk_aware");

    auto dynamic = py::class_<DynamicNtkScaling>(
        m, "DynamicNtkScaling",
        "Dynamic NTK, Hugging Face's 'dynamic': with n = max(sequence_length, L), L = max_position_embeddings,\n"
        "  b' = b (s n / L - (s - 1))^(R / (R - 2)),   theta'_i = b'^(-2i/R)\n"
        "The table depends on the sequence length (pass sequence_length to frequency_table).");
    dynamic.def(py::init<double, std::int64_t>(), py::arg("factor"), py::arg("max_position_embeddings"))
        .def_property_readonly("factor", &DynamicNtkScaling::factor)
        .def_property_readonly("max_position_embeddings", &DynamicNtkScaling::max_position_embeddings);
    add_common<DynamicNtkScaling>(dynamic, "dynamic");
}

/// YarnCorrectionRounding and YarnScaling.
void bind_yarn_scaling(py::module_& m)
{
    bind_enum<YarnCorrectionRounding>(
        m, "YarnCorrectionRounding",
        "Hugging Face's YaRN `truncate`: floor_ceil (default) rounds the correction range\n"
        "outward; fractional (gpt-oss, truncate false) keeps it as computed.",
        {{"floor_ceil", YarnCorrectionRounding::floor_ceil}, {"fractional", YarnCorrectionRounding::fractional}});

    auto yarn = py::class_<YarnScaling>(
        m, "YarnScaling",
        "YaRN (Peng et al. 2023, arXiv 2309.00071, sections 3.2-3.4) as Hugging Face computes it:\n"
        "  c(r)      = R ln(L0 / (r 2 pi)) / (2 ln b)     the pair index that turns r times within L0\n"
        "  low, high = floor(c(beta_fast)), ceil(c(beta_slow)), clamped to [0, R - 1]\n"
        "  ramp_j    = clamp((j - low) / (high - low), 0, 1)\n"
        "  theta'_j  = theta_j (1 - ramp_j) + (theta_j / s) ramp_j\n"
        "  attention factor g(s) = 0.1 ln s + 1 (or g(s, mscale) / g(s, mscale_all_dim), or explicit)\n"
        "Keyword arguments set the optional fields (beta_fast 32, beta_slow 1, mscale and mscale_all_dim\n"
        "0 = unset, attention_factor None, rounding 'floor_ceil').");
    yarn.def(py::init([](double factor, std::int64_t original, double beta_fast, double beta_slow, double mscale,
                         double mscale_all_dim, std::optional<double> attention_factor,
                         YarnCorrectionRounding rounding) {
                 YarnScaling y = YarnScaling(factor, original)
                                     .with_betas(beta_fast, beta_slow)
                                     .with_mscale(mscale, mscale_all_dim)
                                     .with_rounding(rounding);
                 if (attention_factor) y = y.with_attention_factor(*attention_factor);
                 return y;
             }),
             py::arg("factor"), py::arg("original_max_position_embeddings"), py::kw_only(),
             py::arg("beta_fast") = YarnScaling::default_beta_fast,
             py::arg("beta_slow") = YarnScaling::default_beta_slow, py::arg("mscale") = 0.0,
             py::arg("mscale_all_dim") = 0.0, py::arg("attention_factor") = py::none(),
             py::arg("rounding") = YarnCorrectionRounding::floor_ceil)
        .def("with_betas", &YarnScaling::with_betas, py::arg("beta_fast"), py::arg("beta_slow"))
        .def("with_mscale", &YarnScaling::with_mscale, py::arg("mscale"), py::arg("mscale_all_dim"))
        .def("with_attention_factor", &YarnScaling::with_attention_factor, py::arg("attention_factor"))
        .def("with_rounding", &YarnScaling::with_rounding, py::arg("rounding"))
        .def("with_g2_factor_override", &YarnScaling::with_g2_factor_override, py::arg("max_position_embeddings"),
             "transformers ~4.48-4.55 compatibility: factor = max_position_embeddings / L0.")
        .def_property_readonly("factor", &YarnScaling::factor)
        .def_property_readonly("original_max_position_embeddings", &YarnScaling::original_max_position_embeddings)
        .def_property_readonly("beta_fast", &YarnScaling::beta_fast)
        .def_property_readonly("beta_slow", &YarnScaling::beta_slow)
        .def_property_readonly("mscale", &YarnScaling::mscale)
        .def_property_readonly("mscale_all_dim", &YarnScaling::mscale_all_dim)
        .def_property_readonly("explicit_attention_factor", &YarnScaling::explicit_attention_factor)
        .def_property_readonly("rounding", &YarnScaling::rounding);
    add_common<YarnScaling>(yarn, "yarn");
}

/// Llama3Band, Llama3Scaling and LongRopeScaling.
void bind_llama3_longrope_scalings(py::module_& m)
{
    bind_enum<Llama3Band>(
        m, "Llama3Band", "Which of Llama 3's bands a pair falls in.",
        {{"kept", Llama3Band::kept}, {"smoothed", Llama3Band::smoothed}, {"divided", Llama3Band::divided}});
    auto llama3 = py::class_<Llama3Scaling>(
        m, "Llama3Scaling",
        "Llama 3.1's frequency bands (Meta's apply_scaling; Hugging Face 'llama3'). With wavelength\n"
        "lambda_j = 2 pi / theta_j, lambda_lo = L0 / low_freq_factor, lambda_hi = L0 / high_freq_factor:\n"
        "  lambda_j < lambda_hi   theta_j          (kept)\n"
        "  lambda_j > lambda_lo   theta_j / s      (divided)\n"
        "  otherwise              (1 - m_j) theta_j / s + m_j theta_j,  m_j = (L0 / lambda_j - lf) / (hf - lf)");
    llama3
        .def(py::init<double, double, double, std::int64_t>(), py::arg("factor"), py::arg("low_freq_factor"),
             py::arg("high_freq_factor"), py::arg("original_max_position_embeddings"))
        .def_property_readonly("factor", &Llama3Scaling::factor)
        .def_property_readonly("low_freq_factor", &Llama3Scaling::low_freq_factor)
        .def_property_readonly("high_freq_factor", &Llama3Scaling::high_freq_factor)
        .def_property_readonly("original_max_position_embeddings", &Llama3Scaling::original_max_position_embeddings)
        .def_property_readonly("low_freq_wavelength", &Llama3Scaling::low_freq_wavelength, "L0 / low_freq_factor")
        .def_property_readonly("high_freq_wavelength", &Llama3Scaling::high_freq_wavelength, "L0 / high_freq_factor");
    add_common<Llama3Scaling>(llama3, "llama3");

    auto longrope = py::class_<LongRopeScaling>(
        m, "LongRopeScaling",
        "LongRoPE per-pair factors (Ding et al. 2024, arXiv 2402.13753; Phi-3):\n"
        "  theta'_j = theta_j / ext_j,  ext = long_factor if sequence_length > L0 else short_factor\n"
        "  attention factor sqrt(1 + ln s / ln L0) for s > 1, unless given explicitly.");
    longrope
        .def(py::init([](std::vector<double> short_factor, std::vector<double> long_factor, std::int64_t original,
                         double factor, std::optional<double> attention_factor) {
                 LongRopeScaling l(std::move(short_factor), std::move(long_factor), original, factor);
                 if (attention_factor) l = l.with_attention_factor(*attention_factor);
                 return l;
             }),
             py::arg("short_factor"), py::arg("long_factor"), py::arg("original_max_position_embeddings"),
             py::arg("factor"), py::kw_only(), py::arg("attention_factor") = py::none())
        .def("with_attention_factor", &LongRopeScaling::with_attention_factor, py::arg("attention_factor"))
        .def_property_readonly("short_factor", [](const LongRopeScaling& l) { return to_array(l.short_factor()); })
        .def_property_readonly("long_factor", [](const LongRopeScaling& l) { return to_array(l.long_factor()); })
        .def_property_readonly("original_max_position_embeddings", &LongRopeScaling::original_max_position_embeddings)
        .def_property_readonly("factor", &LongRopeScaling::factor)
        .def_property_readonly("explicit_attention_factor", &LongRopeScaling::explicit_attention_factor)
        .def("uses_long_factors", &LongRopeScaling::uses_long_factors, py::arg("sequence_length"),
             "sequence_length > L0 (strictly) under Phi-3's rule; never under PhiMoE's.")
        .def("past_original_length", &LongRopeScaling::past_original_length, py::arg("sequence_length"),
             "sequence_length > L0 (strictly).")
        .def("with_phimoe_mscales", &LongRopeScaling::with_phimoe_mscales, py::arg("short_mscale"),
             py::arg("long_mscale"),
             "PhiMoE's rule: the short table at every length, cos/sin times short_mscale up to L0 and\n"
             "long_mscale past it (modeling_phimoe.py).")
        .def_property_readonly("switch_rule", &LongRopeScaling::switch_rule)
        .def_property_readonly("short_mscale", &LongRopeScaling::short_mscale)
        .def_property_readonly("long_mscale", &LongRopeScaling::long_mscale);
    add_common<LongRopeScaling>(longrope, "longrope");
}

/// ProportionalScaling.
void bind_proportional_scaling(py::module_& m)
{
    auto proportional = py::class_<ProportionalScaling>(
        m, "ProportionalScaling",
        "Proportional RoPE (Gemma 4's full-attention layers; Hugging Face rope_type 'proportional'):\n"
        "  K = int(p * H // 2) pairs rotate with theta_i = base^(-2i/H) / factor (exponent over the whole\n"
        "  head H), the other H/2 - K pairs have frequency exactly 0; use with RopeSpec.full(H, base).\n"
        "Invariants: p in [0, 1]; factor >= 1 and finite in float32.");
    proportional.def(py::init<double, double>(), py::arg("partial_rotary_factor") = 1.0, py::arg("factor") = 1.0)
        .def_property_readonly("partial_rotary_factor", &ProportionalScaling::partial_rotary_factor)
        .def_property_readonly("factor", &ProportionalScaling::factor)
        .def("rotated_pairs", &ProportionalScaling::rotated_pairs, py::arg("head_dim"), "int(p * head_dim // 2).")
        .def("zero_freq_pairs", &ProportionalScaling::zero_freq_pairs, py::arg("head_dim"),
             "head_dim / 2 - rotated_pairs.");
    add_common<ProportionalScaling>(proportional, "proportional");
}

/// The functions of any Scaling (type name, factor, lengths, attention factor, parameters, scaled table).
void bind_scaling_queries(py::module_& m)
{
    // ---- functions of any Scaling ----------------------------------------------------------
    m.def("scaling_type_name", &scaling_type_name, py::arg("scaling"),
          "'none', 'linear', 'ntk_aware', 'dynamic', 'yarn', 'llama3', 'longrope' or 'proportional'.");
    m.def("scaling_factor", &scaling_factor, py::arg("scaling"), "The factor s (1 for none).");
    m.def("scaling_original_length", &scaling_original_length, py::arg("scaling"),
          "L0 of YaRN, Llama 3, LongRoPE; dynamic NTK's max_position_embeddings; None otherwise.");
    m.def(
        "scaling_attention_factor",
        [](const Scaling& s, std::optional<std::int64_t> n) { return scaling_attention_factor(s, n); },
        py::arg("scaling"), py::arg("sequence_length") = py::none(),
        "The factor on cos and sin: YaRN's g(s), LongRoPE's sqrt(1 + ln s / ln L0) (PhiMoE: its mscale for\n"
        "sequence_length), else 1.");
    m.def("softmax_scale_multiplier", &softmax_scale_multiplier, py::arg("scaling"),
          "g(s, mscale_all_dim)^2 for YaRN with mscale_all_dim set (DeepSeek), else 1.");
    m.def("scaling_parameters", &parameters_of, py::arg("scaling"),
          "The resolved parameters under Hugging Face's key names, as a dict.");
    m.def(
        "scaled_inv_freq",
        [](const RopeSpec& spec, const Scaling& scaling, std::optional<std::int64_t> sequence_length,
           Precision precision) { return to_array(scaled_inv_freq(spec, scaling, sequence_length, precision)); },
        py::arg("spec"), py::arg("scaling"), py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact,
        "theta'_i of `spec` under `scaling` as a float64 array (see each scaling's formula), at Hugging\n"
        "Face's init or for `sequence_length` tokens (dynamic NTK, LongRoPE).");
}

/// The per-method tables and bases of linear, NTK-aware and dynamic NTK scaling, and YaRN's correction dimension.
void bind_plain_method_tables(py::module_& m)
{
    // ---- per-method functions --------------------------------------------------------------
    m.def(
        "linear_inv_freq",
        [](const RopeSpec& s, const LinearScaling& l, Precision p) { return to_array(linear_inv_freq(s, l, p)); },
        py::arg("spec"), py::arg("scaling"), py::arg("precision") = Precision::exact, "theta'_i = theta_i / s.");
    m.def("ntk_aware_base", &ntk_aware_base, py::arg("spec"), py::arg("scaling"),
          "b' = b s^(R / (R - 2)) (bloc97's order). Qwen3-8B x4: 4,088,994.24.");
    m.def(
        "ntk_aware_inv_freq",
        [](const RopeSpec& s, const NtkAwareScaling& n, Precision p) { return to_array(ntk_aware_inv_freq(s, n, p)); },
        py::arg("spec"), py::arg("scaling"), py::arg("precision") = Precision::exact, "theta'_i = b'^(-2i/R).");
    m.def("dynamic_ntk_base", &dynamic_ntk_base, py::arg("spec"), py::arg("scaling"),
          py::arg("sequence_length") = py::none(),
          "b' = b (s n / L - (s - 1))^(R / (R - 2)), n = max(sequence_length, L).");
    m.def(
        "dynamic_ntk_inv_freq",
        [](const RopeSpec& s, const DynamicNtkScaling& d, std::optional<std::int64_t> n, Precision p) {
            return to_array(dynamic_ntk_inv_freq(s, d, n, p));
        },
        py::arg("spec"), py::arg("scaling"), py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact, "theta'_i = b'^(-2i/R) with dynamic_ntk_base's b'.");
    m.def(
        "yarn_mscale",
        [](double scale, double mscale) {
            if (!(std::isfinite(scale) && scale > 0)) posenc::detail::raise("scale", scale, "must be finite and > 0");
            require_finite("mscale", mscale);
            const double g = yarn_mscale(scale, mscale);
            if (!std::isfinite(g))
                posenc::detail::raise("mscale", mscale, "must keep 0.1 * mscale * ln(scale) + 1 finite");
            return g;
        },
        py::arg("scale"), py::arg("mscale") = 1.0,
        "g(s, mscale) = 1 if s <= 1 else 0.1 mscale ln s + 1 (YaRN eq. 22). g(4) = 1.138629, g(16) = 1.277259.");
    m.def("yarn_attention_factor", &yarn_attention_factor, py::arg("yarn"),
          "The factor YaRN multiplies cos and sin by: explicit, or g(s, mscale) / g(s, mscale_all_dim) when\n"
          "both are set, else g(s, 1). Qwen3 x4: 1.138629436111989.");
    m.def(
        "yarn_correction_dim",
        [](const RopeSpec& spec, double num_rotations, std::int64_t original_length) {
            if (!(std::isfinite(num_rotations) && num_rotations > 0))
                posenc::detail::raise("num_rotations", num_rotations, "must be finite and > 0");
            if (original_length <= 0) posenc::detail::raise("original_length", original_length, "must be > 0");
            return yarn_correction_dim(spec, num_rotations, original_length);
        },
        py::arg("spec"), py::arg("num_rotations"), py::arg("original_length"),
        "c(r) = R ln(L0 / (r 2 pi)) / (2 ln b): the fractional pair index whose period turns r times in L0.");
}

/// YaRN's correction range and ramp, and the per-method tables of YaRN, Llama 3, LongRoPE and proportional RoPE.
void bind_yarn_llama3_longrope_tables(py::module_& m)
{
    py::class_<YarnCorrectionRange>(m, "YarnCorrectionRange",
                                    "raw_low = c(beta_fast), raw_high = c(beta_slow); low/high after rounding and the\n"
                                    "clamp to [0, R - 1]; ramp_high = high, or high + 0.001 when low == high.")
        .def_readonly("raw_low", &YarnCorrectionRange::raw_low)
        .def_readonly("raw_high", &YarnCorrectionRange::raw_high)
        .def_readonly("low", &YarnCorrectionRange::low)
        .def_readonly("high", &YarnCorrectionRange::high)
        .def_readonly("ramp_high", &YarnCorrectionRange::ramp_high)
        .def("__repr__", [](const YarnCorrectionRange& r) {
            return "YarnCorrectionRange(raw_low=" + posenc::detail::format_value(r.raw_low) +
                   ", raw_high=" + posenc::detail::format_value(r.raw_high) +
                   ", low=" + posenc::detail::format_value(r.low) + ", high=" + posenc::detail::format_value(r.high) +
                   ")";
        });
    m.def("yarn_correction_range", &yarn_correction_range, py::arg("spec"), py::arg("yarn"),
          "Qwen3-8B x4: raw 23.596 / 39.651 -> [23, 40] (lesson C2-5).");
    m.def(
        "yarn_ramp", [](const RopeSpec& s, const YarnScaling& y) { return to_array(yarn_ramp(s, y)); }, py::arg("spec"),
        py::arg("yarn"), "ramp_j = clamp((j - low) / (ramp_high - low), 0, 1): 0 keeps pair j, 1 divides it by s.");
    m.def(
        "yarn_inv_freq",
        [](const RopeSpec& s, const YarnScaling& y, Precision p) { return to_array(yarn_inv_freq(s, y, p)); },
        py::arg("spec"), py::arg("yarn"), py::arg("precision") = Precision::exact,
        "YaRN's frequencies (Peng et al. 2023, NTK-by-parts, Hugging Face's order):\n"
        "  theta'_j = theta_j (1 - ramp_j) + (theta_j / s) ramp_j,  theta_j = b^(-2j/R),\n"
        "  ramp_j = clamp((j - low) / (high - low), 0, 1),  low = floor(c(beta_fast)), high = ceil(c(beta_slow)),\n"
        "  c(r) = R ln(L0 / (2 pi r)) / (2 ln b).\n"
        "Pairs that turn more than beta_fast (32) times within L0 keep their frequency; pairs that turn\n"
        "less than beta_slow (1) times are divided by s; the ramp blends between.\n"
        "exact: double, relative error < (3 + |ln b|) 2^-52; hf_float32: Hugging Face's float32 values.");
    m.def("llama3_bands", &llama3_bands, py::arg("spec"), py::arg("llama"), py::arg("precision") = Precision::exact,
          "The band (kept, smoothed, divided) of every pair. Llama-3.1-8B: 0-28 kept, 29-34 smoothed, 35-63 divided.");
    m.def(
        "llama3_inv_freq",
        [](const RopeSpec& s, const Llama3Scaling& l, Precision p) { return to_array(llama3_inv_freq(s, l, p)); },
        py::arg("spec"), py::arg("llama"), py::arg("precision") = Precision::exact,
        "Llama 3's frequencies (see Llama3Scaling).");
    m.def(
        "longrope_attention_factor",
        [](const LongRopeScaling& l, std::optional<std::int64_t> n) { return longrope_attention_factor(l, n); },
        py::arg("longrope"), py::arg("sequence_length") = py::none(),
        "Phi-3's rule: explicit, else sqrt(1 + ln s / ln L0) for s > 1 (Phi-3-mini-128k: 1.1902380714238083),\n"
        "at every length. PhiMoE's rule: long_mscale when sequence_length > L0, else short_mscale.");
    m.def(
        "proportional_inv_freq",
        [](const RopeSpec& s, const ProportionalScaling& p, Precision precision) {
            return to_array(proportional_inv_freq(s, p, precision));
        },
        py::arg("spec"), py::arg("proportional"), py::arg("precision") = Precision::exact,
        "Proportional RoPE's table (see ProportionalScaling); spec.rotary_dim must equal spec.head_dim.");
    m.def(
        "longrope_inv_freq",
        [](const RopeSpec& s, const LongRopeScaling& l, std::optional<std::int64_t> n, Precision p) {
            return to_array(longrope_inv_freq(s, l, n, p));
        },
        py::arg("spec"), py::arg("longrope"), py::arg("sequence_length") = py::none(),
        py::arg("precision") = Precision::exact,
        "theta'_j = theta_j / ext_j (short or long factors by sequence_length).");
    m.def("yarn_softmax_scale_multiplier", &yarn_softmax_scale_multiplier, py::arg("yarn"),
          "g(s, mscale_all_dim)^2 when mscale_all_dim is set, else 1. DeepSeek-V3: 1.87385.");
    m.def("deepseek_softmax_scale", &deepseek_softmax_scale, py::arg("qk_head_dim"), py::arg("yarn"),
          "qk_head_dim^(-1/2) g(s, mscale_all_dim)^2. DeepSeek-V3: 0.1352337788608801.");
}

}  // namespace

void bind_scaling(py::module_& m)
{
    bind_plain_scalings(m);
    bind_yarn_scaling(m);
    bind_llama3_longrope_scalings(m);
    bind_proportional_scaling(m);
    bind_scaling_queries(m);
    bind_plain_method_tables(m);
    bind_yarn_llama3_longrope_tables(m);
}

}  // namespace posenc::python
