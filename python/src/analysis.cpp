// SPDX-License-Identifier: MIT
// python/src/analysis.cpp: the per-pair diagnostics (the long-context lesson's widget) and the
// bounds of RoFormer, Position Interpolation and Men et al.
#include "bindings.hpp"

#include <posenc/analysis/base_bound.hpp>
#include <posenc/analysis/diagnostics.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

/// Every per-pair field as one NumPy array, for plotting and tables.
py::dict columns_of(const ExtensionDiagnostics& d)
{
    const auto n = static_cast<py::ssize_t>(d.pairs.size());
    py::array_t<int> index(n);
    py::array_t<bool> completes(n), out_of_range(n), compressed(n), zero_freq(n);
    const char* double_names[] = {"inv_freq_original", "inv_freq",           "period_original",  "period",
                                  "turns_original",    "max_angle_training", "max_angle_target", "compression"};
    std::vector<py::array_t<double>> doubles;
    for (std::size_t k = 0; k < 8; ++k) doubles.emplace_back(n);
    for (py::ssize_t i = 0; i < n; ++i) {
        const PairDiagnostics& p = d.pairs[static_cast<std::size_t>(i)];
        index.mutable_at(i) = p.index;
        completes.mutable_at(i) = p.completes_turn;
        out_of_range.mutable_at(i) = p.out_of_range;
        compressed.mutable_at(i) = p.compressed;
        zero_freq.mutable_at(i) = p.zero_freq;
        const double values[] = {p.inv_freq_original, p.inv_freq,           p.period_original,  p.period,
                                 p.turns_original,    p.max_angle_training, p.max_angle_target, p.compression};
        for (std::size_t k = 0; k < 8; ++k) doubles[k].mutable_at(i) = values[k];
    }
    py::dict out;
    out["index"] = index;
    for (std::size_t k = 0; k < 8; ++k) out[double_names[k]] = doubles[k];
    out["completes_turn"] = completes;
    out["out_of_range"] = out_of_range;
    out["compressed"] = compressed;
    out["zero_freq"] = zero_freq;
    return out;
}

/// PairDiagnostics and DiagnosticsSummary (and the tolerance they use).
void bind_pair_diagnostics(py::module_& m)
{
    // ---- diagnostics ------------------------------------------------------------------------
    m.attr("diagnostics_relative_tolerance") = diagnostics_relative_tolerance;
    py::class_<PairDiagnostics>(
        m, "PairDiagnostics",
        "One pair of the long-context widget, training length L, target length L':\n"
        "  turns_original = L theta_i / 2 pi;  completes_turn = turns_original >= 1\n"
        "  max_angle_training = L theta_i;  max_angle_target = L' theta'_i\n"
        "  out_of_range = not completes_turn and max_angle_target > max_angle_training (1 + 1e-9)\n"
        "  compression = theta'_i / theta_i;  compressed = compression < 1 - 1e-9")
        .def_readonly("index", &PairDiagnostics::index)
        .def_readonly("inv_freq_original", &PairDiagnostics::inv_freq_original)
        .def_readonly("inv_freq", &PairDiagnostics::inv_freq)
        .def_readonly("period_original", &PairDiagnostics::period_original)
        .def_readonly("period", &PairDiagnostics::period)
        .def_readonly("turns_original", &PairDiagnostics::turns_original)
        .def_readonly("completes_turn", &PairDiagnostics::completes_turn)
        .def_readonly("max_angle_training", &PairDiagnostics::max_angle_training)
        .def_readonly("max_angle_target", &PairDiagnostics::max_angle_target)
        .def_readonly("out_of_range", &PairDiagnostics::out_of_range)
        .def_readonly("compression", &PairDiagnostics::compression)
        .def_readonly("compressed", &PairDiagnostics::compressed)
        .def_readonly(
            "zero_freq", &PairDiagnostics::zero_freq,
            "inv_freq == 0 (proportional RoPE's unrotated pairs): not incomplete, out of range or compressed.");
    py::class_<DiagnosticsSummary>(m, "DiagnosticsSummary", "The counts over all pairs.")
        .def_readonly("pairs", &DiagnosticsSummary::pairs)
        .def_readonly("incomplete_pairs", &DiagnosticsSummary::incomplete_pairs)
        .def_readonly("out_of_range_pairs", &DiagnosticsSummary::out_of_range_pairs)
        .def_readonly("compressed_pairs", &DiagnosticsSummary::compressed_pairs)
        .def_readonly("zero_freq_pairs", &DiagnosticsSummary::zero_freq_pairs)
        .def("__repr__", [](const DiagnosticsSummary& s) {
            return "DiagnosticsSummary(pairs=" + std::to_string(s.pairs) +
                   ", incomplete_pairs=" + std::to_string(s.incomplete_pairs) +
                   ", out_of_range_pairs=" + std::to_string(s.out_of_range_pairs) +
                   ", compressed_pairs=" + std::to_string(s.compressed_pairs) +
                   ", zero_freq_pairs=" + std::to_string(s.zero_freq_pairs) + ")";
        });
}

