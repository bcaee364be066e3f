// SPDX-License-Identifier: MIT
// Vision towers on the SIMD kernels (posenc/kernels/tower_rope.hpp, coordinate_angles.hpp).
//
// 1. Every swept tower: apply_tower_rope on random Q and K must rotate each pair of head dims
//    by transformers' own float32 angle (tests/data/transformers_sweep_towers.json: angles from
//    the towers' forward, pairs and unrotated dims probed through their apply functions), within
//    the float32 angle bound of vision_tower.hpp plus the kernel's rounding; unrotated dims keep
//    their bits.
// 2. Larger grids and videos per rule against a rotation in double by
//    tower_token_angles(Precision::exact): the kernel's bound alone.
// 3. Each pass of each rule (Gemma 4's chunks, MiniMax-M3-VL's bands with the unrotated tail,
//    x-before-y axial, SAM's interleaved axial, Kimi's alternating axes) at positions up to
//    2^31 - 1 against posenc::apply_multi_axis_rope_reference in double.
// 4. CoordinateAngles: each value within the header's A (2^-24 + 2^-52 |c theta|) of the cos and
//    sin of the long double product, at coordinates up to 2^31; refusals by name.
#include <posenc/kernels/coordinate_angles.hpp>
#include <posenc/kernels/on_the_fly_angles.hpp>
#include <posenc/kernels/tower_rope.hpp>
#include <posenc/models/hf_vision_tower.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/vision_tower.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace towers_tower_kernel_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace k = posenc::kernels;
using posenc::bfloat16;

constexpr int q_heads = 2, k_heads = 1;

template <class T>
std::vector<T> random_values(std::size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<T> v(n);
    for (auto& x : v) x = posenc::store_from_float<T>(u(rng));
    return v;
}

/// Allowed error of a rotated value of a pair of norm `norm`: `angle_error` radians of angle plus
/// the kernel's rounding (float: 4 ulp of |x|, taken as 2^-21 |x|; bfloat16: plus half an ulp, 2^-8 |x|).
template <class T>
double tolerance(double norm, double angle_error)
{
    const double storage = std::is_same_v<T, bfloat16> ? std::ldexp(1.0, -8) : 0.0;
    return (angle_error + std::ldexp(1.0, -21) + storage) * norm + 1e-30;
}

/// Checks `out` (tokens x heads x dims) against `in` rotated in double by angles[n][k] on dims
/// pairs[k] (one sign for the direction); dims in no pair must keep their bits.
template <class T>
void check_rotation(const std::vector<T>& in, const std::vector<T>& out, int heads, int dims,
                    const std::vector<std::array<int, 2>>& pairs, const std::vector<std::vector<double>>& angles,
                    double relative_angle_error, double absolute_angle_error)
{
    std::vector<int> paired(static_cast<std::size_t>(dims), 0);
    for (const auto& p : pairs) paired[static_cast<std::size_t>(p[0])] = paired[static_cast<std::size_t>(p[1])] = 1;
    int failures = 0;
    for (std::size_t n = 0; n < angles.size(); ++n)
        for (int h = 0; h < heads; ++h) {
            const std::size_t base =
                (n * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) * static_cast<std::size_t>(dims);
            for (int d = 0; d < dims; ++d)
                if (!paired[static_cast<std::size_t>(d)])
                    failures += std::memcmp(&in[base + static_cast<std::size_t>(d)],
                                            &out[base + static_cast<std::size_t>(d)], sizeof(T)) != 0;
            for (std::size_t j = 0; j < pairs.size(); ++j) {
                const double a = posenc::load_as_float(in[base + static_cast<std::size_t>(pairs[j][0])]);
                const double b = posenc::load_as_float(in[base + static_cast<std::size_t>(pairs[j][1])]);
                const double angle = angles[n][j];
                const double want_a = a * std::cos(angle) - b * std::sin(angle);
                const double want_b = b * std::cos(angle) + a * std::sin(angle);
                const double tol =
                    tolerance<T>(std::hypot(a, b), relative_angle_error * std::abs(angle) + absolute_angle_error);
                const double got_a = posenc::load_as_float(out[base + static_cast<std::size_t>(pairs[j][0])]);
                const double got_b = posenc::load_as_float(out[base + static_cast<std::size_t>(pairs[j][1])]);
                if (std::abs(got_a - want_a) > tol || std::abs(got_b - want_b) > tol) {
                    if (failures < 3)
                        CHECK_MESSAGE(false, "token " << n << " head " << h << " pair " << j << ": " << got_a << ", "
                                                      << got_b << " want " << want_a << ", " << want_b);
                    ++failures;
                }
            }
        }
    CHECK(failures == 0);
}

