// SPDX-License-Identifier: MIT
// Gaps of the error catalogue (docs/errors.md): invalid inputs that had no test yet, each
// asserting the full message "<field> <value> <rule>" (config reader and CLI: "key.path: rule,
// got value"); and non-finite Q/K data (NaN, Inf), which the kernels do not reject but carry
// through as IEEE 754 arithmetic says, without touching any other element.
// Expected strings come from the rule templates in the headers named in docs/errors.md.
#include <posenc/analysis/base_bound.hpp>
#include <posenc/analysis/diagnostics.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/encodings.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/rotation.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "inspect/options.hpp"
#include "inspect/report.hpp"
#include "kernels/kernel_test_support.hpp"

namespace errors_catalogue_gaps_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::message_of;

template <class F>
std::string usage_error_of(F&& f)
{
    try {
        f();
    } catch (const inspect::UsageError& e) {
        return e.what();
    } catch (const posenc::error& e) {
        return std::string("posenc::error: ") + e.what();
    }
    return "(accepted)";
}

using test_support::infinity;
using test_support::not_a_number;
constexpr std::int64_t two_to_50 = std::int64_t {1} << 50;

std::string config_error_of(const std::string& text)
{
    return message_of([&] { posenc::hf::single_group(posenc::hf::parse_model(text)); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// specs, tables, rotation, presets
// ---------------------------------------------------------------------------------------------

TEST_CASE("[errors catalogue] spec and table gaps: partial factor, infinite entries, rotation_matrix, preset list")
{
    using posenc::RopeSpec;
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(0, 0.5, 1e4); }) == "head_dim 0 must be > 0");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, infinity, 1e4); }) ==
          "partial_rotary_factor inf must be in (0, 1]");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, 0.5, not_a_number); }) ==
          "base nan must be finite and > 1");
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {infinity}); }) ==
          "inv_freq[0] inf must be finite and >= 0");
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {1.0}, -1.0); }) ==
          "attention_factor -1 must be finite and > 0");
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {1.0}, not_a_number); }) ==
          "attention_factor nan must be finite and > 0");

    const RopeSpec spec(8, 8, 1e4);
    const posenc::FrequencyTable three({1.0, 0.1, 0.01});
    CHECK(message_of([&] { (void)posenc::rotation_matrix(spec, three, 1); }) ==
          "table.num_pairs 3 must equal spec.num_pairs 4 (rotary_dim / 2)");

    CHECK(message_of([] { posenc::models::find_preset("llama-9"); }) ==
          "preset \"llama-9\" is not a known preset (known: qwen3-8b, qwen3.8-27b, deepseek-v4.1-flash, "
          "course-small, gpt2, llama-2-7b, llama-3.1-8b, llama-3.2-1b, deepseek-v3, phi-3-mini-128k, "
          "gpt-oss-20b, qwen2.5-7b, mistral-7b, codellama-7b, pythia-70m, phi-2)");
}

// ---------------------------------------------------------------------------------------------
// scalings
// ---------------------------------------------------------------------------------------------

