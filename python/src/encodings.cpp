// SPDX-License-Identifier: MIT
// python/src/encodings.cpp: the classic encodings of the lessons (submodule posenc.encodings).
// Vectors and matrices are NumPy arrays (float64) in and out.
#include "bindings.hpp"

#include <pybind11/eigen.h>

#include <posenc/encodings.hpp>
#include <posenc/models/presets.hpp>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

namespace enc = posenc::encodings;

/// The library refuses non-finite inputs and scales vectors before squaring them (finite RMS,
/// norms and cosines for any finite input); attention's products of huge weights can still
/// overflow double on the way: from Python that is an error naming the input, never an inf or a
/// NaN in the result.
constexpr const char* attention_overflow =
    "must keep the logits Q K^T / sqrt(d_key) finite in double (the products overflow, the softmax would give NaN)";

/// `method` (a const member function) whose matrix result must be finite.
template <class Class, class... Args>
auto finite_result(const char* field, const char* rule, Eigen::MatrixXd (Class::*method)(Args...) const)
{
    return [field, rule, method](const Class& self, Args... args) {
        Eigen::MatrixXd out = (self.*method)(args...);
        if (!out.allFinite())
            throw posenc::error(field, std::to_string(out.rows()) + "x" + std::to_string(out.cols()) + " result", rule);
        return out;
    };
}

/// AttentionMask, SingleHeadAttention and the permutation tests of NoPE.
void bind_attention_and_nope(py::module_& m)
{
    // ---- attention and NoPE ---------------------------------------------------------------------
    bind_enum<enc::AttentionMask>(m, "AttentionMask", "none, or causal (key j visible to query i iff j <= i).",
                                  {{"none", enc::AttentionMask::none}, {"causal", enc::AttentionMask::causal}});
    m.def("causal_mask", &enc::causal_mask, py::arg("length"), "T x T: 0 where j <= i, -inf above the diagonal.");
    py::class_<enc::SingleHeadAttention>(
        m, "SingleHeadAttention",
        "One attention head (Vaswani 2017, eq. 1) with an additive bias B:\n"
        "  Q = X W_q, K = X W_k, V = X W_v;  logits = Q K^T / sqrt(d_key) + B;  out = softmax_rows(logits) V\n"
        "Written so that reordering the tokens reorders the outputs bit for bit (NoPE's equivariance).")
        .def(py::init<Eigen::MatrixXd, Eigen::MatrixXd, Eigen::MatrixXd>(), py::arg("w_query"), py::arg("w_key"),
             py::arg("w_value"))
        .def_property_readonly("d_model", &enc::SingleHeadAttention::d_model)
        .def_property_readonly("d_key", &enc::SingleHeadAttention::d_key)
        .def_property_readonly("d_value", &enc::SingleHeadAttention::d_value)
        .def("queries", finite_result("x", "must keep X W_q finite in double", &enc::SingleHeadAttention::queries),
             py::arg("x"))
        .def("keys", finite_result("x", "must keep X W_k finite in double", &enc::SingleHeadAttention::keys),
             py::arg("x"))
        .def("values", finite_result("x", "must keep X W_v finite in double", &enc::SingleHeadAttention::values),
             py::arg("x"))
        .def("logits",
             finite_result("x", attention_overflow,
                           py::overload_cast<const Eigen::MatrixXd&>(&enc::SingleHeadAttention::logits, py::const_)),
             py::arg("x"))
        .def(
            "logits",
            [](const enc::SingleHeadAttention& a, const Eigen::MatrixXd& x, const Eigen::MatrixXd& bias) {
                // the bias may hold -inf (a masked key); the scores before it must be finite
                finite_result("x", attention_overflow,
                              py::overload_cast<const Eigen::MatrixXd&>(&enc::SingleHeadAttention::logits, py::const_))(
                    a, x);
                return a.logits(x, bias);
            },
            py::arg("x"), py::arg("bias"))
        .def("weights", finite_result("x", attention_overflow, &enc::SingleHeadAttention::weights), py::arg("x"),
             py::arg("bias"))
        .def("forward",
             finite_result("x", attention_overflow,
                           py::overload_cast<const Eigen::MatrixXd&, const Eigen::MatrixXd&>(
                               &enc::SingleHeadAttention::forward, py::const_)),
             py::arg("x"), py::arg("bias"))
        .def("forward",
             finite_result("x", attention_overflow,
                           py::overload_cast<const Eigen::MatrixXd&, enc::AttentionMask>(
                               &enc::SingleHeadAttention::forward, py::const_)),
             py::arg("x"), py::arg("mask") = enc::AttentionMask::none);
    m.def("reorder_tokens", &enc::reorder_tokens, py::arg("x"), py::arg("order"),
          "Row t of the result is row order[t] of x.");
    m.def("permutation_equivariance_gap", &enc::permutation_equivariance_gap, py::arg("attention"), py::arg("x"),
          py::arg("order"),
          "max |Attention(reorder(x))(t) - Attention(x)(order[t])|: exactly 0 without positions (NoPE).");
}

