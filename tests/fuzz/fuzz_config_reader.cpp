// SPDX-License-Identifier: MIT
// libFuzzer target: the config reader, both stages, on arbitrary bytes.
// Contract under test: every input is either accepted, with a RopeSpec-valid result whose
// frequency table and extension diagnostics exist and are finite, or refused with posenc::error;
// nothing else escapes, nothing crashes, nothing reads out of bounds.
#include <posenc/analysis/diagnostics.hpp>
#include <posenc/models/hf_config.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        // First stage (JSON): the plain values of the primary group.
        const posenc::hf::detail::HfModelConfig values = posenc::hf::detail::parse_model_values(text);
        const posenc::hf::detail::HfRopeConfig c = posenc::hf::detail::primary_values(values);
        const bool valid = c.head_dim > 0 && c.rotary_dim > 0 && c.rotary_dim % 2 == 0 && c.rotary_dim <= c.head_dim &&
                           std::isfinite(c.rope_theta) && c.rope_theta > 1.0 && (!c.factor || *c.factor >= 1.0);
        if (!valid) std::abort();

        // Second stage: the library's objects, or a refusal naming the key path.
        const posenc::hf::HfModelRope m = posenc::hf::single_group(posenc::hf::detail::model_of(values));
        const posenc::FrequencyTable table = m.table();
        if (table.num_pairs() != m.spec.num_pairs()) std::abort();
        if (!(std::isfinite(m.attention_factor) && m.attention_factor > 0.0)) std::abort();
        if (!(std::isfinite(m.softmax_scale_multiplier) && m.softmax_scale_multiplier > 0.0)) std::abort();

        // What posenc-inspect computes by default: the diagnostics from L to L x factor.
        if (m.original_length > 0) {
            const double target =
                std::round(static_cast<double>(m.original_length) * posenc::scaling_factor(m.scaling));
            if (target <= 1125899906842624.0) {  // 2^50
                const auto d = posenc::extension_diagnostics(m.spec, m.scaling, m.original_length,
                                                             static_cast<std::int64_t>(target));
                if (d.summary.pairs != m.spec.num_pairs()) std::abort();
            }
        }
    } catch (const posenc::error&) {
        // a clear refusal is a correct answer
    }
    return 0;
}
