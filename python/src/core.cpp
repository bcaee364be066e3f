// SPDX-License-Identifier: MIT
// python/src/core.cpp: posenc.Error, Pairing, RopeSpec, FrequencyTable, angles and rotations.
#include "bindings.hpp"

#include <pybind11/eigen.h>
#include <pybind11/operators.h>

#include <posenc/angles.hpp>
#include <posenc/config.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/rotation.hpp>
#include <posenc/scaling/precision.hpp>
#include <posenc/spec.hpp>

#include <Eigen/Core>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

std::string repr_of(const RopeSpec& s)
{
    return "RopeSpec(head_dim=" + std::to_string(s.head_dim()) + ", rotary_dim=" + std::to_string(s.rotary_dim()) +
           ", base=" + posenc::detail::format_value(s.base()) + ", pairing='" + to_string(s.pairing()) + "'" +
           (s.rotary_offset() != 0 ? ", rotary_offset=" + std::to_string(s.rotary_offset()) : std::string()) + ")";
}

void require_pair(const FrequencyTable& table, int pair) { require_index("pair", pair, table.num_pairs()); }

/// A 1-D float64 or float32 head, rotated by apply_rope_reference into a new array of its dtype.
template <class T>
py::array_t<T> reference_rotated(const RopeSpec& spec, const FrequencyTable& table,
                                 py::array_t<T, py::array::forcecast> head, std::int64_t position)
{
    if (head.ndim() != 1) posenc::detail::raise("head.ndim", static_cast<long long>(head.ndim()), "must be 1");
    if (head.shape(0) != spec.head_dim())
        posenc::detail::raise("head.size", static_cast<long long>(head.shape(0)),
                              "must equal head_dim " + std::to_string(spec.head_dim()));
    require_angle_range("position", position, max_inv_freq(table));
    py::array_t<T> out(head.shape(0));
    T* o = out.mutable_data();
    auto in = head.template unchecked<1>();
    for (py::ssize_t i = 0; i < head.shape(0); ++i) o[i] = in(i);
    apply_rope_reference(spec, table, o, position);
    return out;
}

/// posenc.Error (a ValueError) and the translation of posenc::error into it.
void bind_error(py::module_& m)
{
    // ---- the one exception --------------------------------------------------------------------
    static py::exception<posenc::error> error_type(m, "Error", PyExc_ValueError);
    error_type.doc() =
        "The one exception posenc raises for input it cannot represent (a subclass of ValueError).\n\n"
        "str(e) is the library's message, '<field> <value> <rule>' (e.g. 'rotary_dim 127 must be even');\n"
        "e.field, e.value and e.rule hold the three parts.";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const posenc::error& e) {
            // A message may quote bytes that are not UTF-8 (a config's value, a path): shown as
            // \xNN, never a UnicodeDecodeError in place of the posenc.Error.
            const auto text = [](const std::string& s) {
                PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
                if (!o) throw py::error_already_set();
                return py::reinterpret_steal<py::str>(o);
            };
            py::object instance = py::reinterpret_borrow<py::object>(error_type.ptr())(text(e.what()));
            instance.attr("field") = text(e.field());
            instance.attr("value") = text(e.value());
            instance.attr("rule") = text(e.rule());
            PyErr_SetObject(error_type.ptr(), instance.ptr());
        }
    });
}

/// RopeSpec's pickle support (the tuple of its constructor's arguments, checked).
void bind_rope_spec_pickle(py::class_<RopeSpec>& spec)
{
    spec.def(py::pickle(
        [](const RopeSpec& s) {
            return py::make_tuple(s.head_dim(), s.rotary_dim(), s.base(), s.pairing(), s.rotary_offset());
        },
        [](const py::tuple& t) {
            const auto refuse = [&] {
                posenc::detail::raise("RopeSpec.__setstate__", std::string(py::repr(t)).substr(0, 80),
                                      "must be a tuple (head_dim: int, rotary_dim: int, base: float, pairing: Pairing"
                                      "[, rotary_offset: int])");
            };
            if (t.size() != 4 && t.size() != 5) refuse();
            try {
                return RopeSpec(t[0].cast<int>(), t[1].cast<int>(), t[2].cast<double>(), t[3].cast<Pairing>(),
                                t.size() == 5 ? t[4].cast<int>() : 0);
            } catch (const py::cast_error&) {
                refuse();
            }
            return RopeSpec::full(2, 2.0);  // not reached
        }));
}