/// Rotates random Q and K of the plan's tokens with apply_tower_rope (out of place for Q, in
/// place for K) and checks both against the angles.
template <class T>
void check_tower(const posenc::VisionTower& tower, const posenc::PatchGrid& grid,
                 const std::vector<std::array<int, 2>>& pairs, const std::vector<std::vector<double>>& angles,
                 double relative_angle_error, double absolute_angle_error)
{
    const k::TowerRope plan(tower, grid);
    REQUIRE(static_cast<std::size_t>(plan.tokens()) == angles.size());
    std::mt19937 rng(static_cast<unsigned>(angles.size() * 131 + static_cast<std::size_t>(tower.head_dim)));
    const std::ptrdiff_t n = plan.tokens(), h = tower.head_dim;
    const std::vector<T> q_in = random_values<T>(static_cast<std::size_t>(n * q_heads * h), rng);
    const std::vector<T> k_in = random_values<T>(static_cast<std::size_t>(n * k_heads * h), rng);
    std::vector<T> q_out(q_in.size()), k_out = k_in;
    const k::QKViews<T> views = k::QKViews<T>::out_of_place(
        k::HeadsView<const T>(q_in, {n, q_heads, h}), k::HeadsView<T>(q_out, {n, q_heads, h}),
        k::HeadsView<const T>(k_out, {n, k_heads, h}), k::HeadsView<T>(k_out, {n, k_heads, h}));
    k::apply_tower_rope(plan, views);
    check_rotation(q_in, q_out, q_heads, tower.head_dim, pairs, angles, relative_angle_error, absolute_angle_error);
    check_rotation(k_in, k_out, k_heads, tower.head_dim, pairs, angles, relative_angle_error, absolute_angle_error);
}