TEST_CASE("[errors catalogue] scaling gaps: band factors, empty long list, float32 ranges, sequence lengths")
{
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, 1.0, 0.0, 8192); }) ==
          "llama3.high_freq_factor 0 must be > 0 and finite in float32");
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, infinity, 4.0, 8192); }) ==
          "llama3.low_freq_factor inf must be > 0 and finite in float32");
    const std::vector<double> ones(4, 1.0);
    CHECK(message_of([&] { return posenc::LongRopeScaling(ones, {}, 4096, 32.0); }) ==
          "longrope.long_factor.size 0 must be > 0");
    CHECK(message_of([&] {
              return posenc::LongRopeScaling({1e39, 1.0, 1.0, 1.0}, ones, 4096, 32.0);
          }) == "longrope.short_factor[0] 1e+39 must be > 0 and finite in float32");
    CHECK(message_of([] { return posenc::YarnScaling(4.0, 32768).with_g2_factor_override(-5); }) ==
          "yarn.max_position_embeddings -5 must be > 0");
    CHECK(message_of([] { return posenc::deepseek_softmax_scale(-1, posenc::YarnScaling(40.0, 4096)); }) ==
          "qk_head_dim -1 must be > 0");

    // Hugging Face's float32 mode: the base, and the NTK bases, must stay finite in float32.
    const posenc::RopeSpec beyond(128, 128, 1e39);
    CHECK(message_of([&] {
              return posenc::frequency_table(beyond, posenc::LinearScaling(2.0), posenc::Precision::hf_float32);
          }) == "base 1e+39 must be finite in float32 for Precision::hf_float32");
    // b' = 1e38 * 4^(4 / 2) = 1.6e39: finite in double, not in float32.
    const posenc::RopeSpec near_max(4, 4, 1e38);
    CHECK(message_of([&] {
              return posenc::frequency_table(near_max, posenc::NtkAwareScaling(4.0), posenc::Precision::hf_float32);
          }) == "ntk_aware.scaled_base 1.6e+39 must be finite in float32 for Precision::hf_float32");
    // Runtime dynamic path: fl(3e38) (x) pow32(2 * 1000 / 10 - 1, 2) overflows float32.
    const posenc::RopeSpec big(4, 4, 3e38);
    CHECK(message_of([&] {
              return posenc::frequency_table(big, posenc::DynamicNtkScaling(2.0, 10), 1000,
                                             posenc::Precision::hf_float32);
          }) == "dynamic.scaled_base inf must be finite in float32 for Precision::hf_float32");

    const posenc::RopeSpec spec(128, 128, 1e4);
    CHECK(message_of([&] { return posenc::dynamic_ntk_base(spec, posenc::DynamicNtkScaling(2.0, 4096), 0); }) ==
          "sequence_length 0 must be > 0");
    const std::vector<double> sixty_four(64, 1.0);
    CHECK(message_of([&] {
              return posenc::longrope_inv_freq(spec, posenc::LongRopeScaling(sixty_four, sixty_four, 4096, 2.0), -1);
          }) == "sequence_length -1 must be > 0");
}

// ---------------------------------------------------------------------------------------------
// analysis
// ---------------------------------------------------------------------------------------------

TEST_CASE("[errors catalogue] analysis gaps: diagnostics lengths and pair counts, distances beyond 2^50, search limit")
{
    const posenc::FrequencyTable t32 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    const posenc::FrequencyTable t16 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(32, 1e4));
    CHECK(message_of([&] { return posenc::diagnose_tables(t32, t32, 0, 10); }) == "training_length 0 must be > 0");
    CHECK(message_of([&] { return posenc::diagnose_tables(t32, t32, 10, -1); }) == "target_length -1 must be > 0");
    CHECK(message_of([&] { return posenc::diagnose_tables(t32, t16, 10, 10); }) ==
          "scaled.num_pairs 16 must equal original.num_pairs 32");
    CHECK(message_of([] {
              return posenc::extension_diagnostics(posenc::RopeSpec::full(64, 1e4), posenc::NoScaling {}, 4096, 0);
          }) == "target_length 0 must be > 0");
    CHECK(message_of([&] { return posenc::roformer_bound_curve(t32, not_a_number, 10.0, 5); }) ==
          "distance nan must be finite and |distance| <= 2^50");
    CHECK(message_of([&] { return posenc::first_distance_below(t32, 8.0, two_to_50 + 1); }) ==
          "distance 1125899906842625 must be finite and |distance| <= 2^50");
    CHECK(message_of([&] { return posenc::pi_extrapolation_sum_minimum(t32, 0, two_to_50 + 1); }) ==
          "distance 1125899906842625 must be finite and |distance| <= 2^50");
    CHECK(message_of([] {
              return posenc::pi_interpolation_bound(posenc::RopeSpec::full(128, 1e4), not_a_number, 10.0, 11.0,
                                                    posenc::PiCoefficient::paper);
          }) == "s nan must lie in [s1, s2] = [10, 11]");
    CHECK(message_of([&] { return posenc::max_context_length(t32, 0); }) == "search_limit 0 must be >= 1");
}

// ---------------------------------------------------------------------------------------------
// encodings
// ---------------------------------------------------------------------------------------------