/// Pairing and RopeSpec.
void bind_rope_spec(py::module_& m)
{
    // ---- Pairing and RopeSpec -----------------------------------------------------------------
    bind_enum<Pairing>(m, "Pairing",
                       "Which coordinates of the rotary slice rotate together:\n"
                       "  half_split   pair i = (i, i + R/2)   Hugging Face rotate_half, GPT-NeoX, Llama, Qwen\n"
                       "  interleaved  pair i = (2i, 2i + 1)   GPT-J, RoFormer, Meta's complex form\n"
                       "Strings 'half_split' / 'interleaved' are accepted wherever a Pairing is.",
                       {{"half_split", Pairing::half_split}, {"interleaved", Pairing::interleaved}});

    auto spec =
        py::class_<RopeSpec>(m, "RopeSpec",
                             "A validated rotary-embedding description.\n\n"
                             "  head_dim H, rotary_dim R (the first R dims rotate, the other H - R pass through),\n"
                             "  pairs P = R/2, base b: theta_i = b^(-2i/R)  (RoFormer eq. 15).\n"
                             "Invariants: head_dim > 0; rotary_dim even, > 0 and <= head_dim; base finite and > 1.\n"
                             "Raises posenc.Error naming the first field that breaks them.")
            .def(py::init<int, int, double, Pairing, int>(), py::arg("head_dim"), py::arg("rotary_dim"),
                 py::arg("base"), py::arg("pairing") = Pairing::half_split, py::arg("rotary_offset") = 0)
            .def_static("suffix", &RopeSpec::suffix, py::arg("head_dim"), py::arg("rotary_dim"), py::arg("base"),
                        py::arg("pairing") = Pairing::half_split,
                        "The last rotary_dim coordinates rotate (rotary_offset = head_dim - rotary_dim): DeepSeek-V4,\n"
                        "Mistral 4's MLA.")
            .def("with_rotary_offset", &RopeSpec::with_rotary_offset, py::arg("rotary_offset"),
                 "The same spec with the rotated slice at [rotary_offset, rotary_offset + rotary_dim).")
            .def_property_readonly(
                "rotary_offset", &RopeSpec::rotary_offset,
                "First rotated coordinate: the slice [rotary_offset, rotary_offset + rotary_dim) rotates.")
            .def_static("full", &RopeSpec::full, py::arg("head_dim"), py::arg("base"),
                        py::arg("pairing") = Pairing::half_split, "Every dimension rotates: rotary_dim = head_dim.")
            .def_static("from_partial_rotary_factor", &RopeSpec::from_partial_rotary_factor, py::arg("head_dim"),
                        py::arg("partial_rotary_factor"), py::arg("base"), py::arg("pairing") = Pairing::half_split,
                        "Hugging Face's partial rotary: rotary_dim = int(head_dim * factor) (a double multiply,\n"
                        "then truncation: 100 * 0.29 gives 28). Raises posenc.Error if factor is outside (0, 1]\n"
                        "or the truncated rotary_dim is odd or zero.")
            .def_property_readonly("head_dim", &RopeSpec::head_dim)
            .def_property_readonly("rotary_dim", &RopeSpec::rotary_dim)
            .def_property_readonly("num_pairs", &RopeSpec::num_pairs, "rotary_dim / 2")
            .def_property_readonly("pass_through_dim", &RopeSpec::pass_through_dim, "head_dim - rotary_dim")
            .def_property_readonly("base", &RopeSpec::base)
            .def_property_readonly("pairing", &RopeSpec::pairing)
            .def(
                "pair_coordinates",
                [](const RopeSpec& s, int pair) {
                    require_index("pair", pair, s.num_pairs());
                    const PairCoordinates c = s.pair_coordinates(pair);
                    return py::make_tuple(c.first, c.second);
                },
                py::arg("pair"),
                "The two coordinates (first, second) of pair i: (i, i + R/2) half_split, (2i, 2i + 1) interleaved.")
            .def(py::self == py::self)
            .def(py::self != py::self)
            .def("__repr__", &repr_of);
    bind_rope_spec_pickle(spec);
}

