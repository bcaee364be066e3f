// SPDX-License-Identifier: MIT
// MultiAxisLayout and the multi-axis scalar reference against Hugging Face's formulas.
//
// Expected values: tests/multi_axis/hf_multi_axis_reference.py (torch, float64), which restates
// HF's rules (Qwen2-VL apply_multimodal_rotary_pos_emb, Qwen3-VL apply_interleaved_mrope, the
// vision rotary embeddings of Qwen2-VL, Pixtral and Llama 4) without posenc; its output is pasted
// below. The text-token identity (all axes equal gives the 1-D result bit for bit) is checked
// against rotation.hpp's apply_rope_reference.
#include <doctest/doctest.h>

#include <posenc/multi_axis.hpp>
#include <posenc/rotation.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "support/error_messages.hpp"

namespace multi_axis_layouts_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using posenc::MultiAxisKind;
using posenc::MultiAxisLayout;
using posenc::Pairing;
using test_support::message_of;

// ---- output of hf_multi_axis_reference.py ----------------------------------------------------
const std::vector<int> qwen2_vl_16_24_24 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
                                            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
                                            2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
const std::vector<int> qwen2_vl_8_12_12 = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                           1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
const std::vector<int> qwen3_vl_24_20_20 = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
                                            1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1,
                                            2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 0, 0};
const std::vector<int> qwen3_vl_11_11_10 = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
                                            1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1};
const std::vector<int> qwen3_vl_10_30_24 = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
                                            1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1,
                                            2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0};
const std::vector<double> qwen2_vl_vision_80_freqs = {
    1.0,   0.6309573444801932,   0.39810717055349726,   0.251188643150958,      0.15848931924611132,
    0.1,   0.06309573444801933,  0.039810717055349734,  0.025118864315095794,   0.015848931924611134,
    0.01,  0.006309573444801929, 0.003981071705534973,  0.0025118864315095794,  0.001584893192461114,
    0.001, 0.000630957344480193, 0.0003981071705534973, 0.00025118864315095795, 0.0001584893192461114,
    1.0,   0.6309573444801932,   0.39810717055349726,   0.251188643150958,      0.15848931924611132,
    0.1,   0.06309573444801933,  0.039810717055349734,  0.025118864315095794,   0.015848931924611134,
    0.01,  0.006309573444801929, 0.003981071705534973,  0.0025118864315095794,  0.001584893192461114,
    0.001, 0.000630957344480193, 0.0003981071705534973, 0.00025118864315095795, 0.0001584893192461114};
const std::vector<int> qwen2_vl_vision_80_axes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
const std::vector<double> pixtral_64_freqs = {1.0,
                                              0.5623413251903491,
                                              0.31622776601683794,
                                              0.17782794100389226,
                                              0.1,
                                              0.056234132519034905,
                                              0.03162277660168379,
                                              0.01778279410038923,
                                              0.01,
                                              0.005623413251903491,
                                              0.003162277660168379,
                                              0.001778279410038923,
                                              0.001,
                                              0.0005623413251903491,
                                              0.00031622776601683794,
                                              0.00017782794100389227,
                                              0.7498942093324559,
                                              0.4216965034285823,
                                              0.23713737056616555,
                                              0.1333521432163324,
                                              0.07498942093324558,
                                              0.042169650342858224,
                                              0.02371373705661655,
                                              0.01333521432163324,
                                              0.007498942093324559,
                                              0.004216965034285823,
                                              0.002371373705661655,
                                              0.001333521432163324,
                                              0.0007498942093324557,
                                              0.0004216965034285823,
                                              0.00023713737056616554,
                                              0.0001333521432163324};
const std::vector<int> pixtral_64_axes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
const std::vector<double> rotated_sections_16 = {
    1.113346055421793,   -0.028528539699808977, 0.3375764942402408,  -0.5662849729849836,
    -0.8966765740914958, 0.015977491265781876,  1.0274060981258986,  1.4262413431057093,
    -0.5481734308319048, 0.9715543374152449,    0.31221727087909745, -0.16188157590082158,
    1.0333613321379103,  1.803340078907255,     1.5283769315192026,  0.6509500274006608};