TEST_CASE(
    "[errors catalogue] encodings gaps: attention shapes, learned presets, Shaw and T5 shapes, positions beyond 2^50")
{
    namespace enc = posenc::encodings;
    const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(4, 4);
    CHECK(message_of([] { (void)enc::alibi_slopes((1 << 20) + 1); }) == "num_heads 1048577 must be <= 2^20");
    CHECK(message_of([] { (void)enc::alibi_causal_bias(infinity, 4); }) == "slope inf must be finite and > 0");
    CHECK(message_of([] { (void)enc::causal_mask(-1); }) == "length -1 must be > 0");
    CHECK(message_of([&] { enc::SingleHeadAttention(Eigen::MatrixXd(4, 0), Eigen::MatrixXd(4, 0), w); }) ==
          "w_query.cols 0 must be > 0");
    CHECK(message_of([&] { enc::SingleHeadAttention(w, Eigen::MatrixXd::Identity(5, 4), w); }) ==
          "w_key.rows 5 must equal w_query.rows 4");
    CHECK(message_of([&] { enc::SingleHeadAttention(w, w, Eigen::MatrixXd(4, 0)); }) == "w_value.cols 0 must be > 0");
    Eigen::MatrixXd bad_value = w;
    bad_value(0, 3) = infinity;
    CHECK(message_of([&] { enc::SingleHeadAttention(w, w, bad_value); }) == "w_value(0, 3) inf must be finite");
    const enc::SingleHeadAttention head(w, w, w);
    CHECK(message_of([&] { (void)head.forward(Eigen::MatrixXd::Ones(3, 4), Eigen::MatrixXd::Zero(3, 2)); }) ==
          "bias.cols 2 must equal the number of tokens 3");

    const posenc::ModelPreset empty_table {"fake", "Fake", posenc::PositionEncodingKind::learned_absolute,
                                           8,      1,      8,
                                           0,      0.0,    posenc::Pairing::half_split,
                                           0,      0,      0,
                                           0,      nullptr};
    CHECK(message_of([&] { (void)enc::LearnedPositionTable::from_preset(empty_table); }) ==
          "preset.native_length 0 must be in [1, 2^31 - 1]");
    CHECK(message_of([] { (void)enc::LearnedPositionTable::parameter_count(4, 0); }) == "dim 0 must be > 0");
    CHECK(message_of([] { enc::LearnedPositionTable(Eigen::MatrixXd(3, 0)); }) == "dim 0 must be > 0");

    CHECK(message_of([] { enc::ClippedRelativePositions(1 << 30, 4); }) ==
          "max_distance 1073741824 must be < 2^30 (2k + 1 rows must fit an int)");
    CHECK(message_of([] { (void)enc::clipped_relative_position(0, 5, 1 << 30); }) ==
          "max_distance 1073741824 must be < 2^30 (2k + 1 rows must fit an int)");
    const enc::ClippedRelativePositions shaw(2, 3);
    CHECK(message_of([&] { (void)shaw.logits(Eigen::MatrixXd(0, 3), Eigen::MatrixXd(0, 3)); }) ==
          "queries.rows 0 must be > 0");
    CHECK(message_of([&] { (void)shaw.logits(Eigen::MatrixXd::Zero(4, 3), Eigen::MatrixXd::Zero(4, 2)); }) ==
          "keys.cols 2 must equal dim 3");
    Eigen::MatrixXd keys = Eigen::MatrixXd::Zero(4, 3);
    keys(1, 2) = not_a_number;
    CHECK(message_of([&] { (void)shaw.logits(Eigen::MatrixXd::Zero(4, 3), keys); }) == "keys(1, 2) nan must be finite");
    CHECK(message_of([&] { (void)shaw.outputs(Eigen::MatrixXd::Zero(3, 4), Eigen::MatrixXd::Zero(4, 3)); }) ==
          "alpha.rows 3 must equal the number of tokens 4");
    CHECK(message_of([&] { (void)shaw.outputs(Eigen::MatrixXd::Zero(4, 4), Eigen::MatrixXd::Zero(4, 2)); }) ==
          "values.cols 2 must equal dim 3");

    const enc::SinusoidalEncoding pe(8);
    CHECK(message_of([] { enc::SinusoidalEncoding(8, enc::EmbeddingScale::none, infinity); }) ==
          "base inf must be finite and > 1");
    CHECK(message_of([&] { (void)pe.add_to(Eigen::MatrixXd(0, 8)); }) == "token_embeddings.rows 0 must be > 0");
    CHECK(message_of([&] { (void)pe.encode_positions(two_to_50 - 1, 3); }) ==
          "last_position 1125899906842625 must satisfy |position| <= 2^50");
    CHECK(message_of([&] { (void)pe.encode_positions(-two_to_50 - 1, 1); }) ==
          "first_position -1125899906842625 must satisfy |position| <= 2^50");
    CHECK(message_of([&] { (void)pe.value(-two_to_50 - 1, 0); }) ==
          "position -1125899906842625 must satisfy |position| <= 2^50");
    CHECK(message_of([&] { (void)pe.shift_rotation(-1, 0); }) == "pair -1 must be in [0, d_model / 2 = 4)");

    const enc::T5RelativeBuckets t5;
    CHECK(message_of([&] { (void)t5.bucket_matrix(4, 0); }) == "key_length 0 must be > 0");
    CHECK(message_of([&] { (void)t5.bias(Eigen::VectorXd::Zero(32), 0, 2); }) == "query_length 0 must be > 0");
    CHECK(message_of([&] { (void)t5.smallest_distance_in_bucket(-1); }) ==
          "bucket -1 must be in [0, buckets_per_side 16)");

    const Eigen::VectorXd e = Eigen::VectorXd::Ones(4);
    CHECK(message_of([&] { (void)enc::cosine_similarity(e, Eigen::VectorXd::Zero(4)); }) == "b.norm 0 must be > 0");
    Eigen::VectorXd with_nan = e;
    with_nan(1) = not_a_number;
    CHECK(message_of([&] { (void)enc::root_mean_square(with_nan); }) == "v(1) nan must be finite");
    CHECK(message_of([&] { (void)enc::cosine_similarity(with_nan, e); }) == "a(1) nan must be finite");
    CHECK(message_of([] { (void)enc::rms_norm(Eigen::VectorXd(0), 1e-6); }) == "x.size 0 must be > 0");
    CHECK(message_of([&] { (void)enc::content_to_position_ratio(e, -3); }) ==
          "position -3 must be > 0 (position 0 adds no signal)");
    CHECK(message_of([] { (void)enc::position_named_by(0.5, 1); }) ==
          "length 1 must be >= 2 (t / (T - 1) needs T - 1 > 0)");
}

