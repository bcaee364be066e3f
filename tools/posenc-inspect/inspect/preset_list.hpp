// SPDX-License-Identifier: MIT
// preset_list.hpp: posenc-inspect --list-presets. Each RoPE group's lengths are the ones an
// analysis of that preset uses (resolve_setup, model.hpp's length rules), so the list, the text
// table, JSON, CSV and the charts name the same original length L and target length L'.
#pragma once

#include <posenc/models/presets.hpp>

#include <cstdio>
#include <string>

#include "inspect/format.hpp"
#include "inspect/model.hpp"
#include "inspect/options.hpp"

namespace inspect {

namespace detail {

/// One row: name, head_dim, rotary_dim, base, scaling, "L -> L'".
inline std::string preset_row(const std::string& name, const Group& g)
{
    const Setup setup = resolve_setup(g, Options {}, false);
    const std::string type = posenc::scaling_type_name(g.scaling);
    const std::string scaling = type == "none" ? type : type + " x" + number_text(posenc::scaling_factor(g.scaling));
    const std::string lengths = std::to_string(setup.original_length) + " -> " + std::to_string(setup.target_length);
    char line[200];
    std::snprintf(line, sizeof line, "%-20s %4d %4d  %-10s  %-14s  %s\n", name.c_str(), g.spec.head_dim(),
                  g.spec.rotary_dim(), number_text(g.spec.base()).c_str(), scaling.c_str(), lengths.c_str());
    return line;
}

}  // namespace detail

/// The --list-presets table: one row per preset (one per RoPE group for whole models), with the
/// original length L and the target length L' an analysis of the preset uses.
inline std::string preset_list()
{
    std::string out;
    char line[200];
    std::snprintf(line, sizeof line, "%-20s %4s %4s  %-10s  %-14s  %s\n", "preset", "head", "rot", "base", "scaling",
                  "L -> L'");
    out += line;
    for (const posenc::ModelPreset& p : posenc::models::all_presets) {
        if (p.kind != posenc::PositionEncodingKind::rope) {
            std::snprintf(line, sizeof line, "%-20s learned position table: %lld positions x %d\n",
                          std::string(p.name).c_str(), static_cast<long long>(p.native_length), p.d_model);
            out += line;
            continue;
        }
        out += detail::preset_row(std::string(p.name), model_from_preset(p).groups.front());
    }
    for (const WholeModelPreset& p : whole_model_presets()) {
        const posenc::ModelRope rope = p.rope();
        const Model model = model_from_rope(p.display_name, rope, false);
        std::string extra;
        if (rope.num_layers()) extra += std::to_string(*rope.num_layers()) + " layers";
        if (rope.num_groups() > 1) extra += ", " + std::to_string(rope.num_groups()) + " RoPE groups";
        if (!rope.nope_layers().empty()) extra += ", " + std::to_string(rope.nope_layers().size()) + " without RoPE";
        if (rope.multi_axis()) extra += ", M-RoPE";
        const bool several = model.groups.size() > 1;
        if (several) {
            std::snprintf(line, sizeof line, "%-20s %s:\n", p.name, extra.c_str());
            out += line;
        }
        for (const Group& g : model.groups)
            out += detail::preset_row(several ? "  " + detail::cut(g.name, 18) : std::string(p.name), g);
        if (!several && !extra.empty()) {
            std::snprintf(line, sizeof line, "%-20s %s\n", "", ("  " + extra).c_str());
            out += line;
        }
    }
    return out;
}

}  // namespace inspect
