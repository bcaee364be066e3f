// SPDX-License-Identifier: MIT
// posenc/scaling/softmax_scale.hpp: the YaRN temperature some models apply to the softmax scale
// instead of (or besides) cos and sin.
//
// DeepSeek-V2/V3 (and Mistral-4) attention: with YaRN and a non-zero mscale_all_dim,
//     softmax_scale = qk_head_dim^(-1/2) * g(s, mscale_all_dim)^2
// while cos/sin carry g(s, mscale) / g(s, mscale_all_dim) (= 1 for DeepSeek-V3's 1.0 / 1.0).
// Source: DeepSeek-V3's modeling code and Hugging Face `DeepseekV3Attention.__init__`
// (docs/formulas.md H8); HF DeepSeek-V2 lacked it until PR #47435.
// DeepSeek-V3 (qk_head_dim 192 = 128 nope + 64 rope, s = 40): 0.0721687836 * 1.3688879454^2
// = 0.13523377886.
#pragma once

#include <cmath>

#include "posenc/error.hpp"
#include "posenc/scaling/yarn.hpp"

namespace posenc {

/// g(s, mscale_all_dim)^2 when mscale_all_dim is non-zero, else 1: the multiplier on the
/// softmax scale, outside cos/sin. DeepSeek-V3: 1.3688879454113936^2 = 1.87385. Error < 5 ulp.
inline double yarn_softmax_scale_multiplier(const YarnScaling& yarn) noexcept
{
    if (yarn.mscale_all_dim() == 0.0) return 1.0;
    const double m = detail::yarn_mscale_unchecked(yarn.factor(), yarn.mscale_all_dim());
    return m * m;
}

/// DeepSeek's softmax scale qk_head_dim^(-1/2) * g(s, mscale_all_dim)^2, in Hugging Face's order
/// (`qk_head_dim ** -0.5`, then `* mscale * mscale`). DeepSeek-V3: 0.1352337788608801.
/// Throws posenc::error if qk_head_dim <= 0.
inline double deepseek_softmax_scale(int qk_head_dim, const YarnScaling& yarn)
{
    detail::require(qk_head_dim > 0, "qk_head_dim", qk_head_dim, "must be > 0");
    double scale = std::pow(static_cast<double>(qk_head_dim), -0.5);
    if (yarn.mscale_all_dim() != 0.0) {
        const double m = detail::yarn_mscale_unchecked(yarn.factor(), yarn.mscale_all_dim());
        scale = scale * m * m;
    }
    return scale;
}

}  // namespace posenc