// ---------------------------------------------------------------------------------------------
// kernels: views, angle sources, the checked entry points
// ---------------------------------------------------------------------------------------------

namespace {

using namespace posenc::kernels;
using V = HeadsView<float>;

const posenc::RopeSpec kernel_spec(64, 32, 1e4);

std::string kernel_error_of(const QKViews<float>& views, TokenRange range)
{
    const CosSinCache cache(posenc::FrequencyTable::from_spec(kernel_spec), 100);
    return message_of(
        [&] { apply_rope(kernel_spec, cache, PositionIds::contiguous(0), views, Direction::forward, range); });
}

std::string kernel_error_of(const QKViews<float>& views) { return kernel_error_of(views, {0, views.tokens()}); }

}  // namespace

TEST_CASE("[errors catalogue] kernels: element counts beyond size_t, null outputs, K shapes, ranges, far positions")
{
    std::vector<float> x(1024, 1.0f), y(1024, 0.0f), z(1024, 0.0f), w(1024, 0.0f);
    // 2^62 tokens x 16 heads x 64 dims: the last element's index (2^62 - 1) * 1024 + 15 * 64 + 63
    // is beyond 64 bits, reported in double (2^72 after rounding); no multiplication overflows.
    CHECK(
        kernel_error_of(QKViews<float>::in_place(V(x, {std::ptrdiff_t {1} << 62, 16, 64})), {0, 0}) ==
        "q_in.size 1024 must be > 4.722366482869645e+21, the index of q_in's last element (token 4611686018427387903, "
        "head 15, dim 63): the view would address memory past its buffer");
    // 2^54 tokens of one 64-wide head: the last index (2^54 - 1) * 64 + 63 = 2^60 - 1, exact.
    CHECK(kernel_error_of(QKViews<float>::in_place(V(x, {std::ptrdiff_t {1} << 54, 1, 64})), {0, 0}) ==
          "q_in.size 1024 must be > 1152921504606846975, the index of q_in's last element (token 18014398509481983, "
          "head 0, dim 63): the view would address memory past its buffer");
    // null data is refused whatever the extents (also for zero tokens)
    CHECK(kernel_error_of(QKViews<float>::in_place(V(nullptr, 0, {0, 1, 64}))) ==
          "q_in.data null must point to the tensor");
    CHECK(kernel_error_of(QKViews<float>::out_of_place(V(x, {1, 1, 64}), V(nullptr, 0, {1, 1, 64}))) ==
          "q_out.data null must point to the tensor");
    const V q(x, {2, 1, 64});
    CHECK(kernel_error_of(QKViews<float>::out_of_place(q, q, V(z, {2, 1, 64}), V(w, {2, 2, 64}))) ==
          "k_out 2x2x64 must have the shape of k_in 2x1x64");
    CHECK(kernel_error_of(QKViews<float>::out_of_place(q, q, V {}, V(w, {2, 1, 64}))) ==
          "k_in absent must be given together with k_out");
    CHECK(kernel_error_of(QKViews<float>::in_place(q, V(z, {2, 1, 32}))) ==
          "k_in.head_dim 32 must equal spec.head_dim 64 (the buffer's heads are that long)");
    CHECK(kernel_error_of(QKViews<float>::in_place(q, V(z, {2, 0, 64}))) == "k_in.heads 0 must be >= 1");
    CHECK(kernel_error_of(QKViews<float>::in_place(q), {-1, 2}) ==
          "range [-1, 2) must satisfy 0 <= begin <= end <= tokens 2");
    CHECK(kernel_error_of(QKViews<float>::in_place(q), {2, 1}) ==
          "range [2, 1) must satisfy 0 <= begin <= end <= tokens 2");

    const CosSinCache cache(posenc::FrequencyTable::from_spec(kernel_spec), 100);
    const auto views = QKViews<float>::in_place(q);
    CHECK(message_of([&] {
              apply_rope(kernel_spec, cache, PositionIds::contiguous((std::int64_t {1} << 62) + 1), views);
          }) == "positions.start 4611686018427387905 must be in [0, 99], the positions the CosSinCache serves");
    CHECK(message_of([&] {
              apply_rope(kernel_spec, cache, PositionIds::contiguous(std::numeric_limits<std::int64_t>::min()), views);
          }) == "positions.start -9223372036854775808 must be in [0, 99], the positions the CosSinCache serves");
    const std::vector<std::int64_t> ids {3, std::numeric_limits<std::int64_t>::max()};
    CHECK(message_of([&] { apply_rope(kernel_spec, cache, PositionIds(ids), views); }) ==
          "positions[1] 9223372036854775807 must be in [0, 99], the positions the CosSinCache serves");

    const posenc::FrequencyTable fast({1.0, 1e6});
    CHECK(message_of([&] { CosSinCache(fast, 1, 2000000000); }) ==
          "inv_freq[1] 1000000 must be <= 2^50 / 2000000000 so that position * inv_freq stays in the exact reduction's "
          "range");
    CHECK(message_of([&] { OnTheFlyAngles(fast, 1000, -1); }) == "levels -1 must be in [0, 4] (0 = automatic)");
}

