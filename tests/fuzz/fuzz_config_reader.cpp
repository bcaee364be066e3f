// libFuzzer target: the config reader on arbitrary bytes.
// Contract under test: every input is either accepted, with a RopeSpec-valid result, or refused
// with posenc::error; nothing else escapes, nothing crashes, nothing reads out of bounds.
#include <posenc/models/hf_config_json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const posenc::hf::HfRopeConfig c = posenc::hf::parse_config(text);
        const bool valid = c.head_dim > 0 && c.rotary_dim > 0 && c.rotary_dim % 2 == 0 && c.rotary_dim <= c.head_dim &&
                           std::isfinite(c.rope_theta) && c.rope_theta > 1.0 && (!c.factor || *c.factor >= 1.0);
        if (!valid) std::abort();
        posenc::RopeSpec(c.head_dim, c.rotary_dim, c.rope_theta, c.pairing);  // must not throw after acceptance
    } catch (const posenc::error&) {
        // a clear refusal is a correct answer
    }
    return 0;
}
