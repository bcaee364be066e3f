// SPDX-License-Identifier: MIT
// libFuzzer target: (RopeSpec, Scaling) construction from arbitrary numbers.
// Contract under test: an input is either refused with posenc::error, or accepted; once a spec
// and a scaling are accepted, every table built from them (both precisions, any sequence
// length) has frequencies that are normal numbers of its precision (never 0, subnormal or inf;
// proportional RoPE's unrotated pairs, exactly 0, excepted) and an attention factor in
// [2^-10, 2^10], or is refused with posenc::error. Nothing else escapes; no NaN passes silently.
#include <posenc/posenc.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <variant>
#include <vector>

namespace {

posenc::Scaling make_scaling(FuzzedDataProvider& in, int pairs)
{
    const double factor = in.ConsumeFloatingPoint<double>();
    const std::int64_t length = in.ConsumeIntegral<std::int64_t>();
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return posenc::NoScaling {};
    case 1: return posenc::LinearScaling(factor);
    case 2: return posenc::NtkAwareScaling(factor);
    case 3: return posenc::DynamicNtkScaling(factor, length);
    case 4: {
        posenc::YarnScaling y(factor, length);
        if (in.ConsumeBool()) y = y.with_betas(in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>());
        if (in.ConsumeBool()) y = y.with_mscale(in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>());
        if (in.ConsumeBool()) y = y.with_attention_factor(in.ConsumeFloatingPoint<double>());
        if (in.ConsumeBool()) y = y.with_rounding(posenc::YarnCorrectionRounding::fractional);
        if (in.ConsumeBool()) y = y.with_g2_factor_override(in.ConsumeIntegral<std::int64_t>());
        return y;
    }
    case 5:
        return posenc::Llama3Scaling(factor, in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>(),
                                     length);
    case 6: return posenc::ProportionalScaling(in.ConsumeFloatingPoint<double>(), factor);
    default: {
        // Usually the right list length, sometimes not.
        const int n = in.ConsumeBool() ? pairs : in.ConsumeIntegralInRange<int>(0, 80);
        std::vector<double> short_factor, long_factor;
        for (int i = 0; i < n; ++i) short_factor.push_back(in.ConsumeFloatingPoint<double>());
        for (int i = 0; i < n; ++i) long_factor.push_back(in.ConsumeFloatingPoint<double>());
        posenc::LongRopeScaling l(short_factor, long_factor, length, factor);
        if (in.ConsumeBool()) l = l.with_attention_factor(in.ConsumeFloatingPoint<double>());
        if (in.ConsumeBool())
            l = l.with_phimoe_mscales(in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>());
        return l;
    }
    }
}

void check_table(const std::vector<double>& inv_freq, double attention_factor, posenc::Precision precision,
                 std::size_t rotated_pairs)
{
    const double smallest = precision == posenc::Precision::exact ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
    const double largest = precision == posenc::Precision::exact ? 1.7976931348623157e308 : 3.4028234663852886e38;
    for (std::size_t i = 0; i < inv_freq.size(); ++i) {
        const double f = inv_freq[i];
        if (i >= rotated_pairs && f == 0.0) continue;
        if (!(f >= smallest && f <= largest)) std::abort();
    }
    if (!(attention_factor >= 0.0009765625 && attention_factor <= 1024.0)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    try {
        const int head_dim = in.ConsumeIntegralInRange<int>(-4, 600);
        const int rotary_dim = in.ConsumeIntegralInRange<int>(-4, 600);
        const double base = in.ConsumeFloatingPoint<double>();
        const posenc::Pairing pairing = in.ConsumeBool() ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
        const posenc::RopeSpec spec(head_dim, rotary_dim, base, pairing);
        const posenc::Scaling scaling = make_scaling(in, spec.num_pairs());
        const std::optional<std::int64_t> length =
            in.ConsumeBool() ? std::optional<std::int64_t>(in.ConsumeIntegral<std::int64_t>()) : std::nullopt;
        for (posenc::Precision precision : {posenc::Precision::exact, posenc::Precision::hf_float32}) {
            try {
                const auto* proportional = std::get_if<posenc::ProportionalScaling>(&scaling);
                const std::size_t rotated = static_cast<std::size_t>(
                    proportional ? proportional->rotated_pairs(spec.head_dim()) : spec.num_pairs());
                check_table(posenc::scaled_inv_freq(spec, scaling, length, precision),
                            posenc::scaling_attention_factor(scaling, length), precision, rotated);
            } catch (const posenc::error&) {}
        }
        const std::int64_t train = in.ConsumeIntegralInRange<std::int64_t>(-2, std::int64_t {1} << 40);
        const std::int64_t target = in.ConsumeIntegralInRange<std::int64_t>(-2, std::int64_t {1} << 40);
        const posenc::ExtensionDiagnostics d = posenc::extension_diagnostics(spec, scaling, train, target);
        for (const auto& p : d.pairs)
            if (!std::isfinite(p.inv_freq) || !std::isfinite(p.turns_original) || std::isnan(p.compression))
                std::abort();
    } catch (const posenc::error&) {
        // a clear refusal is a correct answer
    }
    return 0;
}