TEST_CASE("[errors catalogue] kernels: a null K with extents is refused (no K is an empty view), and the unchecked "
          "entry's debug predicate agrees with the checks")
{
    std::vector<float> x(1024, 1.0f), z(1024, 0.0f);
    const V q(x, {2, 1, 64});
    // Null data with non-zero extents is an error for K as for Q; only an all-empty view means "no K".
    CHECK(kernel_error_of(QKViews<float>::in_place(q, V(nullptr, 0, {2, 1, 64}))) ==
          "k_in.data null must point to the elements of 2x1x64 (leave the whole view empty for no K)");
    CHECK(kernel_error_of(QKViews<float>::out_of_place(q, V(z, {2, 1, 64}), V(nullptr, 0, {2, 1, 64}),
                                                       V(nullptr, 0, {2, 1, 64}))) ==
          "k_in.data null must point to the elements of 2x1x64 (leave the whole view empty for no K)");
    CHECK(kernel_error_of(QKViews<float>::in_place(q, V {})) == "(no error)");

    // apply_rope_unchecked asserts (POSENC_ASSERT, debug builds) exactly what apply_rope checks.
    const CosSinCache cache(posenc::FrequencyTable::from_spec(kernel_spec), 100);
    const auto good = QKViews<float>::in_place(q);
    const auto null_k = QKViews<float>::in_place(q, V(nullptr, 0, {2, 1, 64}));
    CHECK(posenc::kernels::detail::rope_call_is_valid(kernel_spec, cache, PositionIds::contiguous(0), good, {0, 2}));
    CHECK_FALSE(
        posenc::kernels::detail::rope_call_is_valid(kernel_spec, cache, PositionIds::contiguous(0), null_k, {0, 2}));
    CHECK_FALSE(
        posenc::kernels::detail::rope_call_is_valid(kernel_spec, cache, PositionIds::contiguous(99), good, {0, 2}));
    CHECK_FALSE(
        posenc::kernels::detail::rope_call_is_valid(kernel_spec, cache, PositionIds::contiguous(0), good, {1, 3}));
}