/// The naive schemes: the index added to every dim, normalised indices, their ratios.
void bind_naive_schemes(py::module_& m)
{
    // ---- naive schemes ---------------------------------------------------------------------------
    m.def("add_index_to_every_dim", &enc::add_index_to_every_dim, py::arg("content"), py::arg("position"),
          "x = e + p * 1 (lesson C2-2, naive scheme 1): the position signal has RMS p.");
    m.def("root_mean_square", &enc::root_mean_square, py::arg("v"), "sqrt(mean(v_i^2)).");
    m.def("content_to_position_ratio", py::overload_cast<double, std::int64_t>(&enc::content_to_position_ratio),
          py::arg("content_rms"), py::arg("position"),
          "RMS(e) / RMS(p * 1) = content_rms / p (1/37 = 2.7% at p = 37).");
    m.def("content_to_position_ratio",
          py::overload_cast<const Eigen::VectorXd&, std::int64_t>(&enc::content_to_position_ratio), py::arg("content"),
          py::arg("position"), "RMS(content) / p.");
    m.def("cosine_similarity", &enc::cosine_similarity, py::arg("a"), py::arg("b"), "a.b / (|a| |b|).");
    m.def("rms_norm", &enc::rms_norm, py::arg("x"), py::arg("epsilon") = 1e-6,
          "x / sqrt(mean(x_i^2) + epsilon) (RMSNorm without gain): it never changes x's direction.");
    m.def("normalized_index", &enc::normalized_index, py::arg("position"), py::arg("length"),
          "u(t, T) = t / (T - 1) (lesson C2-2, naive scheme 2).");
    m.def("normalized_neighbour_gap", &enc::normalized_neighbour_gap, py::arg("length"),
          "1 / (T - 1): 0.5 for 3 tokens, 0.000978 for 1,024.");
    m.def("position_named_by", &enc::position_named_by, py::arg("normalized_value"), py::arg("length"),
          "u (T - 1): 0.5 names position 1 of 3 but 511.5 of 1,024.");
}

/// OutOfRange and LearnedPositionTable (GPT-2).
void bind_learned_table(py::module_& m)
{
    // ---- learned table ---------------------------------------------------------------------------
    bind_enum<enc::OutOfRange>(
        m, "OutOfRange", "error: a lookup at t >= L raises; clamp_to_last_row: t >= L reads row L - 1.",
        {{"error", enc::OutOfRange::error}, {"clamp_to_last_row", enc::OutOfRange::clamp_to_last_row}});
    py::class_<enc::LearnedPositionTable>(
        m, "LearnedPositionTable",
        "x_t = E[id_t] + P[t], P: L x d learned rows (GPT-2: 1,024 x 768 = 786,432).\n"
        "No row for t >= L: an error unless the policy clamps to row L - 1.")
        .def(py::init<int, int, enc::OutOfRange>(), py::arg("num_positions"), py::arg("dim"),
             py::arg("policy") = enc::OutOfRange::error)
        .def(py::init<Eigen::MatrixXd, enc::OutOfRange>(), py::arg("weights"),
             py::arg("policy") = enc::OutOfRange::error)
        .def_static("from_preset", &enc::LearnedPositionTable::from_preset, py::arg("preset"),
                    py::arg("policy") = enc::OutOfRange::error)
        .def_static("parameter_count_of", py::overload_cast<int, int>(&enc::LearnedPositionTable::parameter_count),
                    py::arg("num_positions"), py::arg("dim"), "L * d without building a table.")
        .def_property_readonly("num_positions", &enc::LearnedPositionTable::num_positions)
        .def_property_readonly("dim", &enc::LearnedPositionTable::dim)
        .def_property_readonly("policy", &enc::LearnedPositionTable::policy)
        .def("parameter_count", py::overload_cast<>(&enc::LearnedPositionTable::parameter_count, py::const_))
        .def_property_readonly("weights",
                               [](const enc::LearnedPositionTable& t) -> Eigen::MatrixXd { return t.weights(); })
        .def("row_for", &enc::LearnedPositionTable::row_for, py::arg("position"))
        .def("lookup", &enc::LearnedPositionTable::lookup, py::arg("position"))
        .def("add_to", &enc::LearnedPositionTable::add_to, py::arg("token_embeddings"), py::arg("first_position") = 0);
}