const std::vector<double> rotated_interleaved_16 = {
    -1.2408405148145198,  0.29371928764646194,   -0.4501388822147304, -0.5886242323503816,
    -0.7170980084527325,  -0.006359340194024343, 1.0300564201792124,  1.4268326748637363,
    0.018664570397547542, 0.9265315365340966,    0.09387491899967804, 0.020145181425371556,
    1.1651759384554006,   1.8033996448964575,    1.5265919908455972,  0.6496528495266486};
const std::vector<double> rotated_qwen2_vl_vision_16 = {
    -0.9617681290556755, 0.9229326567560993,  0.27724828185404665, -0.5697527140154479,
    1.1670180921190403,  -1.5919355446799162, 0.8583058654260786,  1.4196265031545423,
    -0.7842420642416683, 0.3048393334543744,  -0.3668390708576476, 0.14921849790414174,
    0.7140961377497664,  0.847367654566205,   1.6293588851574499,  0.6652525073219235};
const std::vector<double> rotated_pixtral_16 = {
    -0.9617681290556755, 0.9229326567560993,  0.27724828185404665, -0.5697527140154479,
    1.0558963339623304,  -0.5835364131665739, 0.9783157887201327,  1.4245899931087906,
    -0.7842420642416683, 0.3048393334543744,  -0.3668390708576476, 0.14921849790414174,
    -0.8700272715307316, 1.7063926789953894,  1.5602556049594059,  0.6545560774228554};
const std::vector<double> rotated_llama4_vision_16 = {
    0.18543657619399678, -1.2720365298481153,  0.4668095931426688,   -0.4207303098228049,
    -0.7096802380568857, 0.004708627995937128, 1.0262709250703228,   1.4309747671596558,
    0.7796100660558377,  -0.4738245934593219,  -0.27655054875103213, -0.29481593083709995,
    0.9458979780238987,  1.9302238329807475,   1.5173830476329464,   0.6678529277371337};
const std::vector<double> llama4_vision_88_freqs = {1.0,
                                                    0.657933224657568,
                                                    0.43287612810830584,
                                                    0.2848035868435802,
                                                    0.1873817422860384,
                                                    0.12328467394420663,
                                                    0.08111308307896872,
                                                    0.0533669923120631,
                                                    0.03511191734215131,
                                                    0.02310129700083159,
                                                    0.01519911082952934,
                                                    0.01,
                                                    0.006579332246575682,
                                                    0.004328761281083057,
                                                    0.002848035868435802,
                                                    0.0018738174228603848,
                                                    0.0012328467394420659,
                                                    0.0008111308307896872,
                                                    0.0005336699231206307,
                                                    0.0003511191734215131,
                                                    0.00023101297000831605,
                                                    0.0001519911082952933,
                                                    1.0,
                                                    0.657933224657568,
                                                    0.43287612810830584,
                                                    0.2848035868435802,
                                                    0.1873817422860384,
                                                    0.12328467394420663,
                                                    0.08111308307896872,
                                                    0.0533669923120631,
                                                    0.03511191734215131,
                                                    0.02310129700083159,
                                                    0.01519911082952934,
                                                    0.01,
                                                    0.006579332246575682,
                                                    0.004328761281083057,
                                                    0.002848035868435802,
                                                    0.0018738174228603848,
                                                    0.0012328467394420659,
                                                    0.0008111308307896872,
                                                    0.0005336699231206307,
                                                    0.0003511191734215131,
                                                    0.00023101297000831605,
                                                    0.0001519911082952933};
const std::vector<int> llama4_vision_88_axes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
// ---- end of pasted output --------------------------------------------------------------------

std::vector<double> head_vector(int head_dim)  // the script's q[d] = sin(d + 1) + d / head_dim
{
    std::vector<double> q(static_cast<std::size_t>(head_dim));
    for (int d = 0; d < head_dim; ++d)
        q[static_cast<std::size_t>(d)] = std::sin(d + 1.0) + d / static_cast<double>(head_dim);
    return q;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tolerance)
{
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i);
        CHECK(std::fabs(got[i] - want[i]) <= tolerance);
    }
}

}  // namespace