/// inv_freq, period_of and turns_of.
void bind_frequency_functions(py::module_& m)
{
    // ---- frequencies --------------------------------------------------------------------------
    m.def(
        "inv_freq",
        [](const RopeSpec& spec, int pair) {
            require_index("pair", pair, spec.num_pairs());
            return posenc::inv_freq(spec, pair);
        },
        py::arg("spec"), py::arg("pair"),
        "theta_i = base^(-2i/rotary_dim) in double (RoFormer eq. 15).\n"
        "Relative error < (1 + |ln base|) 2^-52.");
    m.def(
        "period_of",
        [](double inv_freq) {
            require_finite_nonnegative("inv_freq", inv_freq);
            return posenc::period_of(inv_freq);
        },
        py::arg("inv_freq"),
        "Tokens per full turn of a pair: 2 pi / theta (inf for theta = 0). Raises posenc.Error unless\n"
        "theta is finite and >= 0.");
    m.def(
        "turns_of",
        [](double inv_freq, double length) {
            require_finite_nonnegative("inv_freq", inv_freq);
            require_finite_nonnegative("length", length);
            return posenc::turns_of(inv_freq, length);
        },
        py::arg("inv_freq"), py::arg("length"),
        "Full turns of a pair within `length` tokens: length * theta / (2 pi). Raises posenc.Error unless\n"
        "theta and length are finite and >= 0.");
}

/// FrequencyTable's questions about one pair (zero frequency, period, turns).
void bind_table_queries(py::class_<FrequencyTable>& table)
{
    table
        .def(
            "is_zero_freq",
            [](const FrequencyTable& t, int pair) {
                require_pair(t, pair);
                return t.is_zero_freq(pair);
            },
            py::arg("pair"), "Whether pair i has frequency exactly 0.")
        .def(
            "period",
            [](const FrequencyTable& t, int pair) {
                require_pair(t, pair);
                return t.period(pair);
            },
            py::arg("pair"), "2 pi / theta_i (inf for a zero frequency).")
        .def(
            "turns",
            [](const FrequencyTable& t, int pair, double length) {
                require_pair(t, pair);
                require_finite_nonnegative("length", length);
                return t.turns(pair, length);
            },
            py::arg("pair"), py::arg("length"), "length * theta_i / (2 pi).")
        .def(
            "completes_turn",
            [](const FrequencyTable& t, int pair, double length) {
                require_pair(t, pair);
                require_finite_nonnegative("length", length);
                return t.completes_turn(pair, length);
            },
            py::arg("pair"), py::arg("length"), "turns(pair, length) >= 1.");
}

/// FrequencyTable's questions over every pair (periods, turns, pairs without a full turn).
void bind_table_sweeps(py::class_<FrequencyTable>& table)
{
    table
        .def(
            "periods",
            [](const FrequencyTable& t) {
                std::vector<double> v;
                for (int i = 0; i < t.num_pairs(); ++i) v.push_back(t.period(i));
                return to_array(v);
            },
            "2 pi / theta_i for every pair, as a float64 array.")
        .def(
            "turns_within",
            [](const FrequencyTable& t, double length) {
                require_finite_nonnegative("length", length);
                std::vector<double> v;
                for (int i = 0; i < t.num_pairs(); ++i) v.push_back(t.turns(i, length));
                return to_array(v);
            },
            py::arg("length"), "length * theta_i / (2 pi) for every pair, as a float64 array.")
        .def(
            "pairs_without_full_turn",
            [](const FrequencyTable& t, double length) {
                require_finite_nonnegative("length", length);
                return t.pairs_without_full_turn(length);
            },
            py::arg("length"),
            "Indices of the pairs that never complete a turn within `length` tokens, ascending.\n"
            "Qwen3-8B at 32,768: pairs 40..63 (lesson C2-2).")
        .def(
            "count_without_full_turn",
            [](const FrequencyTable& t, double length) {
                require_finite_nonnegative("length", length);
                return t.count_without_full_turn(length);
            },
            py::arg("length"), "How many pairs never complete a turn within `length` tokens (Qwen3-8B at 32,768: 24).");
}