nlohmann::json load_towers_sweep()
{
    std::ifstream in(std::string(POSENC_TEST_DATA_DIR) + "/transformers_sweep_towers.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

std::vector<std::vector<double>> angles_of(const nlohmann::json& rows)
{
    std::vector<std::vector<double>> out;
    for (const auto& r : rows) out.push_back(r.get<std::vector<double>>());
    return out;
}

/// The dims each angle column rotates: the sweep's own pairs, else posenc's, checked against the
/// partner dims transformers' apply function showed (-1: not rotated).
std::vector<std::array<int, 2>> swept_pairs(const nlohmann::json& t, const posenc::VisionTower& tower)
{
    std::vector<std::array<int, 2>> pairs;
    if (t.contains("pairs")) {
        for (const auto& p : t.at("pairs")) pairs.push_back({p[0].get<int>(), p[1].get<int>()});
        return pairs;
    }
    pairs = posenc::tower_pairs(tower);
    const auto& partner = t.at("probe").at("partner");
    for (const auto& p : pairs) {
        REQUIRE(partner.at(static_cast<std::size_t>(p[0])).get<int>() == p[1]);
        REQUIRE(partner.at(static_cast<std::size_t>(p[1])).get<int>() == p[0]);
    }
    return pairs;
}

}  // namespace

TEST_CASE_TEMPLATE("apply_tower_rope rotates every swept tower's Q and K by transformers' own angles", T, float,
                   bfloat16)
{
    const nlohmann::json data = load_towers_sweep();
    int cases = 0;
    for (const auto& t : data.at("towers")) {
        const std::string type = t.at("model_type");
        CAPTURE(type);
        nlohmann::json config = t.at("config");
        config["model_type"] = type;
        const posenc::VisionTower tower = posenc::hf::vision_tower_from_json(config).tower;
        const auto pairs = swept_pairs(t, tower);
        // transformers' float32 angle against the exact one: 2^-20 |angle| (integer coordinates),
        // 2^-20 2 pi f_j <= 2^-20 2 pi (DINOv3's centres)
        const bool centres = tower.rule == posenc::VisionTowerRule::rows_columns_centres;
        const double relative = std::ldexp(1.0, -20), absolute = centres ? std::ldexp(6.2832, -20) : 0.0;
        for (const auto& c : t.at("cases")) {
            const auto g = c.at("grid_thw");
            CAPTURE(g.dump());
            check_tower<T>(tower, {g[0].get<long>(), g[1].get<long>(), g[2].get<long>()}, pairs,
                           angles_of(c.at("angles")), relative, absolute);
            ++cases;
        }
        if (t.contains("windowed")) {  // SAM 3's windowed layers: coordinates modulo the window, scale 1
            posenc::VisionTower win = tower;
            win.window = t.at("windowed").at("window").get<int>();
            win.scale = 1.0;
            const auto& g = t.at("cases")[0].at("grid_thw");
            check_tower<T>(win, {g[0].get<long>(), g[1].get<long>(), g[2].get<long>()}, pairs,
                           angles_of(t.at("windowed").at("angles")), relative, 0.0);
            ++cases;
        }
    }
    CHECK(cases >= 70);
}

TEST_CASE_TEMPLATE(
    "apply_tower_rope on larger grids and videos: the kernel's bound against tower_token_angles' exact angles", T,
    float, bfloat16)
{
    using R = posenc::VisionTowerRule;
    struct Row {
        R rule;
        int head_dim;
        double theta;
        int merge;
        posenc::PatchGrid grid;
    };
    const Row rows[] = {
        {R::rows_columns_shared, 80, 10000.0, 2, {2, 12, 20}},
        {R::rows_columns_even_odd, 64, 10000.0, 1, {1, 9, 31}},
        {R::columns_rows_chunked, 64, 100.0, 1, {1, 17, 40}},
        {R::columns_rows_alternating, 72, 10000.0, 1, {2, 14, 6}},
        {R::columns_rows_offset_shared, 96, 10000.0, 1, {1, 33, 21}},
        {R::frames_rows_columns_partial, 80, 10000.0, 2, {3, 10, 16}},
        {R::frames_rows_columns_partial, 94, 10000.0, 1, {2, 5, 7}},
        {R::columns_rows_interleaved_scaled, 64, 10000.0, 1, {1, 30, 30}},
        {R::rows_columns_centres, 64, 100.0, 1, {2, 13, 27}},
    };
    for (const Row& r : rows) {
        posenc::VisionTower tower;
        tower.rule = r.rule;
        tower.head_dim = r.head_dim;
        tower.theta = r.theta;
        tower.merge_size = r.merge;
        if (r.rule == R::rows_columns_centres) tower.prefix_tokens = 5;
        const std::string rule_name = posenc::to_string(r.rule);
        CAPTURE(rule_name);
        const posenc::TokenAngles a = posenc::tower_token_angles(tower, r.grid, posenc::Precision::exact);
        check_tower<T>(tower, r.grid, a.pairs, a.tokens, 0.0, std::ldexp(1.0, -23));
        if (r.rule == R::columns_rows_interleaved_scaled) {
            tower.scale = 24.0 / 30.0;  // the global table: real coordinates s x column
            const posenc::TokenAngles g = posenc::tower_token_angles(tower, r.grid, posenc::Precision::exact);
            check_tower<T>(tower, r.grid, g.pairs, g.tokens, 0.0, std::ldexp(1.0, -23));
            tower.scale = 1.0;
            tower.window = 8;  // windowed layers: coordinates modulo 8
            const posenc::TokenAngles w = posenc::tower_token_angles(tower, r.grid, posenc::Precision::exact);
            check_tower<T>(tower, r.grid, w.pairs, w.tokens, 0.0, std::ldexp(1.0, -23));
        }
    }
    posenc::VisionTower llama;  // Llama 4: a fixed 12 x 12 grid, CLS last at angle 0
    llama.rule = R::columns_rows_interleaved_cls;
    llama.head_dim = 88;
    llama.max_side = 12;
    const posenc::TokenAngles a = posenc::tower_token_angles(llama, {3, 12, 12}, posenc::Precision::exact);
    check_tower<T>(llama, {3, 12, 12}, a.pairs, a.tokens, 0.0, std::ldexp(1.0, -23));
}

TEST_CASE_TEMPLATE("each tower pass at positions up to 2^31 - 1 matches apply_multi_axis_rope_reference", T, float,
                   bfloat16)
{
    using R = posenc::VisionTowerRule;
    const std::pair<R, int> rules[] = {{R::columns_rows_chunked, 64},
                                       {R::frames_rows_columns_partial, 80},
                                       {R::columns_rows_interleaved_cls, 88},
                                       {R::columns_rows_offset_shared, 96},
                                       {R::columns_rows_interleaved_scaled, 64},
                                       {R::columns_rows_alternating, 72}};
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::int64_t> large((std::int64_t {1} << 24) - 8, 2147483647);
    for (const auto& [rule, head_dim] : rules) {
        posenc::VisionTower tower;
        tower.rule = rule;
        tower.head_dim = head_dim;
        tower.theta = rule == R::columns_rows_chunked ? 100.0 : 10000.0;
        tower.max_side = rule == R::columns_rows_interleaved_cls ? 1 : 0;
        const std::string rule_name = posenc::to_string(rule);
        CAPTURE(rule_name);
        const k::TowerRope plan(tower, {1, 1, 1});
        const int tokens = 37, axes = plan.num_axes();
        std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens * axes));
        for (std::size_t i = 0; i < positions.size(); ++i)
            positions[i] = i < 3 ? 2147483647 - static_cast<std::int64_t>(i) : large(rng);
        std::vector<T> x = random_values<T>(static_cast<std::size_t>(tokens * head_dim), rng);
        std::vector<double> want(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) want[i] = posenc::load_as_float(x[i]);
        for (std::size_t p = 0; p < plan.passes().size(); ++p) {
            const k::TowerRopePass& pass = plan.passes()[p];
            const k::OnTheFlyAngles angles(pass.table);
            const k::MultiAxisPositions ids = k::MultiAxisPositions::strided(
                positions.data() + pass.first_axis, static_cast<std::ptrdiff_t>(positions.size()) - pass.first_axis,
                tokens, pass.layout.num_axes(), axes, 1);
            k::apply_multi_axis_rope(pass.spec, pass.layout, angles, ids,
                                     k::QKViews<T>::in_place(k::HeadsView<T>(x, {tokens, 1, head_dim})));
            for (int t = 0; t < tokens; ++t) {
                std::vector<std::int64_t> own(positions.begin() + t * axes + pass.first_axis,
                                              positions.begin() + t * axes + pass.first_axis + pass.layout.num_axes());
                posenc::apply_multi_axis_rope_reference(pass.spec, pass.table, pass.layout, want.data() + t * head_dim,
                                                        own);
            }
        }
        int failures = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            // two passes (Gemma 4) round twice: twice the bound
            const double tol = 2.0 * tolerance<T>(std::sqrt(2.0), 0.0);
            failures += std::abs(static_cast<double>(posenc::load_as_float(x[i])) - want[i]) > tol;
        }
        CHECK(failures == 0);
    }
}

