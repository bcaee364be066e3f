// SPDX-License-Identifier: MIT
// posenc-inspect --config PATH --tower audio [--json]: a config's audio tower
// (posenc/models/hf_audio_tower.hpp): its 1-D RoPE over frames, so that a user can diff posenc's
// table against an engine's.
//
// JSON: {"tower": "audio", "model_type", "key_prefix", "head_dim", "rotary_dim", "theta",
// "pairing", "positions", "max_position_embeddings", "inv_freq": [...] (double, exact),
// "warnings": [{"key", "message"}]}. Text: the same facts, one per line, inv_freq's first and
// last values.
#pragma once

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <posenc/models/hf_audio_tower.hpp>

#include "inspect/options.hpp"
#include "inspect/render_json.hpp"

namespace inspect {

/// Throws UsageError unless the options form `--config PATH --tower audio [--json]`.
inline void check_audio_tower_options(const Options& o)
{
    if (o.config_path.empty()) throw UsageError("--tower applies to --config only (presets describe language models)");
    for (const char* other :
         {"--grid", "--angles", "--prompt", "--scaling", "--compare", "--factor", "--svg", "--csv", "--layer",
          "--length", "--original-length", "--assume-half-split", "--bound-pairs", "--grid-side"})
        if (o.given(other)) throw UsageError(std::string(other) + " does not apply to --tower audio");
}

inline std::string render_audio_tower_json(const posenc::hf::HfAudioTower& t)
{
    const posenc::RopeGroup& g = t.group();
    nlohmann::ordered_json j;
    j["tower"] = "audio";
    j["model_type"] = t.model_type;
    j["key_prefix"] = t.key_prefix;
    j["head_dim"] = t.head_dim;
    j["rotary_dim"] = g.spec.rotary_dim();
    j["theta"] = g.spec.base();
    j["pairing"] = posenc::to_string(g.spec.pairing());
    j["positions"] = posenc::hf::to_string(t.positions);
    j["max_position_embeddings"] = g.max_position_embeddings;
    j["inv_freq"] = g.table().inv_freq();
    nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
    for (const posenc::hf::ConfigWarning& w : t.warnings) warnings.push_back({{"key", w.key}, {"message", w.message}});
    j["warnings"] = warnings;
    return dump(j);
}

inline std::string render_audio_tower_text(const posenc::hf::HfAudioTower& t)
{
    const posenc::RopeGroup& g = t.group();
    const posenc::FrequencyTable table = g.table();
    std::ostringstream s;
    s.precision(9);
    s << "audio tower " << t.model_type << " (" << (t.key_prefix.empty() ? "the config itself" : t.key_prefix) << ")\n"
      << "  head_dim    " << t.head_dim << "\n"
      << "  rotary_dim  " << g.spec.rotary_dim() << " (" << posenc::to_string(g.spec.pairing()) << " pairs)\n"
      << "  theta       " << g.spec.base() << "\n"
      << "  positions   " << posenc::hf::to_string(t.positions) << "\n"
      << "  inv_freq    " << table.inv_freq(0) << " ... " << table.inv_freq(table.num_pairs() - 1) << " ("
      << table.num_pairs() << " pairs)\n";
    return s.str();
}

}  // namespace inspect