/// ExtensionDiagnostics and the functions that build it.
void bind_extension_diagnostics(py::module_& m)
{
    py::class_<ExtensionDiagnostics>(m, "ExtensionDiagnostics",
                                     "The whole widget for one (spec, scaling, L, L'): per-pair numbers and counts.")
        .def_readonly("scaling_type", &ExtensionDiagnostics::scaling_type)
        .def_readonly("head_dim", &ExtensionDiagnostics::head_dim)
        .def_readonly("rotary_dim", &ExtensionDiagnostics::rotary_dim)
        .def_readonly("base", &ExtensionDiagnostics::base)
        .def_readonly("pairing", &ExtensionDiagnostics::pairing)
        .def_readonly("training_length", &ExtensionDiagnostics::training_length)
        .def_readonly("target_length", &ExtensionDiagnostics::target_length)
        .def_readonly("attention_factor", &ExtensionDiagnostics::attention_factor)
        .def_readonly("softmax_scale_multiplier", &ExtensionDiagnostics::softmax_scale_multiplier)
        .def_readonly("pairs", &ExtensionDiagnostics::pairs)
        .def_readonly("summary", &ExtensionDiagnostics::summary)
        .def("out_of_range_indices", &ExtensionDiagnostics::out_of_range_indices)
        .def("compressed_indices", &ExtensionDiagnostics::compressed_indices)
        .def("columns", &columns_of,
             "Every per-pair field as a NumPy array: {'index', 'inv_freq_original', 'inv_freq', 'period_original',\n"
             "'period', 'turns_original', 'max_angle_training', 'max_angle_target', 'compression',\n"
             "'completes_turn', 'out_of_range', 'compressed'}.");
    m.def("extension_diagnostics", &extension_diagnostics, py::arg("spec"), py::arg("scaling"),
          py::arg("training_length"), py::arg("target_length"),
          "The long-context lesson's widget: `spec` trained on L tokens, run at L' under `scaling` (dynamic NTK\n"
          "and LongRoPE with their table at L'). Qwen3-8B x4 (32,768 -> 131,072): none 24 pairs out of\n"
          "range, linear 0, ntk_aware 23 (pairs 40-62), yarn 0.");
    m.def("diagnose_tables", &diagnose_tables, py::arg("original"), py::arg("scaled"), py::arg("training_length"),
          py::arg("target_length"), "The same per-pair numbers for any two tables with the same pair count.");
}

/// RoFormer's long-term decay bound.
void bind_roformer_bounds(py::module_& m)
{
    // ---- RoFormer ---------------------------------------------------------------------------
    m.def("roformer_partial_sum_norms", &roformer_partial_sum_norms, py::arg("table"), py::arg("distance"),
          "sum_{j=1..P} |S_j(r)|,  S_j(r) = sum_{k<j} e^{i r theta_k}  (RoFormer eq. 35-37; also PI's B(s)).");
    m.def("roformer_relative_bound", py::overload_cast<const FrequencyTable&, double>(&roformer_relative_bound),
          py::arg("table"), py::arg("distance"),
          "RoFormer's long-term-decay bound U(r) = (1/P) sum_{j=1..P} |sum_{k<j} e^{i r theta_k}|\n"
          "(Su et al. 2021, section 3.4.3, eq. 37, Figure 2). U(0) = (P + 1)/2: 16.5 for 32 pairs.");
    m.def("roformer_relative_bound", py::overload_cast<const RopeSpec&, double>(&roformer_relative_bound),
          py::arg("spec"), py::arg("distance"), "U(r) for the unscaled frequencies of a spec.");
    m.def(
        "roformer_bound_curve",
        [](const FrequencyTable& table, double first, double last, int count) {
            std::vector<BoundSample> curve;
            {
                py::gil_scoped_release release;
                curve = roformer_bound_curve(table, first, last, count);
            }
            std::vector<double> r, u;
            for (const BoundSample& s : curve) {
                r.push_back(s.distance);
                u.push_back(s.bound);
            }
            return py::make_tuple(to_array(r), to_array(u));
        },
        py::arg("table"), py::arg("first"), py::arg("last"), py::arg("count"),
        "U(r) at `count` evenly spaced distances from first to last: (distances, bounds) as two arrays.");
    m.def("first_distance_below", &first_distance_below, py::arg("table"), py::arg("level"), py::arg("max_distance"),
          py::call_guard<py::gil_scoped_release>(),
          "The smallest integer r in [0, max_distance] with U(r) < level, or None. 32 pairs, level 8.25:\n"
          "15 / 35 / 46 for bases 1e4 / 1e6 / 1e7.");
}