TEST_CASE(
    "CoordinateAngles: every value within A (2^-24 + 2^-52 |c theta|) of the long double cos and sin, up to |c| = 2^31")
{
    const posenc::FrequencyTable table({1.0, 0.31, 1e-3, 7.5e-7}, 0.75);
    const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::from_pair_axes({0, 1, 0, 1}, 2);
    std::vector<double> c = {0.0,          -0.0, 2147483648.0, -2147483648.0, 16777216.5,
                             -16777217.25, 0.1,  -1.0 / 3.0,   123456.789,    2147483647.75};
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-2147483648.0, 2147483648.0);
    for (int i = 0; i < 40; ++i) c.push_back(u(rng));
    const k::CoordinateAngles angles(table, layout, c);
    REQUIRE(angles.tokens() == static_cast<std::int64_t>(c.size() / 2));
    CHECK(angles.position_range().last == angles.tokens() - 1);
    for (std::int64_t t = 0; t < angles.tokens(); ++t)
        for (int i = 0; i < 4; ++i) {
            const long double x = static_cast<long double>(c[static_cast<std::size_t>(t * 2 + layout.axis_of_pair(i))]);
            const long double angle = x * static_cast<long double>(table.inv_freq(i));  // exact to 2^-64 relative
            const double bound =
                0.75 * (std::ldexp(1.0, -24) + std::ldexp(1.0, -52) * static_cast<double>(std::fabs(angle)));
            CHECK(std::abs(static_cast<double>(angles.cos_row(t)[i] - 0.75L * std::cos(angle))) <= bound);
            CHECK(std::abs(static_cast<double>(angles.sin_row(t)[i] - 0.75L * std::sin(angle))) <= bound);
        }
}

