// SPDX-License-Identifier: MIT
// report.hpp: everything posenc-inspect prints, computed before anything is printed (so an error
// can never leave half a table or half a JSON document behind).
//
// The numbers are posenc's extension diagnostics (posenc/analysis/diagnostics.hpp: the widget of
// lesson C2-5) for the setup of model.hpp, in exact (double) arithmetic.
#pragma once

#include <posenc/analysis/diagnostics.hpp>
#include <posenc/scaling/scaling.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspect/model.hpp"
#include "inspect/options.hpp"

namespace inspect {

/// A model without RoPE (GPT-2): its learned position table.
struct LearnedTable {
    std::int64_t positions;  ///< rows; position `positions` and beyond have none
    int width;               ///< d_model
    std::int64_t parameters() const { return positions * width; }
};

/// One run's results.
struct Report {
    std::string name;
    std::optional<LearnedTable> learned_table;  ///< set for a learned-table model; the rest is then empty
    posenc::Scaling scaling;
    posenc::ExtensionDiagnostics diagnostics;   ///< per pair and counts; softmax multiplier per model.hpp
    std::vector<posenc::hf::ConfigWarning> warnings;
    std::vector<std::string> notes;
};

/// The report for `setup` on `model` (diagnostics at L and L').
inline Report report_for(const Model& model, const Setup& setup)
{
    Report r{model.name, std::nullopt, setup.scaling,
             posenc::extension_diagnostics(setup.spec, setup.scaling, setup.original_length, setup.target_length),
             model.warnings, model.notes};
    r.diagnostics.softmax_scale_multiplier = setup.softmax_scale_multiplier;
    return r;
}

/// Loads the model the options name, resolves the setup and computes the report. Throws
/// UsageError (option mistakes) or posenc::error (unknown preset, unreadable or rejected config).
inline Report build_report(const Options& options)
{
    const Model model = load_model(options);
    if (!model.spec) {
        if (options.scaling || options.original_length || options.length || options.svg_dir)
            throw UsageError(learned_table_refusal(model));
        const LearnedTable table{model.learned_positions, model.learned_width};
        return Report{model.name, table, posenc::NoScaling{}, {}, {}, {}};
    }
    return report_for(model, resolve_setup(model, options));
}

}  // namespace inspect
