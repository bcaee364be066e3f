// SPDX-License-Identifier: MIT
// posenc/export/rope_freqs.hpp: the per-pair RoPE factor tensors a GGUF file stores for Llama 3
// and LongRoPE models.
//
// llama.cpp's converter (convert_hf_to_gguf.py) writes, as float32 tensors of P = rotary_dim / 2
// values, and llama.cpp divides pair i's frequency by the factor it reads (ggml_rope_ext's
// freq_factors):
//
//   llama3 ("rope_freqs")            f_i = theta_i / theta'_i, the default frequency over the
//                                    Llama 3 one, with lambda_i = 2 pi / theta_i, L0 the original
//                                    length, s = factor, lf / hf = low / high_freq_factor:
//                                        lambda_i < L0 / hf   f_i = 1
//                                        lambda_i > L0 / lf   f_i = s
//                                        otherwise            f_i = 1 / ((1 - m_i) / s + m_i),
//                                                             m_i = (L0 / lambda_i - lf) / (hf - lf)
//   longrope ("rope_factors_long",   the config's long_factor and short_factor as they are
//    "rope_factors_short")           (Phi-3 and later LongRoPE models).
//
// Here theta_i and the bands are posenc's exact ones (double; llama3.hpp), so f_i is the formula
// rounded once to float32. The converter computes theta_i in float32 first; the two agree except
// for a pair whose wavelength lies within float32 rounding of a band edge (none in Llama 3.1/3.2).
// Other scalings have no factor tensor (GGUF stores a linear factor or YaRN's parameters as
// metadata): asking for one is refused with posenc::error naming the rope type.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/scaling/llama3.hpp"
#include "posenc/scaling/longrope.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc::exports {

/// One GGUF tensor of per-pair factors: its name as llama.cpp spells it and P float32 values.
struct GgufRopeFactors {
    std::string name;  ///< "rope_freqs", "rope_factors_long" or "rope_factors_short"
    std::vector<float> values;
};

/// Llama 3's rope_freqs: f_i of the file comment for every pair of `spec`.
inline std::vector<float> llama3_rope_freqs(const RopeSpec& spec, const Llama3Scaling& llama)
{
    const FrequencyTable native = FrequencyTable::from_spec(spec);
    const std::vector<Llama3Band> bands = llama3_bands(spec, llama);
    const double s = llama.factor();
    const double l0 = static_cast<double>(llama.original_max_position_embeddings());
    std::vector<float> out;
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const Llama3Band band = bands[static_cast<std::size_t>(i)];
        if (band != Llama3Band::smoothed) {
            out.push_back(band == Llama3Band::kept ? 1.0f : static_cast<float>(s));
            continue;
        }
        const double wavelength = native.period(i);
        const double m =
            (l0 / wavelength - llama.low_freq_factor()) / (llama.high_freq_factor() - llama.low_freq_factor());
        out.push_back(static_cast<float>(1.0 / ((1.0 - m) / s + m)));
    }
    return out;
}

/// The factor tensors a GGUF conversion stores for `scaling`: {rope_freqs} for Llama 3,
/// {rope_factors_long, rope_factors_short} for LongRoPE. Throws posenc::error for any other
/// scaling ("rope_type \"yarn\" has no per-pair factor tensor in GGUF (only llama3 and longrope)")
/// and when a LongRoPE factor list does not have spec.num_pairs() entries.
inline std::vector<GgufRopeFactors> gguf_rope_factors(const RopeSpec& spec, const Scaling& scaling)
{
    if (const auto* llama = std::get_if<Llama3Scaling>(&scaling))
        return {{"rope_freqs", llama3_rope_freqs(spec, *llama)}};
    if (const auto* longrope = std::get_if<LongRopeScaling>(&scaling)) {
        const auto as_float = [&](const std::vector<double>& v, const char* field) {
            if (v.size() != static_cast<std::size_t>(spec.num_pairs()))
                posenc::detail::raise(field, v.size(),
                                      "must equal the pairs of the spec (" + std::to_string(spec.num_pairs()) + ")");
            return std::vector<float>(v.begin(), v.end());
        };
        return {{"rope_factors_long", as_float(longrope->long_factor(), "longrope.long_factor.size")},
                {"rope_factors_short", as_float(longrope->short_factor(), "longrope.short_factor.size")}};
    }
    posenc::detail::raise("rope_type", std::string(scaling_type_name(scaling)),
                          "has no per-pair factor tensor in GGUF (only llama3 and longrope)");
}

}  // namespace posenc::exports