/// EmbeddingScale and SinusoidalEncoding (Vaswani 2017).
void bind_sinusoidal(py::module_& m)
{
    // ---- sinusoidal ------------------------------------------------------------------------------
    bind_enum<enc::EmbeddingScale>(
        m, "EmbeddingScale", "none, or sqrt_d_model (Vaswani section 3.4).",
        {{"none", enc::EmbeddingScale::none}, {"sqrt_d_model", enc::EmbeddingScale::sqrt_d_model}});
    py::class_<enc::SinusoidalEncoding>(
        m, "SinusoidalEncoding",
        "Vaswani et al. 2017, section 3.5:\n"
        "  PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i + 1) = cos(pos / 10000^(2i/d))\n"
        "Angles reduced exactly: every value within 5e-15 for |pos| <= 2^50.")
        .def(py::init<int, enc::EmbeddingScale, double>(), py::arg("d_model"),
             py::arg("scale") = enc::EmbeddingScale::none, py::arg("base") = 10000.0)
        .def_property_readonly("d_model", &enc::SinusoidalEncoding::d_model)
        .def_property_readonly("num_pairs", &enc::SinusoidalEncoding::num_pairs)
        .def_property_readonly("base", &enc::SinusoidalEncoding::base)
        .def_property_readonly("scale", &enc::SinusoidalEncoding::scale)
        .def("inv_freq", &enc::SinusoidalEncoding::inv_freq, py::arg("pair"), "w_i = base^(-2i/d).")
        .def("wavelength", &enc::SinusoidalEncoding::wavelength, py::arg("pair"), "2 pi / w_i.")
        .def("embedding_scale", &enc::SinusoidalEncoding::embedding_scale)
        .def("value", &enc::SinusoidalEncoding::value, py::arg("position"), py::arg("dim"))
        .def("encode", &enc::SinusoidalEncoding::encode, py::arg("position"))
        .def("encode_positions", &enc::SinusoidalEncoding::encode_positions, py::arg("first_position"),
             py::arg("count"))
        .def("add_to", &enc::SinusoidalEncoding::add_to, py::arg("token_embeddings"), py::arg("first_position") = 0)
        .def("shift_rotation", &enc::SinusoidalEncoding::shift_rotation, py::arg("pair"), py::arg("offset"),
             "M_k = R(-k w_i): (PE(pos + k, 2i), PE(pos + k, 2i + 1)) = M_k (PE(pos, 2i), PE(pos, 2i + 1)).");
}

/// Clipped relative positions (Shaw 2018).
void bind_clipped_relative(py::module_& m)
{
    // ---- Shaw 2018 ------------------------------------------------------------------------------
    m.def("clipped_relative_position", &enc::clipped_relative_position, py::arg("query_position"),
          py::arg("key_position"), py::arg("max_distance"), "clip(key - query, k) = max(-k, min(k, key - query)).");
    py::class_<enc::ClippedRelativePositions>(
        m, "ClippedRelativePositions",
        "Shaw et al. 2018 (arXiv 1803.02155) section 3: a_ij = w_{clip(j - i, k)}, 2k + 1 learned vectors;\n"
        "e_ij = x_i W^Q (x_j W^K + a_ij)^T / sqrt(d_z) (eq. 4).")
        .def(py::init<int, int>(), py::arg("max_distance"), py::arg("dim"))
        .def(py::init<int, Eigen::MatrixXd>(), py::arg("max_distance"), py::arg("vectors"))
        .def_property_readonly("max_distance", &enc::ClippedRelativePositions::max_distance)
        .def_property_readonly("num_vectors", &enc::ClippedRelativePositions::num_vectors)
        .def_property_readonly("dim", &enc::ClippedRelativePositions::dim)
        .def("parameter_count", &enc::ClippedRelativePositions::parameter_count)
        .def_property_readonly("vectors",
                               [](const enc::ClippedRelativePositions& c) -> Eigen::MatrixXd { return c.vectors(); })
        .def("offset", &enc::ClippedRelativePositions::offset, py::arg("query_position"), py::arg("key_position"))
        .def("index", &enc::ClippedRelativePositions::index, py::arg("query_position"), py::arg("key_position"))
        .def("vector", &enc::ClippedRelativePositions::vector, py::arg("query_position"), py::arg("key_position"))
        .def("index_matrix", &enc::ClippedRelativePositions::index_matrix, py::arg("length"))
        .def("logits", &enc::ClippedRelativePositions::logits, py::arg("queries"), py::arg("keys"))
        .def("outputs", &enc::ClippedRelativePositions::outputs, py::arg("alpha"), py::arg("values"));
}