/// FrequencyTable: construction, properties, repr.
void bind_frequency_table(py::module_& m)
{
    auto table =
        py::class_<FrequencyTable>(
            m, "FrequencyTable",
            "Per-pair inverse frequencies theta_i (rad/token, double) and the attention factor\n"
            "that multiplies cos and sin (1 unless a scaling says otherwise, e.g. YaRN's mscale).\n\n"
            "  period P_i = 2 pi / theta_i,   turns r_i(L) = L theta_i / (2 pi)\n"
            "Pair i completes a turn within L tokens when r_i(L) >= 1.\n"
            "Invariants: at least one pair; every theta finite and >= 0; attention factor finite, > 0.")
            .def(py::init<std::vector<double>, double>(), py::arg("inv_freq"), py::arg("attention_factor") = 1.0)
            .def_static("from_spec", &FrequencyTable::from_spec, py::arg("spec"),
                        "The unscaled table of a spec: theta_i = base^(-2i/R), attention factor 1.")
            .def_property_readonly("num_pairs", &FrequencyTable::num_pairs)
            .def("__len__", &FrequencyTable::num_pairs)
            .def_property_readonly(
                "inv_freq", [](const FrequencyTable& t) { return to_array(t.inv_freq()); },
                "theta_i for every pair, as a new float64 array.")
            .def_property_readonly("attention_factor", &FrequencyTable::attention_factor)
            .def_property_readonly("zero_freq_pairs", &FrequencyTable::zero_freq_pairs,
                                   "Pairs whose frequency is exactly 0 (proportional RoPE's unrotated pairs).")
            .def_property_readonly("rotated_pairs", &FrequencyTable::rotated_pairs, "num_pairs - zero_freq_pairs.")
            .def("__repr__", [](const FrequencyTable& t) {
                return "FrequencyTable(num_pairs=" + std::to_string(t.num_pairs()) +
                       ", attention_factor=" + posenc::detail::format_value(t.attention_factor()) + ")";
            });
    bind_table_queries(table);
    bind_table_sweeps(table);
}

/// Precision and the angle functions (reduced_angle, cos_sin, table_cos_sin, rotation_angle).
void bind_angles(py::module_& m)
{
    // ---- angles -------------------------------------------------------------------------------
    bind_enum<Precision>(m, "Precision",
                         "Which arithmetic builds a scaled table and its angles:\n"
                         "  exact       theta in double from the real formula; the angle m theta reduced exactly\n"
                         "              modulo 2 pi; cos/sin rounded once (error < 5e-15)\n"
                         "  hf_float32  Hugging Face's float32 pipeline in its operation order, for\n"
                         "              bit-compatibility checks (0.06 rad off at position 1e6). Never the default.",
                         {{"exact", Precision::exact}, {"hf_float32", Precision::hf_float32}});

    m.def(
        "reduced_angle",
        [](std::int64_t position, double inv_freq) {
            require_finite("inv_freq", inv_freq);
            require_angle_range("position", position, std::abs(inv_freq));
            return posenc::reduced_angle(position, inv_freq);
        },
        py::arg("position"), py::arg("inv_freq"),
        "(m * theta) mod 2 pi in [-pi, pi], from the exact product m * theta (hi + lo by fma) and a\n"
        "three-part 2 pi (Cody & Waite). Range |m| <= 2^53, |m theta| <= 2^50 (posenc.Error beyond it,\n"
        "and for a theta that is not finite). Error < 4e-15 rad.");
    m.def(
        "cos_sin",
        [](std::int64_t position, double inv_freq, double attention_factor) {
            require_finite("inv_freq", inv_freq);
            require_angle_range("position", position, std::abs(inv_freq));
            if (!(std::isfinite(attention_factor) && attention_factor > 0))
                posenc::detail::raise("attention_factor", attention_factor, "must be finite and > 0");
            const CosSin cs = posenc::cos_sin(position, inv_freq, attention_factor);
            return py::make_tuple(cs.cos, cs.sin);
        },
        py::arg("position"), py::arg("inv_freq"), py::arg("attention_factor") = 1.0,
        "a * (cos, sin)(reduced_angle(m, theta)): the pair's rotation at position m, attention factor a\n"
        "folded in. Error < 5e-15 a.");
    m.def(
        "table_cos_sin",
        [](const FrequencyTable& table, std::int64_t position, int pair, Precision precision) {
            require_pair(table, pair);
            require_angle_range("position", position, table.inv_freq(pair));
            const CosSin cs = posenc::cos_sin(table, position, pair, precision);
            return py::make_tuple(cs.cos, cs.sin);
        },
        py::arg("table"), py::arg("position"), py::arg("pair"), py::arg("precision") = Precision::exact,
        "(cos, sin) of pair i of a table at position m, attention factor folded in.\n"
        "  exact:      a (cos, sin)(m theta_i mod 2 pi)          error < 5e-15 a\n"
        "  hf_float32: fl(cos a32) * fl(a), fl(sin a32) * fl(a) with a32 = fl(fl(theta_i) * fl(m)),\n"
        "              Hugging Face's float32 angle.");
    m.def(
        "rotation_angle",
        [](const FrequencyTable& table, std::int64_t position, int pair, Precision precision) {
            require_pair(table, pair);
            require_angle_range("position", position, table.inv_freq(pair));
            return posenc::rotation_angle(table, position, pair, precision);
        },
        py::arg("table"), py::arg("position"), py::arg("pair"), py::arg("precision") = Precision::exact,
        "The angle of pair i at position m reduced into [-pi, pi]: exact m theta_i, or Hugging Face's\n"
        "float32 product fl(fl(theta_i) * fl(m)).");
}