TEST_CASE("[hf] M-RoPE sections: pair axes of Qwen2-VL's apply_multimodal_rotary_pos_emb")
{
    const MultiAxisLayout a = MultiAxisLayout::sections({16, 24, 24}, 64);
    CHECK(a.pair_axes() == qwen2_vl_16_24_24);
    CHECK(a.num_axes() == 3);
    CHECK(a.num_pairs() == 64);
    CHECK(a.kind() == MultiAxisKind::sections);
    CHECK_FALSE(a.is_interleaved());
    CHECK(a.mrope_section() == std::vector<int> {16, 24, 24});
    CHECK(a.pairs_on_axis(1) == 24);
    CHECK(MultiAxisLayout::sections({8, 12, 12}, 32).pair_axes() == qwen2_vl_8_12_12);
    // the runs restate the HF axes above as [begin, end) spans
    const std::vector<posenc::AxisRun>& runs = a.axis_runs();
    REQUIRE(runs.size() == 3);
    CHECK((runs[0].begin == 0 && runs[0].end == 16 && runs[0].axis == 0));
    CHECK((runs[1].begin == 16 && runs[1].end == 40 && runs[1].axis == 1));
    CHECK((runs[2].begin == 40 && runs[2].end == 64 && runs[2].axis == 2));
    CHECK(MultiAxisLayout::interleaved({24, 20, 20}, 64).axis_runs().size() ==
          61);  // 60 single pairs, then 60-63 temporal
}

TEST_CASE("[hf] interleaved M-RoPE: pair axes of Qwen3-VL's apply_interleaved_mrope")
{
    const MultiAxisLayout a = MultiAxisLayout::interleaved({24, 20, 20}, 64);
    CHECK(a.pair_axes() == qwen3_vl_24_20_20);
    CHECK(a.is_interleaved());
    CHECK(a.kind() == MultiAxisKind::interleaved);
    CHECK(a.mrope_section() == std::vector<int> {24, 20, 20});
    CHECK(a.pairs_on_axis(0) == 24);
    CHECK(a.pairs_on_axis(1) == 20);
    CHECK(a.pairs_on_axis(2) == 20);
    CHECK(MultiAxisLayout::interleaved({11, 11, 10}, 32).pair_axes() == qwen3_vl_11_11_10);
    // sections too wide for the round robin: HF's slices stop at the last pair, so the counts fall short
    const MultiAxisLayout wide = MultiAxisLayout::interleaved({10, 30, 24}, 64);
    CHECK(wide.pair_axes() == qwen3_vl_10_30_24);
    CHECK(wide.pairs_on_axis(1) == 21);
}

TEST_CASE("[hf] 2-D vision RoPE: tables and axes of Qwen2-VL, Pixtral and Llama 4 vision towers")
{
    const posenc::FrequencyTable qwen = posenc::axial_2d_shared_frequencies(80);
    const posenc::FrequencyTable pixtral = posenc::axial_2d_even_odd_frequencies(64);
    const posenc::FrequencyTable llama4 = posenc::axial_2d_shared_frequencies(88);
    auto check_table = [](const posenc::FrequencyTable& t, const std::vector<double>& want) {
        REQUIRE(t.num_pairs() == static_cast<int>(want.size()));
        for (int i = 0; i < t.num_pairs(); ++i) {
            INFO("pair " << i);
            CHECK(std::fabs(t.inv_freq(i) - want[static_cast<std::size_t>(i)]) <=
                  2e-16 * want[static_cast<std::size_t>(i)] * 8);
        }
    };
    check_table(qwen, qwen2_vl_vision_80_freqs);
    check_table(pixtral, pixtral_64_freqs);
    check_table(llama4, llama4_vision_88_freqs);
    CHECK(MultiAxisLayout::axial_2d(40).pair_axes() == qwen2_vl_vision_80_axes);
    CHECK(MultiAxisLayout::axial_2d(32).pair_axes() == pixtral_64_axes);
    CHECK(MultiAxisLayout::axial_2d(44).pair_axes() == llama4_vision_88_axes);
    CHECK(MultiAxisLayout::axial_2d(44).kind() == MultiAxisKind::axial_2d);
    CHECK(MultiAxisLayout::axial_2d(44).mrope_section().empty());
}