TEST_CASE("CoordinateAngles and apply_tower_rope refuse what they cannot represent, by name")
{
    const posenc::FrequencyTable table({1.0, 0.5});
    const auto axial = posenc::MultiAxisLayout::axial_2d(2);
    const auto message = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const posenc::error& e) {
            return e.what();
        }
        return "(no error)";
    };
    CHECK(message([&] {
              (void)k::CoordinateAngles(table, axial, {0.0, std::nan("")});
          }).find("coordinates[0][1]") != std::string::npos);
    CHECK(message([&] {
              (void)k::CoordinateAngles(table, axial, {4294967296.0, 0.0});
          }).find("coordinates[0][0]") != std::string::npos);
    CHECK(message([&] {
              (void)k::CoordinateAngles(table, axial, {1.0, 2.0, 3.0});
          }).find("coordinates.size") != std::string::npos);
    CHECK(message([&] { (void)k::CoordinateAngles(table, axial, {}); }).find("coordinates.size") != std::string::npos);
    CHECK(message([&] {
              (void)k::CoordinateAngles(table, posenc::MultiAxisLayout::single(3), {1.0});
          }).find("layout.num_pairs") != std::string::npos);
    const auto split = posenc::MultiAxisLayout::coordinate_sections({1, 1}, 2);
    CHECK(message([&] {
              (void)k::CoordinateAngles(table, split, {1.0, 2.0});
          }).find("splits pairs") != std::string::npos);
    CHECK(message([&] {
              (void)k::CoordinateAngles(posenc::FrequencyTable({1e12, 1.0}), axial, {2e6, 0.0});
          }).find("2^50") != std::string::npos);

    posenc::VisionTower tower;
    tower.head_dim = 8;
    const k::TowerRope plan(tower, {1, 2, 3});
    CHECK(plan.tokens() == 6);
    std::vector<float> q(5 * 8);
    CHECK(message([&] {
              k::apply_tower_rope(plan, k::QKViews<float>::in_place(k::HeadsView<float>(q, {5, 1, 8})));
          }).find("views.tokens") != std::string::npos);
    tower.merge_size = 2;
    CHECK(message([&] { (void)k::TowerRope(tower, {1, 3, 4}); }).find("grid") != std::string::npos);
    tower.head_dim = 10;
    CHECK(message([&] { (void)k::TowerRope(tower, {1, 2, 2}); }).find("head_dim") != std::string::npos);
}

}  // namespace towers_tower_kernel_tests_tests