/// Position Interpolation's bounds.
void bind_pi_bounds(py::module_& m)
{
    // ---- Position Interpolation --------------------------------------------------------------
    bind_enum<PiCoefficient>(m, "PiCoefficient",
                             "paper: Theorem 2.1 as printed, d / (32 ln c) on an integer grid;\n"
                             "corrected: sum_j theta_j^2 / 8 (the proof's inequality fixed).",
                             {{"paper", PiCoefficient::paper}, {"corrected", PiCoefficient::corrected}});
    m.def("pi_grid_coefficient", &pi_grid_coefficient, py::arg("spec"), py::arg("which"),
          "Integer-grid interpolation coefficient: paper d / (32 ln c) (Chen et al. 2023, eq. 7); corrected\n"
          "sum_j theta_j^2 / 8. d = 128, c = 1e4: 0.434294 / 0.499789.");
    m.def("pi_interpolation_bound", &pi_interpolation_bound, py::arg("spec"), py::arg("s"), py::arg("s1"),
          py::arg("s2"), py::arg("which"),
          "Theorem 2.1: |a(s) - a_linear(s)| <= d (s - s1)(s2 - s) / (8 ln c) (paper), or\n"
          "sum_j theta_j^2 (s - s1)(s2 - s) / 2 (corrected).");
    m.def("pi_extrapolation_sum", &pi_extrapolation_sum, py::arg("table"), py::arg("s"),
          "B(s) = sum_{k=1..P} |A_k(s)|, A_k(s) = sum_{j<k} e^{i s theta_j} (eq. 8).");
    py::class_<ExtrapolationSumMinimum>(m, "ExtrapolationSumMinimum")
        .def_readonly("distance", &ExtrapolationSumMinimum::distance)
        .def_readonly("sum", &ExtrapolationSumMinimum::sum);
    m.def("pi_extrapolation_sum_minimum", &pi_extrapolation_sum_minimum, py::arg("table"), py::arg("first"),
          py::arg("last"), py::call_guard<py::gil_scoped_release>(),
          "min over integer s in [first, last] of B(s). d = 128, c = 1e4: s = 3643 on [0, 4096] (B/d = 1.11591).");
    m.def("pi_bound_ratio", &pi_bound_ratio, py::arg("spec"), py::arg("first"), py::arg("last"), py::arg("which"),
          py::call_guard<py::gil_scoped_release>(),
          "2 min B(s) / grid coefficient: how much smaller the interpolation bound is than the extrapolation\n"
          "bound (the PI paper's ~600x). d = 128, c = 1e4, [0, 4096]: 657.79 (paper), 571.59 (corrected).");
}

/// Men et al. 2024: the smallest base for a context length.
void bind_base_bounds(py::module_& m)
{
    // ---- Men et al. 2024 ----------------------------------------------------------------------
    m.def(
        "similarity_margin",
        [](const FrequencyTable& table, std::int64_t distance) {
            require_angle_range("distance", distance, max_inv_freq(table));
            return similarity_margin(table, distance);
        },
        py::arg("table"), py::arg("distance"),
        "B_{m,theta} = sum_i cos(m theta_i) (Men et al. 2024, arXiv 2405.14591, eq. 9). B_0 = P.\n"
        "Raises posenc.Error beyond the exact angle reduction's range (|m| <= 2^53, |m theta_i| <= 2^50).");
    m.def("max_context_length", &max_context_length, py::arg("table"), py::arg("search_limit"),
          py::call_guard<py::gil_scoped_release>(),
          "L_theta = sup{L : B_{m,theta} >= 0 for all m <= L} (eq. 10), capped at search_limit.\n"
          "d = 128: base 27,000 -> 4,078; 310,000 -> 12,222.");
    py::class_<BaseGrid>(m, "BaseGrid", "A geometric grid of bases first * ratio^k while <= last.")
        .def(py::init([](double first, double last, double ratio) {
                 return BaseGrid {first, last, ratio};
             }),
             py::arg("first"), py::arg("last"), py::arg("ratio"))
        .def_readonly("first", &BaseGrid::first)
        .def_readonly("last", &BaseGrid::last)
        .def_readonly("ratio", &BaseGrid::ratio);
    m.def("smallest_base_for_context", &smallest_base_for_context, py::arg("rotary_dim"), py::arg("context_length"),
          py::arg("grid"), py::call_guard<py::gil_scoped_release>(),
          "base_L = inf{base on the grid : L_theta(base) >= L} (eq. 11), or None. Knife-edged and grid\n"
          "dependent: d = 128, ratio 1.00001: 4K -> 26,952.5.");
}

}  // namespace

void bind_analysis(py::module_& m)
{
    bind_pair_diagnostics(m);
    bind_extension_diagnostics(m);
    bind_roformer_bounds(m);
    bind_pi_bounds(m);
    bind_base_bounds(m);
}

}  // namespace posenc::python