TEST_CASE("[errors catalogue] kernels: out of place, source and destination may not overlap partially; in place only "
          "when identical")
{
    std::vector<float> x(1024, 1.0f), y(1024, 0.5f), z(1024, 0.25f);
    const char* rule = " (views sharing memory need equal strides and disjoint rows)";
    // K out of place into a shifted copy of its own input.
    const V q(x, {2, 1, 64});
    CHECK(kernel_error_of(
              QKViews<float>::out_of_place(q, q, V(y, {2, 1, 64}), V(y.data() + 32, 1024 - 32, {2, 1, 64}))) ==
          std::string("k_out 2x1x64 must not overlap k_in") + rule);
    // Q written over K's input, and K written over Q's input.
    CHECK(kernel_error_of(QKViews<float>::out_of_place(q, V(y, {2, 1, 64}), V(y.data() + 32, 1024 - 32, {2, 1, 64}),
                                                       V(z, {2, 1, 64}))) ==
          std::string("q_out 2x1x64 must not overlap k_in") + rule);
    CHECK(kernel_error_of(QKViews<float>::out_of_place(q, V(y, {2, 1, 64}), V(z, {2, 1, 64}),
                                                       V(x.data() + 16, 1024 - 16, {2, 1, 64}))) ==
          std::string("k_out 2x1x64 must not overlap q_in") + rule);
    // Same first element, different token stride: not the identical view, so not in place.
    CHECK(kernel_error_of(QKViews<float>::out_of_place(V(x, {2, 1, 64}, {64, 64}), V(x, {2, 1, 64}, {128, 64}))) ==
          std::string("q_out 2x1x64 must not overlap q_in") + rule);
    // One element of overlap is enough: the last element of q_in is the first of q_out.
    CHECK(kernel_error_of(QKViews<float>::out_of_place(V(x, {2, 1, 64}), V(x.data() + 127, 1024 - 127, {2, 1, 64}))) ==
          std::string("q_out 2x1x64 must not overlap q_in") + rule);
    // Identical views are in place; adjacent disjoint views are a valid out-of-place call.
    CHECK(kernel_error_of(QKViews<float>::out_of_place(V(x, {2, 1, 64}), V(x, {2, 1, 64}))) == "(no error)");
    CHECK(kernel_error_of(QKViews<float>::out_of_place(V(x, {2, 1, 64}), V(x.data() + 128, 1024 - 128, {2, 1, 64}))) ==
          "(no error)");
}

// ---------------------------------------------------------------------------------------------
// non-finite data: IEEE 754 through the kernel, nothing else touched
// ---------------------------------------------------------------------------------------------