/// BucketDirection and T5RelativeBuckets.
void bind_t5_buckets(py::module_& m)
{
    // ---- T5 --------------------------------------------------------------------------------------
    bind_enum<enc::BucketDirection>(m, "BucketDirection", "bidirectional (encoder) or unidirectional (decoder).",
                                    {{"bidirectional", enc::BucketDirection::bidirectional},
                                     {"unidirectional", enc::BucketDirection::unidirectional}});
    py::class_<enc::T5RelativeBuckets>(
        m, "T5RelativeBuckets",
        "T5's relative position buckets (Raffel et al. 2020; Hugging Face _relative_position_bucket):\n"
        "exact buckets for |rel| < max_exact, then logarithmic up to max_distance, then the last bucket.\n"
        "Defaults (32, 128, bidirectional): |rel| 0-7 exact, the last bucket starts at 91.")
        .def(py::init<int, int, enc::BucketDirection>(), py::arg("num_buckets") = 32, py::arg("max_distance") = 128,
             py::arg("direction") = enc::BucketDirection::bidirectional)
        .def_property_readonly("num_buckets", &enc::T5RelativeBuckets::num_buckets)
        .def_property_readonly("max_distance", &enc::T5RelativeBuckets::max_distance)
        .def_property_readonly("direction", &enc::T5RelativeBuckets::direction)
        .def_property_readonly("buckets_per_side", &enc::T5RelativeBuckets::buckets_per_side)
        .def_property_readonly("max_exact", &enc::T5RelativeBuckets::max_exact)
        .def("bucket", py::overload_cast<std::int64_t>(&enc::T5RelativeBuckets::bucket, py::const_),
             py::arg("relative_position"))
        .def("bucket", py::overload_cast<std::int64_t, std::int64_t>(&enc::T5RelativeBuckets::bucket, py::const_),
             py::arg("query_position"), py::arg("key_position"))
        .def("bucket_matrix", &enc::T5RelativeBuckets::bucket_matrix, py::arg("query_length"), py::arg("key_length"))
        .def("bias", &enc::T5RelativeBuckets::bias, py::arg("bucket_values"), py::arg("query_length"),
             py::arg("key_length"))
        .def("smallest_distance_in_bucket", &enc::T5RelativeBuckets::smallest_distance_in_bucket, py::arg("bucket"));
}

/// ALiBi's slopes and biases.
void bind_alibi(py::module_& m)
{
    // ---- ALiBi -----------------------------------------------------------------------------------
    m.def("alibi_slopes", &enc::alibi_slopes, py::arg("num_heads"),
          "ALiBi slopes (Press et al. 2021): 2^(-8h/n) for n a power of two (8 heads: 1/2 .. 1/256), else the\n"
          "official get_slopes interleave (6 heads: 2^-2, 2^-4, 2^-6, 2^-8, 2^-1, 2^-3).");
    m.def("alibi_causal_bias", &enc::alibi_causal_bias, py::arg("slope"), py::arg("length"),
          "T x T: -slope (i - j) for j <= i, -inf above the diagonal.");
}

}  // namespace

void bind_encodings(py::module_& parent)
{
    py::module_ m = parent.def_submodule(
        "encodings", "The classic positional encodings the lessons walk through, generation by generation:\n"
                     "NoPE, x = e + p*1, t/(T-1), learned tables (GPT-2), sinusoidal (Vaswani 2017),\n"
                     "clipped relative (Shaw 2018), T5 buckets, ALiBi; and a tiny single-head attention.");

    bind_attention_and_nope(m);
    bind_naive_schemes(m);
    bind_learned_table(m);
    bind_sinusoidal(m);
    bind_clipped_relative(m);
    bind_t5_buckets(m);
    bind_alibi(m);
}

}  // namespace posenc::python