TEST_CASE("[hf] multi-axis reference apply equals HF's rotation of a head vector")
{
    const double tol = 1e-14;
    {  // Qwen2-VL M-RoPE, head 16, sections [2, 3, 3], positions (t, h, w) = (5, 17, 3)
        const posenc::RopeSpec spec = posenc::RopeSpec::full(16, 10000.0);
        std::vector<double> q = head_vector(16);
        posenc::apply_multi_axis_rope_reference(spec, posenc::FrequencyTable::from_spec(spec),
                                                MultiAxisLayout::sections({2, 3, 3}, 8), q.data(), {5, 17, 3});
        check_close(q, rotated_sections_16, tol);
    }
    {  // Qwen3-VL interleaved, base 1e6, sections [3, 3, 2], positions (40, 7, 123)
        const posenc::RopeSpec spec = posenc::RopeSpec::full(16, 1e6);
        std::vector<double> q = head_vector(16);
        posenc::apply_multi_axis_rope_reference(spec, posenc::FrequencyTable::from_spec(spec),
                                                MultiAxisLayout::interleaved({3, 3, 2}, 8), q.data(), {40, 7, 123});
        check_close(q, rotated_interleaved_16, tol);
    }
    {  // Qwen2-VL vision, head 16, patch row 3, column 11
        std::vector<double> q = head_vector(16);
        posenc::apply_multi_axis_rope_reference(posenc::RopeSpec::full(16, 10000.0),
                                                posenc::axial_2d_shared_frequencies(16), MultiAxisLayout::axial_2d(8),
                                                q.data(), {3, 11});
        check_close(q, rotated_qwen2_vl_vision_16, tol);
    }
    {  // Pixtral, head 16, row 3, column 11
        std::vector<double> q = head_vector(16);
        posenc::apply_multi_axis_rope_reference(posenc::RopeSpec::full(16, 10000.0),
                                                posenc::axial_2d_even_odd_frequencies(16), MultiAxisLayout::axial_2d(8),
                                                q.data(), {3, 11});
        check_close(q, rotated_pixtral_16, tol);
    }
    {  // Llama 4 vision, head 16, x = 3, y = 11: axis positions x + 1, y + 1, complex (interleaved) pairs
        std::vector<double> q = head_vector(16);
        posenc::apply_multi_axis_rope_reference(posenc::RopeSpec::full(16, 10000.0, Pairing::interleaved),
                                                posenc::axial_2d_shared_frequencies(16), MultiAxisLayout::axial_2d(8),
                                                q.data(), {4, 12});
        check_close(q, rotated_llama4_vision_16, tol);
    }
}