namespace {

// Token 0 (position 1), head 1: pair 0 gets a = +inf, pair 1 gets b = -inf, pair 2 gets a = NaN,
// and pass-through dim 40 gets NaN. At position 1, pairs 0 and 1 have angles 1 and 10^4^(-1/16)
// = 0.562 rad, so cos > 0 and sin > 0 and IEEE arithmetic gives, forward:
//   pair 0: a' = inf c - b s = +inf,   b' = b c + inf s = +inf
//   pair 1: a' = a c - (-inf) s = +inf, b' = (-inf) c + a s = -inf
//   pair 2: a' = NaN c - b s = NaN,    b' = b c + NaN s = NaN
// Every other element must equal (bit for bit) the result of the same call on clean data.
template <class T>
void check_non_finite(posenc::Pairing pairing, bool in_place, const kernel_test::ArchPath& path)
{
    const posenc::RopeSpec spec(64, 32, 1e4, pairing);
    const CosSinCache cache(posenc::FrequencyTable::from_spec(spec), 16);
    const HeadsShape shape {3, 2, 64};
    const std::size_t n = 3 * 2 * 64;
    std::vector<T> clean(n);
    for (std::size_t i = 0; i < n; ++i) clean[i] = static_cast<T>(0.25 + 0.01 * static_cast<double>(i % 97));
    const auto coord = [&](int pair, bool second) {
        const posenc::PairCoordinates p = spec.pair_coordinates(pair);
        return static_cast<std::size_t>(64 + (second ? p.second : p.first));  // token 0, head 1
    };
    std::vector<T> dirty = clean;
    dirty[coord(0, false)] = std::numeric_limits<T>::infinity();
    dirty[coord(1, true)] = -std::numeric_limits<T>::infinity();
    dirty[coord(2, false)] = std::numeric_limits<T>::quiet_NaN();
    const std::size_t pass = 64 + 40;
    dirty[pass] = std::numeric_limits<T>::quiet_NaN();

    const auto run = [&](std::vector<T>& data) {
        std::vector<T> out(n, static_cast<T>(-7.0));
        if (in_place) {
            kernel_test::apply_on(path, spec, cache, PositionIds::contiguous(1),
                                  QKViews<T>::in_place(HeadsView<T>(data, shape)));
            return data;
        }
        kernel_test::apply_on(path, spec, cache, PositionIds::contiguous(1),
                              QKViews<T>::out_of_place(HeadsView<const T>(data, shape), HeadsView<T>(out, shape)));
        return out;
    };
    const std::vector<T> want = run(clean);
    const std::vector<T> got = run(dirty);

    const T inf = std::numeric_limits<T>::infinity();
    CHECK(got[coord(0, false)] == inf);
    CHECK(got[coord(0, true)] == inf);
    CHECK(got[coord(1, false)] == inf);
    CHECK(got[coord(1, true)] == -inf);
    CHECK(std::isnan(got[coord(2, false)]));
    CHECK(std::isnan(got[coord(2, true)]));
    CHECK(std::isnan(got[pass]));  // pass-through: copied (out of place) or left (in place) as it is
    std::size_t others_differing = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const bool affected = i == coord(0, false) || i == coord(0, true) || i == coord(1, false) ||
                              i == coord(1, true) || i == coord(2, false) || i == coord(2, true) || i == pass;
        if (!affected && kernel_test::bits_of(got[i]) != kernel_test::bits_of(want[i])) ++others_differing;
    }
    CHECK(others_differing == 0);
}

}  // namespace

TEST_CASE(
    "[errors catalogue] NaN and Inf in Q/K flow through as IEEE arithmetic says, on every path, and touch nothing else")
{
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths()) {
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
            for (bool in_place : {true, false}) {
                CAPTURE(path.name);
                CAPTURE(posenc::to_string(pairing));
                CAPTURE(in_place);
                check_non_finite<float>(pairing, in_place, path);
                check_non_finite<double>(pairing, in_place, path);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// config reader
// ---------------------------------------------------------------------------------------------

TEST_CASE("[errors catalogue] config reader gaps: string keys, missing and impossible heads, type and list errors, "
          "required keys")
{
    CHECK(config_error_of(R"({"model_type": 7, "head_dim": 64})") == "model_type: expected a string, got 7");
    CHECK(config_error_of(R"({"_name_or_path": ["x"], "head_dim": 64})") ==
          "_name_or_path: expected a string, got [\"x\"]");
    CHECK(config_error_of("{}") == "hidden_size: expected a positive integer (no head_dim given), got nothing");
    CHECK(config_error_of(R"({"hidden_size": 4, "num_attention_heads": 8})") ==
          "hidden_size: expected hidden_size // num_attention_heads >= 1, got 4 // 8");
    CHECK(config_error_of(R"({"head_dim": 64, "max_position_embeddings": -4096})") ==
          "max_position_embeddings: expected a positive integer, got -4096");
    CHECK(config_error_of(R"({"head_dim": 64, "max_position_embeddings": 4096.5})") ==
          "max_position_embeddings: expected a positive integer, got 4096.5");
    CHECK(config_error_of(R"({"qk_rope_head_dim": 64, "rope_interleave": "yes"})") ==
          "rope_interleave: expected true or false, got \"yes\"");
    CHECK(config_error_of(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 63})") ==
          "rotary_dim: expected a rotary_dim that is even, > 0 and <= head_dim 256, got 63");
    CHECK(config_error_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": 5}})") ==
          "rope_scaling.rope_type: expected a string, got 5");
    CHECK(config_error_of(R"({"head_dim": 4, "rope_scaling": {"type": "longrope", "short_factor": 1.5}})") ==
          "rope_scaling.short_factor: expected a list of numbers, got 1.5");
    CHECK(
        config_error_of(
            R"({"head_dim": 4, "rope_scaling": {"type": "longrope", "short_factor": [1.0, 0], "long_factor": [1, 1]}})") ==
        "rope_scaling.short_factor[1]: expected a finite number > 0, got 0");
    CHECK(config_error_of(R"({"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4.0}})") ==
          "rope_scaling.original_max_position_embeddings: expected a value (no max_position_embeddings to fall back "
          "on), got nothing");
    CHECK(config_error_of(R"({"head_dim": 64, "rope_scaling": {"type": "yarn"}})") ==
          "rope_scaling.factor: expected a value (required for rope_type \"yarn\"), got nothing");
    CHECK(config_error_of(R"({"head_dim": 64, "rope_scaling": {"type": "llama3", "factor": 8.0, "high_freq_factor": 4.0,
                                                              "original_max_position_embeddings": 8192}})") ==
          "rope_scaling.low_freq_factor: expected a value (required for rope_type \"llama3\"), got nothing");
    CHECK(
        config_error_of(
            R"({"head_dim": 4, "rope_scaling": {"type": "longrope", "short_factor": [1, 1], "long_factor": [1, 1]}})") ==
        "original_max_position_embeddings: expected a value for rope_type \"longrope\", got nothing");
    CHECK(
        config_error_of(
            R"({"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                                              "beta_fast": 1.0, "beta_slow": 2.0}})") ==
        "rope_scaling.beta_fast: must be >= beta_slow 2, got 1");

    const std::string dir = std::filesystem::temp_directory_path().string();
    CHECK(message_of([&] { posenc::hf::read_model(dir); }) == dir + ": is a directory, not a config file");
}

