// posenc/models/presets.hpp: the models the lessons use, as data.
//
// Sources: lesson C2-5 (shared/seeds/001_*.txt) model table, lesson C2-2 (000_*.txt) for
// Qwen3 / Qwen3.8 / GPT-2, and the public configs of Qwen3-8B and GPT-2. A value a lesson
// does not state is marked "assumed" with the reason.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "posenc/error.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// How a preset encodes position.
enum class PositionEncodingKind { rope, learned_absolute };

/// One model's position-encoding facts.
struct ModelPreset {
    std::string_view name;          ///< lookup key, e.g. "qwen3-8b"
    std::string_view display_name;  ///< as the lessons write it, e.g. "Qwen3-8B"
    PositionEncodingKind kind;
    int d_model;                    ///< hidden size (0 where no source states it)
    int num_heads;                  ///< attention heads (0 where no source states it)
    int head_dim;
    int rotary_dim;                 ///< 0 for a learned table
    double base;                    ///< rope_theta; 0 for a learned table
    Pairing pairing;
    std::int64_t native_length;     ///< training / original context length
    std::int64_t extended_length;   ///< context after the model's shipped extension (= native if none)

    /// The model's RopeSpec. Throws posenc::error for a preset that does not use RoPE.
    RopeSpec rope_spec() const
    {
        if (kind != PositionEncodingKind::rope)
            detail::raise("preset", std::string(name), "uses a learned position table, not RoPE");
        return RopeSpec(head_dim, rotary_dim, base, pairing);
    }

    /// Parameters of a learned absolute table, native_length x d_model (0 for RoPE presets).
    std::int64_t learned_table_parameters() const noexcept
    {
        return kind == PositionEncodingKind::learned_absolute ? native_length * d_model : 0;
    }
};

namespace models {

/// Qwen3-8B: base 1e6, all 128 dims rotate, native 32,768, YaRN x4 -> 131,072 (lesson C2-5 table;
/// hidden 4096 / 32 heads from its config.json).
inline constexpr ModelPreset qwen3_8b{
    "qwen3-8b", "Qwen3-8B", PositionEncodingKind::rope, 4096, 32, 128, 128, 1e6, Pairing::half_split, 32768, 131072};

/// Qwen3.8-27B: base 1e7, 64 of 256 dims rotate (25%), native 262,144, YaRN x4 -> 1,048,576 (lesson C2-5).
/// d_model and heads: not stated by the lesson. Pairing: assumed half_split like every Qwen.
inline constexpr ModelPreset qwen3_8_27b{"qwen3.8-27b",  "Qwen3.8-27B", PositionEncodingKind::rope, 0, 0, 256, 64,
                                         1e7,            Pairing::half_split,  262144, 1048576};

/// DeepSeek-V4.1-Flash: base 10,000, 64 rotary dims of a 512-dim head, native 65,536, YaRN x16 -> 1,048,576
/// (lesson C2-5). Pairing: assumed interleaved like DeepSeek-V2/V3 (HF de-interleaves to half_split).
inline constexpr ModelPreset deepseek_v4_1_flash{
    "deepseek-v4.1-flash", "DeepSeek-V4.1-Flash", PositionEncodingKind::rope, 0, 0, 512, 64, 1e4,
    Pairing::interleaved,  65536,                 1048576};

/// The course's small model: d_model 256, 8 heads of 32 dims, base 10,000, training length 128 (lesson C2-5).
/// Pairing: assumed half_split (Hugging Face's default); the lesson does not say.
inline constexpr ModelPreset course_small{"course-small", "course small model", PositionEncodingKind::rope, 256, 8, 32,
                                          32,             1e4,                  Pairing::half_split,       128, 128};

/// GPT-2: a learned position table of n_positions 1,024 x n_embd 768 (lesson C2-2).
inline constexpr ModelPreset gpt2{"gpt2", "GPT-2", PositionEncodingKind::learned_absolute, 768, 12, 64, 0, 0.0,
                                  Pairing::half_split, 1024, 1024};

/// Every preset, in lesson order.
inline constexpr std::array<ModelPreset, 5> all_presets{qwen3_8b, qwen3_8_27b, deepseek_v4_1_flash, course_small,
                                                        gpt2};

/// The preset called `name` (its `name` field). Throws posenc::error listing the known names otherwise.
inline const ModelPreset& find_preset(std::string_view name)
{
    std::string known;
    for (const ModelPreset& p : all_presets) {
        if (p.name == name) return p;
        known += (known.empty() ? "" : ", ") + std::string(p.name);
    }
    detail::raise("preset", std::string(name), "is not a known preset (known: " + known + ")");
}

}  // namespace models
}  // namespace posenc