/// The rotation matrices, the pairing permutation and the scalar reference rotation.
void bind_rotations(py::module_& m)
{
    // ---- rotations ----------------------------------------------------------------------------
    m.def(
        "rotation_2x2",
        [](double phi) {
            require_finite("phi", phi);
            return posenc::rotation_2x2<double>(phi);
        },
        py::arg("phi"), "R(phi) = [[cos phi, -sin phi], [sin phi, cos phi]]: counter-clockwise by phi radians.");
    m.def(
        "rotation_matrix",
        [](const RopeSpec& spec, const FrequencyTable& table, std::int64_t position) {
            require_angle_range("position", position, max_inv_freq(table));
            return posenc::rotation_matrix(spec, table, position);
        },
        py::arg("spec"), py::arg("table"), py::arg("position"),
        "R_{Theta,m} of RoFormer eq. 15 as a head_dim x head_dim matrix: the 2x2 block R(m theta_i) times\n"
        "the attention factor on each pair's coordinates (placed by the pairing), identity on the\n"
        "pass-through dims. Raises posenc.Error if the table's pair count is not spec.num_pairs.");
    m.def(
        "pairing_permutation",
        [](const RopeSpec& spec) {
            const auto p = posenc::pairing_permutation(spec);
            std::vector<int> indices(p.indices().data(), p.indices().data() + p.indices().size());
            return indices;
        },
        py::arg("spec"),
        "The permutation P (as indices) with x_half_split = P x_interleaved: coordinate 2i goes to i and\n"
        "2i + 1 to i + R/2; pass-through coordinates stay. R_half = P R_interleaved P^T.");
    m.def("apply_rope_reference", &reference_rotated<double>, py::arg("spec"), py::arg("table"), py::arg("head"),
          py::arg("position"),
          "One head vector rotated to `position`, the obviously-correct scalar path: for every pair (a, b)\n"
          "  a' = a cos - b sin,   b' = b cos + a sin\n"
          "with cos/sin of the exactly reduced angle times the attention factor, in double. Returns a new\n"
          "float64 array; a negative position applies the inverse rotation. Error < 1e-14 |x| per pair.");
}

}  // namespace

void bind_core(py::module_& m)
{
    bind_error(m);
    m.attr("version") = posenc::version_string;
    m.attr("two_pi") = posenc::two_pi;
    bind_rope_spec(m);
    bind_frequency_functions(m);
    bind_frequency_table(m);
    bind_angles(m);
    bind_rotations(m);
}

}  // namespace posenc::python