TEST_CASE("[identity] text tokens: every axis at m gives apply_rope_reference at m, bit for bit")
{
    const std::int64_t positions[] = {0, 1, 77, 4095, 131071, -9, 2147483647};
    for (Pairing pairing : {Pairing::half_split, Pairing::interleaved}) {
        const posenc::RopeSpec spec(160, 128, 1e6, pairing);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
        for (const MultiAxisLayout& layout :
             {MultiAxisLayout::single(64), MultiAxisLayout::sections({16, 24, 24}, 64),
              MultiAxisLayout::interleaved({24, 20, 20}, 64), MultiAxisLayout::axial_2d(64)}) {
            for (std::int64_t m : positions) {
                std::vector<float> a(160), b(160);
                for (int d = 0; d < 160; ++d)
                    a[static_cast<std::size_t>(d)] = b[static_cast<std::size_t>(d)] = std::sin(0.37f * d) + 0.5f;
                const std::vector<std::int64_t> each(static_cast<std::size_t>(layout.num_axes()), m);
                posenc::apply_multi_axis_rope_reference(spec, table, layout, a.data(), each);
                posenc::apply_rope_reference(spec, table, b.data(), m);
                INFO(posenc::to_string(layout.kind()) << " " << posenc::to_string(pairing) << " position " << m);
                CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("[identity] each pair rotates as 1-D RoPE at its own axis's position")
{
    const posenc::RopeSpec spec(128, 128, 1e6, Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const MultiAxisLayout layout = MultiAxisLayout::interleaved({24, 20, 20}, 64);
    const std::vector<std::int64_t> pos {12, 900, 31};
    std::vector<double> x(128), per_axis[3];
    for (int d = 0; d < 128; ++d) x[static_cast<std::size_t>(d)] = std::cos(1.3 * d) - 0.25;
    for (int a = 0; a < 3; ++a) {
        per_axis[a] = x;
        posenc::apply_rope_reference(spec, table, per_axis[a].data(), pos[static_cast<std::size_t>(a)]);
    }
    std::vector<double> y = x;
    posenc::apply_multi_axis_rope_reference(spec, table, layout, y.data(), pos);
    for (int i = 0; i < 64; ++i) {
        const std::vector<double>& want = per_axis[layout.axis_of_pair(i)];
        CHECK(y[static_cast<std::size_t>(i)] == want[static_cast<std::size_t>(i)]);
        CHECK(y[static_cast<std::size_t>(i + 64)] == want[static_cast<std::size_t>(i + 64)]);
    }
}

TEST_CASE("[errors] layouts, tables and the reference name the field, the value and the rule")
{
    CHECK(message_of([] {
              MultiAxisLayout::sections({16, 24, 20}, 64);
          }) ==
          "mrope_section sum 60 must equal num_pairs 64 (mrope_section [16, 24, 20] counts pairs: rotary_dim / 2)");
    CHECK(message_of([] {
              MultiAxisLayout::interleaved({24, 20, 20, 4}, 68);
          }) == "mrope_section [24, 20, 20, 4] must have 3 entries [temporal, height, width], counted in pairs");
    CHECK(message_of([] {
              MultiAxisLayout::sections({40, -8, 32}, 64);
          }) == "mrope_section[1] -8 must be >= 0 (pairs of that axis)");
    CHECK(message_of([] { MultiAxisLayout::single(0); }) == "num_pairs 0 must be >= 1");
    CHECK(message_of([] { MultiAxisLayout::axial_2d(33); }) ==
          "num_pairs 33 must be even for 2-D axial RoPE (half the pairs per axis)");
    CHECK(message_of([] {
              MultiAxisLayout::from_pair_axes({0, 1, 2}, 2);
          }) == "axis_of_pair[2] 2 must be in [0, 2) (num_axes 2)");
    CHECK(message_of([] { MultiAxisLayout::from_pair_axes({0, 1}, 5); }) == "num_axes 5 must be in [1, 4]");
    CHECK(message_of([] { posenc::axial_2d_shared_frequencies(90); }) ==
          "head_dim 90 must be a positive multiple of 4 for 2-D axial RoPE (two axes of head_dim / 4 pairs)");
    CHECK(message_of([] { posenc::axial_2d_even_odd_frequencies(64, 1.0); }) == "base 1 must be finite and > 1");
    const posenc::RopeSpec spec = posenc::RopeSpec::full(16, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    std::vector<double> q(16, 1.0);
    CHECK(message_of([&] {
              posenc::apply_multi_axis_rope_reference(spec, table, MultiAxisLayout::sections({2, 3, 3}, 8), q.data(),
                                                      std::vector<std::int64_t> {1, 2});
          }) == "positions.size 2 must equal num_axes 3");
    CHECK(message_of([&] {
              posenc::apply_multi_axis_rope_reference(spec, table, MultiAxisLayout::axial_2d(6), q.data(), {1, 2});
          }) == "layout.num_pairs 6 must equal spec.num_pairs 8 (rotary_dim / 2)");
}

TEST_CASE("[layout] equality compares the axes, not the rule that built them")
{
    CHECK(MultiAxisLayout::single(8) == MultiAxisLayout::from_pair_axes(std::vector<int>(8, 0), 1));
    CHECK(MultiAxisLayout::axial_2d(4) == MultiAxisLayout::from_pair_axes({0, 0, 1, 1}, 2));
    CHECK(MultiAxisLayout::sections({2, 2, 2}, 6) != MultiAxisLayout::interleaved({2, 2, 2}, 6));
    CHECK(MultiAxisLayout::from_pair_axes({0, 0}, 1) != MultiAxisLayout::from_pair_axes({0, 0}, 2));
}

}  // namespace multi_axis_layouts_tests