TEST_CASE("[errors catalogue] dynamic NTK without max_position_embeddings names the top-level key")
{
    // The key Hugging Face reads is the top-level max_position_embeddings, so the path must be that
    // (an earlier version built it with the scaling-dict prefix).
    CHECK(config_error_of(R"({"head_dim": 64, "rope_scaling": {"type": "dynamic", "factor": 2.0}})") ==
          "max_position_embeddings: expected a value (required for rope_type \"dynamic\"), got nothing");
}

TEST_CASE(
    "[errors catalogue] model_from_json turns nlohmann's type_error for a non-UTF-8 string value into posenc::error")
{
    // A caller-built JSON value (parse_model's parser already rejects such text): the rule is that
    // every refusal is a posenc::error (an earlier version let the type_error escape).
    const nlohmann::json config = {{"head_dim", std::string("\xff\xfe")}};
    bool posenc_error = false;
    try {
        posenc::hf::model_from_json(config);
    } catch (const posenc::error&) {
        posenc_error = true;
    } catch (const std::exception&) {}
    CHECK(posenc_error);
}

// ---------------------------------------------------------------------------------------------
// posenc-inspect
// ---------------------------------------------------------------------------------------------

TEST_CASE("[errors catalogue] posenc-inspect gaps: unknown preset, config without lengths, longrope without a factor")
{
    const auto report = [](std::vector<std::string> args) {
        return usage_error_of([&] { inspect::build_report(inspect::parse_options(args)); });
    };
    CHECK(report({"--preset", "llama-9"}) == "--preset: no preset named \"llama-9\" (see --list-presets)");
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "posenc_catalogue_gaps_config.json";
    {
        std::ofstream out(file);
        out << R"({"head_dim": 64})";
    }
    CHECK(report({"--config", file.string()}) ==
          "the config names no max_position_embeddings or original length: give --original-length N");
    CHECK(report({"--config", file.string(), "--original-length", "4096", "--scaling", "longrope", "--short-factor",
                  "1", "--long-factor", "1"}) ==
          "--scaling longrope needs --factor S (the model names no longer length)");
    std::filesystem::remove(file);
    CHECK(report({"--preset", "qwen3-8b", "--scaling", "ntk_aware", "--factor", "1e39"}) ==
          "--factor: must be >= 1 and finite in float32, got \"1e39\"");
}

}  // namespace errors_catalogue_gaps_tests
