// SPDX-License-Identifier: MIT
// The whole-model reader (posenc/models/hf_config.hpp model_from_json) against transformers' own
// rotary code: tests/data/transformers_sweep.json, written by scripts/sweep-transformers.py from
// transformers at commit decba1d2 (5.16.0.dev0) with Debian's torch. For every model_type whose
// modeling code applies RoPE, the script instantiated the configuration class with its class
// defaults, ran the family's rotary embedding module on the language model's config and stored
// the config dict, each table's inv_freq (float32, as the module holds it), attention_scaling
// and width, which table each layer uses and the layers without RoPE. Those values come from
// transformers, not from posenc. tests/data/transformers_sweep_minimal.json (the script's
// --minimal) holds the same facts for hand-written configs: the language model given only its
// model types, then with one or two keys (num_hidden_layers 7, sliding_window_pattern 3,
// hidden_size 768 with 4 heads, rope_theta, partial_rotary_factor, head_dim, a transformers 4
// rope_scaling, a transformers 5 llama3 or yarn rope_parameters, rope_parameters per layer type,
// mrope_interleaved); the rest filled in by the configuration class, so posenc's own class
// defaults, layer patterns and key precedence are what is checked (tables and layer facts; the
// forward's cos/sin are checked on the class-default data).
//
// Each family must either be read and match, or be refused deliberately: a posenc::error that
// names a key, for a model_type posenc knows (a row or a family_refusals entry), never because the
// model_type is unknown. The families not there yet are listed in known_gaps below; a listed
// family that now reads and matches fails the test too, so the list only shrinks. A mismatch is
// always a failure.
//
// Also from transformers: the pairing, read by giving the family's own apply function every unit
// vector (half_split or interleaved); for M-RoPE the position axis each coordinate reads (one
// axis moved at a time through the same function), against posenc's MultiAxisLayout; and cos/sin
// of the module's forward at positions 1, 4095 and one past the original length (M-RoPE groups
// with every axis at the text position; past the original length not for dynamic and longrope,
// whose modules switch tables there).
//
// Tolerances: inv_freq within 4 float32 ulps relative (4 * 2^-23): posenc's Precision::hf_float32
// table follows transformers' float32 operation order, yet at one or two pairs of about 30
// families its value is the float32 neighbour of what Debian's torch 1.13 computes (its float32
// pow rounds differently); attention_scaling within 1e-12 relative (both are doubles from the
// same formula); cos/sin as compare_cos_sin says.
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_families.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace models_transformers_sweep_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using nlohmann::json;

/// Model types posenc does not read correctly yet at transformers decba1d2 with class defaults,
/// by the mechanism they need. Remove a line when its family reads and matches (the test then
/// says so) or is refused by name.
const std::set<std::string>& known_gaps()
{
    static const std::set<std::string> gaps = {};
    return gaps;
}

/// Little-endian float32 values from base64.
std::vector<float> decode_f32(const std::string& text)
{
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::vector<unsigned char> bytes;
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        const int v = value(c);
        if (v < 0) continue;  // '=' padding
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes.push_back(static_cast<unsigned char>((acc >> bits) & 0xFFu));
        }
    }
    std::vector<float> out(bytes.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint32_t u =
            static_cast<std::uint32_t>(bytes[4 * i]) | (static_cast<std::uint32_t>(bytes[4 * i + 1]) << 8) |
            (static_cast<std::uint32_t>(bytes[4 * i + 2]) << 16) | (static_cast<std::uint32_t>(bytes[4 * i + 3]) << 24);
        std::memcpy(&out[i], &u, sizeof(float));
    }
    return out;
}

json read_data(const char* file)
{
    std::ifstream in(std::string(POSENC_TEST_DATA_DIR "/") + file);
    REQUIRE(in.good());
    return json::parse(in);
}

/// The sweep's class-default data (transformers_sweep.json).
const json& sweep_data()
{
    static const json data = read_data("transformers_sweep.json");
    return data;
}

/// The families added to transformers after decba1d2, swept from the transformers 5.25.0 release
/// (`--only ... --out tests/data/transformers_sweep_families.json`).
const json& families_data()
{
    static const json data = read_data("transformers_sweep_families.json");
    return data;
}

/// The same families' hand-written configs (--minimal --only, for the families posenc reads).
const json& families_minimal_data()
{
    static const json data = read_data("transformers_sweep_families_minimal.json");
    return data;
}

/// The sweep's hand-written configs (--minimal: transformers_sweep_minimal.json).
const json& minimal_data()
{
    static const json data = read_data("transformers_sweep_minimal.json");
    return data;
}

enum class Outcome { match, mismatch, refused_by_name, refused_unknown, failed };

const char* outcome_name(Outcome o)
{
    switch (o) {
    case Outcome::match: return "match";
    case Outcome::mismatch: return "mismatch";
    case Outcome::refused_by_name: return "refused by name";
    case Outcome::refused_unknown: return "refused: unknown model_type";
    case Outcome::failed: return "failed";
    }
    return "?";
}

struct Result {
    Outcome outcome = Outcome::failed;
    std::string detail;  ///< the refusal's message, or what differs
};

constexpr double inv_freq_tolerance = 4.0 / 8388608.0;  // 4 float32 ulps relative (4 * 2^-23)
constexpr double attention_tolerance = 1e-12;

double relative(double got, double want)
{
    if (got == want) return 0.0;
    return std::abs(got - want) / std::max(std::abs(want), 1e-300);
}

/// One output of the module's forward as [position][pair] values: the first block of positions
/// of a [..., P, W] tensor, W/2 values per position when the row was cat(h, h) or
/// repeat_interleave(h, 2), W otherwise. Empty when the layout is not per pair.
std::vector<std::vector<double>> per_pair_rows(const json& output, const json& tables, std::size_t positions)
{
    const std::vector<float> v = decode_f32(tables.at(output.at("values").get<std::string>()).get<std::string>());
    const json& shape = output.at("shape");
    std::size_t width = shape.back().get<std::size_t>();
    if (output.at("repeat").get<std::string>() != "none") width /= 2;
    std::vector<std::vector<double>> rows;
    if (shape.size() < 2 || shape.at(shape.size() - 2).get<std::size_t>() != positions || v.size() < positions * width)
        return rows;
    for (std::size_t i = 0; i < positions; ++i)
        rows.emplace_back(v.begin() + static_cast<std::ptrdiff_t>(i * width),
                          v.begin() + static_cast<std::ptrdiff_t>((i + 1) * width));
    return rows;
}

/// cos/sin of the module's forward against posenc's table: at each stored position p and pair
/// i, cos(fl(fl(p) * inv_freq_i)) * attention_factor with the float32 angle transformers forms
/// (the table is posenc's Precision::hf_float32 one), within (1e-6 + |angle| * 4 * 2^-23) times
/// the attention factor: float32 cos/sin of one float32 angle differ by about 1e-7, and the
/// inv_freq tolerance moves the angle by up to |angle| * 4 * 2^-23. Where the rope type is
/// dynamic or longrope (`switching`), only the positions up to the original length are compared:
/// past it the module switches tables in forward, which posenc states per group instead. "" when
/// they agree or nothing is comparable.
std::string compare_cos_sin(const posenc::RopeGroup& p, const json& t, const json& tables, bool switching)
{
    if (!t.contains("position_ids")) return "";
    const json& outputs = t.contains("text_outputs") ? t.at("text_outputs") : t.at("outputs");
    json ids = t.at("position_ids");
    while (ids.is_array() && ids.at(0).is_array()) ids = ids.at(0);  // the first row: the text positions
    const std::size_t positions = ids.size();
    std::vector<std::vector<double>> cos, sin;
    if (outputs.size() == 1 && outputs.at(0).value("complex", false)) {
        cos = per_pair_rows(outputs.at(0).at("real"), tables, positions);
        sin = per_pair_rows(outputs.at(0).at("imag"), tables, positions);
    } else if (outputs.size() >= 2) {
        cos = per_pair_rows(outputs.at(0), tables, positions);
        sin = per_pair_rows(outputs.at(1), tables, positions);
    }
    const posenc::FrequencyTable table = p.table(posenc::Precision::hf_float32);
    if (cos.empty() || sin.empty() || cos.at(0).size() != static_cast<std::size_t>(table.num_pairs())) return "";
    const double factor = static_cast<double>(static_cast<float>(p.attention_factor));
    std::ostringstream diff;
    for (std::size_t k = 0; k < positions; ++k) {
        const std::int64_t position = ids.at(k).get<std::int64_t>();
        if (switching && p.original_length > 0 && position > p.original_length) continue;
        for (int i = 0; i < table.num_pairs(); ++i) {
            const float angle = static_cast<float>(table.inv_freq(i)) * static_cast<float>(position);
            const double c = std::cos(static_cast<double>(angle)) * factor;
            const double s = std::sin(static_cast<double>(angle)) * factor;
            const double got_c = cos[k][static_cast<std::size_t>(i)];
            const double got_s = sin[k][static_cast<std::size_t>(i)];
            // float32 cos/sin of one float32 angle, plus what inv_freq's own tolerance moves the angle
            const double tolerance =
                (1e-6 + std::abs(static_cast<double>(angle)) * inv_freq_tolerance) * std::max(1.0, factor);
            if (std::abs(c - got_c) > tolerance || std::abs(s - got_s) > tolerance) {
                diff << "cos/sin at position " << position << " pair " << i << ": posenc (" << c << ", " << s
                     << "), transformers (" << got_c << ", " << got_s << "); ";
                return diff.str();
            }
        }
    }
    return diff.str();
}

/// The position axis each pair reads (M-RoPE): transformers' coordinate_axes (the script moved
/// one axis at a time through the family's own apply function) against posenc's MultiAxisLayout,
/// both coordinates of every rotated pair (axis 0 for all when posenc has no layout).
std::string compare_axes(const std::optional<posenc::MultiAxisLayout>& layout, const posenc::RopeGroup& p,
                         const json& t)
{
    if (!t.contains("coordinate_axes")) return "";
    const json& reads = t.at("coordinate_axes");
    std::ostringstream diff;
    for (int i = 0; i < p.spec.num_pairs(); ++i) {
        const posenc::PairCoordinates c = p.spec.pair_coordinates(i);
        const std::size_t c1 = static_cast<std::size_t>(c.first - p.spec.rotary_offset());
        const std::size_t c2 = static_cast<std::size_t>(c.second - p.spec.rotary_offset());
        if (c1 >= reads.size() || c2 >= reads.size()) return "coordinate_axes shorter than the rotary width; ";
        const int want1 = reads.at(c1).get<int>();
        const int want2 = reads.at(c2).get<int>();
        if (want1 == -1 && want2 == -1) continue;  // frequency 0: no axis moves it
        const int got1 = layout ? layout->axis_of_pair(i) : 0;
        const int got2 = layout ? layout->partner_axis_of_pair(i) : 0;
        if (got1 != want1 || got2 != want2) {
            diff << "pair " << i << " reads axes (" << got1 << ", " << got2 << ") (transformers (" << want1 << ", "
                 << want2 << ")); ";
            break;
        }
    }
    return diff.str();
}

/// What differs between posenc's group `p` and transformers' table `t` ("" when they agree).
std::string compare_group(const posenc::RopeGroup& p, const json& t, const json& tables, bool switching)
{
    std::ostringstream diff;
    std::vector<float> want = decode_f32(tables.at(t.at("inv_freq").get<std::string>()).get<std::string>());
    if (t.contains("inv_freq_shape") && t.at("inv_freq_shape").size() == 2) {
        // [axes][pairs], each pair non-zero on the axis it reads (Cosmos3-Edge): the pair's frequency
        const std::size_t pairs = t.at("inv_freq_shape").at(1).get<std::size_t>();
        std::vector<float> folded(pairs, 0.0f);
        for (std::size_t k = 0; k < want.size(); ++k) folded[k % pairs] = std::max(folded[k % pairs], want[k]);
        want = std::move(folded);
    }
    if (t.contains("pair_order")) {
        // The module keeps its buffer permuted and reorders in forward (ERNIE-4.5-VL): pair j
        // rotates at buffer[pair_order[j]], as the script read from the forward's cos/sin.
        std::vector<float> applied;
        for (const json& i : t.at("pair_order")) applied.push_back(want.at(i.get<std::size_t>()));
        want = std::move(applied);
    }
    const posenc::FrequencyTable table = p.table(posenc::Precision::hf_float32);
    int rotary_dim = t.at("rotary_dim").get<int>();
    if (want.size() == 3 * static_cast<std::size_t>(table.num_pairs())) {
        // The module holds one masked row of frequencies per position axis (Cosmos3 Edge: 3 x R/2, each pair's
        // frequency in the row of the axis it reads, 0 in the others): pair i's frequency is the column's sum.
        const std::size_t pairs = want.size() / 3;
        std::vector<float> merged(pairs);
        for (std::size_t i = 0; i < pairs; ++i) merged[i] = want[i] + want[pairs + i] + want[2 * pairs + i];
        want = std::move(merged);
        rotary_dim /= 3;
    }
    if (p.spec.rotary_dim() != rotary_dim)
        diff << "rotary width " << p.spec.rotary_dim() << " (transformers " << rotary_dim << "); ";
    if (table.num_pairs() != static_cast<int>(want.size())) {
        diff << "pairs " << table.num_pairs() << " (transformers " << want.size() << "); ";
    } else {
        double worst = 0.0;
        int at = 0;
        for (int i = 0; i < table.num_pairs(); ++i) {
            const double r = relative(table.inv_freq(i), static_cast<double>(want[static_cast<std::size_t>(i)]));
            if (r > worst) worst = r, at = i;
        }
        if (worst > inv_freq_tolerance)
            diff << "inv_freq[" << at << "] " << table.inv_freq(at) << " (transformers "
                 << static_cast<double>(want[static_cast<std::size_t>(at)]) << ", relative " << worst << "); ";
    }
    if (t.contains("pairing")) {
        const std::string want_pairing = t.at("pairing").get<std::string>();
        const std::string got = p.spec.pairing() == posenc::Pairing::half_split ? "half_split" : "interleaved";
        if (want_pairing != got) diff << "pairing " << got << " (transformers " << want_pairing << "); ";
    }
    diff << compare_cos_sin(p, t, tables, switching);
    if (!t.at("attention_scaling").is_null()) {
        const double a = t.at("attention_scaling").get<double>();
        if (relative(p.attention_factor, a) > attention_tolerance)
            diff << "attention factor " << p.attention_factor << " (transformers " << a << "); ";
    }
    return diff.str();
}

/// The language model's config inside a stored config.
const json& text_config_of(const json& family)
{
    const json* c = &family.at("config");
    std::stringstream parts(family.value("text_config_path", std::string()));
    std::string part;
    while (std::getline(parts, part, '.'))
        if (c->contains(part)) c = &c->at(part);
    return *c;
}

/// Whether the config gives table `group` a rope type whose module switches tables in forward
/// past the original length (dynamic, longrope).
bool switches_tables(const json& family, const std::string& group)
{
    const json& text = text_config_of(family);
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        if (!text.contains(key) || !text.at(key).is_object()) continue;
        const json* d = &text.at(key);
        if (d->contains(group) && d->at(group).is_object()) d = &d->at(group);
        for (const char* type_key : {"rope_type", "type"}) {
            if (!d->contains(type_key) || !d->at(type_key).is_string()) continue;
            const std::string type = d->at(type_key).get<std::string>();
            if (type == "dynamic" || type == "longrope") return true;
        }
    }
    return false;
}

/// Reads family["config"] with posenc and compares it with transformers' facts (`tables`: the data
/// file's float32 arrays by name).
Result check_family(const json& family, const json& tables)
{
    const std::string model_type = family.at("model_type").get<std::string>();
    Result r;
    std::optional<posenc::hf::HfModel> model;
    try {
        model = posenc::hf::model_from_json(family.at("config"));
    } catch (const posenc::error& e) {
        r.detail = e.what();
        const std::string text_type = text_config_of(family).value("model_type", model_type);
        const bool known = posenc::hf::find_family(model_type) || posenc::hf::find_refusal(model_type) ||
                           posenc::hf::find_family(text_type) || posenc::hf::find_refusal(text_type);
        const bool unknown_message = r.detail.find("model type posenc knows") != std::string::npos ||
                                     r.detail.find("model types posenc knows") != std::string::npos;
        r.outcome =
            (!known || unknown_message || e.field().empty()) ? Outcome::refused_unknown : Outcome::refused_by_name;
        return r;
    } catch (const std::exception& e) {
        r.detail = std::string("not a posenc::error: ") + e.what();
        return r;
    }

    const posenc::ModelRope& rope = model->rope;
    const json& groups = family.at("groups");
    std::ostringstream diff;
    const int layers =
        family.at("num_hidden_layers").is_number_integer() ? family.at("num_hidden_layers").get<int>() : 0;
    std::set<int> nope;
    for (const json& i : family.at("nope_layers")) nope.insert(i.get<int>());
    std::set<std::pair<int, int>> compared;  // (transformers group, posenc group)
    if (layers > 0) {
        if (rope.num_layers() != layers)
            diff << "layers " << (rope.num_layers() ? std::to_string(*rope.num_layers()) : std::string("unknown"))
                 << " (transformers " << layers << "); ";
        const int n = std::min(layers, rope.num_layers().value_or(0));
        std::vector<int> nope_diff;
        for (int layer = 0; layer < n; ++layer) {
            int t = nope.count(layer) ? -1 : 0;
            if (family.contains("layer_group"))
                t = family.at("layer_group").at(static_cast<std::size_t>(layer)).get<int>();
            const std::optional<int> p = rope.group_index_of_layer(layer);
            if (t == -2) continue;  // transformers builds no table for this layer's type
            if ((t == -1) != !p.has_value()) {
                nope_diff.push_back(layer);
                continue;
            }
            if (p) compared.insert({t, *p});
        }
        if (!nope_diff.empty()) {
            diff << "RoPE on/off differs at layers";
            for (std::size_t i = 0; i < nope_diff.size() && i < 8; ++i) diff << ' ' << nope_diff[i];
            diff << (nope_diff.size() > 8 ? " ..." : "") << " (transformers NoPE:";
            for (int i : nope) diff << ' ' << i;
            diff << "); ";
        }
    } else {
        compared.insert({0, 0});
    }
    for (const auto& [t, p] : compared) {
        const posenc::RopeGroup& group = rope.groups()[static_cast<std::size_t>(p)];
        const json& want = groups.at(static_cast<std::size_t>(t));
        const std::string d =
            compare_group(group, want, tables, switches_tables(family, want.at("name").get<std::string>())) +
            compare_axes(rope.multi_axis(), group, want);
        if (!d.empty())
            diff << "group " << rope.groups()[static_cast<std::size_t>(p)].name << " vs transformers "
                 << groups.at(static_cast<std::size_t>(t)).at("name").get<std::string>() << ": " << d;
    }
    r.detail = diff.str();
    r.outcome = r.detail.empty() ? Outcome::match : Outcome::mismatch;
    return r;
}

}  // namespace

TEST_CASE("transformers decba1d2 class defaults: every RoPE family is read and matches, or is refused by name")
{
    const json& data = sweep_data();
    REQUIRE(data.at("families").size() > 100);
    std::set<std::string> swept;
    for (const json& family : data.at("families"))
        if (family.at("kind").get<std::string>() == "text") swept.insert(family.at("model_type").get<std::string>());
    for (const std::string& gap : known_gaps()) {
        INFO(gap);
        CHECK_MESSAGE(swept.count(gap) == 1, "known_gaps names a model type the sweep has no language model for");
    }
    int matched = 0;
    int refused = 0;
    int text_families = 0;
    for (const json& family : data.at("families")) {
        if (family.at("kind").get<std::string>() != "text") continue;
        ++text_families;
        const std::string model_type = family.at("model_type").get<std::string>();
        const Result r = check_family(family, data.at("tables"));
        const bool gap = known_gaps().count(model_type) > 0;
        INFO(model_type << ": " << std::string(outcome_name(r.outcome)) << ": " << r.detail);
        if (r.outcome == Outcome::match) ++matched;
        if (r.outcome == Outcome::refused_by_name && !gap) ++refused;
        if (gap) {
            CHECK_MESSAGE(r.outcome != Outcome::match, "listed in known_gaps but reads and matches now: remove it");
            CHECK((r.outcome == Outcome::refused_unknown ||
                   r.outcome == Outcome::refused_by_name));  // a mismatch fails too
        } else {
            CHECK((r.outcome == Outcome::match || r.outcome == Outcome::refused_by_name));
        }
    }
    MESSAGE(matched << " of " << text_families << " language-model families read and match transformers; " << refused
                    << " refused by name; " << known_gaps().size() << " listed gaps");
}

TEST_CASE("transformers decba1d2 hand-written configs: read from the model types and a few keys, every family matches "
          "or is refused by name")
{
    // scripts/sweep-transformers.py --minimal: each language model's config given as its model types
    // only ("min"), then with one or two keys ("min+layers7", "min+pattern3", "min+hidden",
    // "min+theta", "min+prf", "min+head_dim", "min+linear_v4", "min+yarn_v4", "min+dynamic_v4",
    // "min+llama3_v5"; the script's MINIMAL_VARIANTS); transformers' configuration class filled in the
    // rest (class defaults, layer types from its pattern, a wrapper's text defaults, the keys it reads)
    // before its rotary module ran. posenc must derive the same from the same few keys.
    const json& data = minimal_data();
    REQUIRE(data.at("families").size() > 1000);
    int matched = 0;
    int text_families = 0;
    for (const json& family : data.at("families")) {
        if (family.at("kind").get<std::string>() != "text") continue;
        ++text_families;
        const Result r = check_family(family, data.at("tables"));
        INFO(family.at("model_type").get<std::string>()
             << ": " << std::string(outcome_name(r.outcome)) << ": " << r.detail);
        CHECK((r.outcome == Outcome::match || r.outcome == Outcome::refused_by_name));
        if (r.outcome == Outcome::match) ++matched;
    }
    CHECK(matched > 1000);
    MESSAGE(matched << " of " << text_families << " hand-written configs read and match transformers");
}

TEST_CASE(
    "transformers 5.25.0 class defaults: the families added after decba1d2 are read and match, or are refused by name")
{
    // What each new family must do: read and match what its transformers 5.25.0 code computed (the
    // sweep's tables, layer maps and cos/sin), or be refused with an error naming a key.
    const std::map<std::string, Outcome> expected = {
        {"gte", Outcome::match},  // Llama's rotary, base 160000
        {"hy_v4", Outcome::match},  // MLA, interleaved on qk_rope_head_dim
        {"hy_v4_vl", Outcome::match},  // its text model: the same
        {"kolibri1", Outcome::match},  // EXAONE 4's rule: full_attention layers NoPE
        {"apertus1p5", Outcome::match},  // its text model: Llama's rotary, llama3 x8 at 12e6
        {"minicpm5_moe", Outcome::match},
        {"molmo2", Outcome::match},  // its text model
        {"granite_docling", Outcome::match},  // its text model
        {"esmc", Outcome::match},
        {"flint", Outcome::match},  // only sliding_attention layers rotate
        {"muse_spark", Outcome::match},  // its text model: layer_rope_theta 0 = NoPE
        {"llava_onevision1_5", Outcome::match},  // text_config is a qwen3 config
        {"ovis2_5", Outcome::match},  // text_config is a qwen3 config
        {"qwen4_exp", Outcome::match},  // its text model: interleaved M-RoPE, the rest temporal
        {"embedding_gemma2", Outcome::refused_by_name},  // per_layer_config head_dim
        {"neomme", Outcome::refused_by_name},  // two-axis RoPE per layer type
        {"bailing_hybrid", Outcome::match},  // MLA on full_attention layers, linear_attention NoPE
        {"kolibri1_1", Outcome::refused_by_name},  // shared keys with unrotated queries
        {"beam", Outcome::refused_by_name},  // a power-law query scale on its NoPE layers
        {"mistral_large4", Outcome::refused_by_name},  // learned per-head logarithmic query scale
        {"ergo", Outcome::match},  // interleaved, sliding_attention layers only
        {"lara_mini", Outcome::match},  // sliding_attention layers only
        {"pocket_tts", Outcome::match},  // Llama's rotary in the TTS backbone
        {"gradium_phonon_tts", Outcome::match},  // the same
        {"unlimited_ocr", Outcome::match},  // its text model: head_dim = hidden_size / heads
        {"dory", Outcome::match},  // one table per layer type, class-default dicts
        {"ultrabert", Outcome::match},  // the same
        {"lfm3", Outcome::match},  // conv layers NoPE, proportional RoPE on full_attention
        {"lfm3_vl", Outcome::match},  // its text model: lfm3
    };
    const json& data = families_data();
    std::set<std::string> swept;
    int towers = 0;
    for (const json& family : data.at("families")) {
        const std::string model_type = family.at("model_type").get<std::string>();
        INFO(model_type);
        if (family.at("kind").get<std::string>() == "not_language") {
            // the new vision and audio towers: refused as such, naming model_type
            ++towers;
            try {
                (void)posenc::hf::model_from_json(
                    json {{"model_type", model_type}, {"hidden_size", 1024}, {"num_attention_heads", 16}});
                FAIL("read as a language model");
            } catch (const posenc::error& e) {
                CHECK(e.field() == "model_type");
                CHECK(std::string(e.what()).find("expected a language model's config") != std::string::npos);
            }
            continue;
        }
        swept.insert(model_type);
        REQUIRE(family.at("kind").get<std::string>() == "text");
        REQUIRE(expected.count(model_type) == 1);
        const Result r = check_family(family, data.at("tables"));
        INFO(std::string(outcome_name(r.outcome)) << ": " << r.detail);
        CHECK(r.outcome == expected.at(model_type));
    }
    CHECK(swept.size() == expected.size());
    CHECK(towers == 31);  // 30, and pi05 (a vision-language-action policy)
    // GLM-5-Next's language model builds no rotary module (the sweep records it as a failure), and
    // Kimi Linear's modeling code applies none (the sweep does not list it): both are refused as
    // having no RoPE, naming model_type.
    // Inkling 2's language model has no rotary module either, and Nemotron 3.5 Transcribe's (nemo_speechlm)
    // is a NemotronH config without rope_parameters (the sweep records both as failures).
    std::set<std::string> failed;
    for (const json& f : data.at("failures")) failed.insert(f.at("model_type").get<std::string>());
    CHECK(failed == std::set<std::string> {"glm5_next", "inkling2", "nemo_speechlm"});
    const json sizes = {{"hidden_size", 1024}, {"num_attention_heads", 16}};
    for (const json& config :
         {json {{"model_type", "glm5_next"}, {"text_config", sizes}},
          json {{"model_type", "kimi_linear"}, {"hidden_size", 1024}, {"num_attention_heads", 16}},
          json {{"model_type", "inkling2"}, {"text_config", sizes}},
          json {{"model_type", "nemo_speechlm"}, {"text_config", sizes}},
          json {{"model_type", "nemo_speechlm"}, {"text_config", {{"model_type", "nemotron_h"}}}}}) {
        INFO(config.dump());
        try {
            (void)posenc::hf::model_from_json(config);
            FAIL("read");
        } catch (const posenc::error& e) {
            CHECK(std::string(e.field()).find("model_type") !=
                  std::string::npos);  // text_config.model_type for GLM-5-Next
            INFO(e.what());
            CHECK(std::string(e.what()).find("has no RoPE") != std::string::npos);
        }
    }
    // Nemotron 3.5 Transcribe's word-timestamp head (a sub-config of nemo_speechlm, which the sweep would take for
    // a language model): a 2-layer transformer over audio frames, refused as an audio tower.
    try {
        (void)posenc::hf::model_from_json(
            json {{"model_type", "nemotron3_5_transcribe_word_timestamp"}, {"hidden_size", 1280}});
        FAIL("read");
    } catch (const posenc::error& e) {
        CHECK(e.field() == "model_type");
        CHECK(std::string(e.what()).find("expected a language model's config") != std::string::npos);
    }
    // dots.3 Note (the sweep takes its outer config for a tower's): refused naming per_layer_config, its text
    // model nested or at the top level as the released checkpoints store it.
    for (const json& config :
         {json {{"model_type", "dots3_note"}, {"text_config", {{"hidden_size", 5120}}}},
          json {{"model_type", "dots3_note"}, {"hidden_size", 5120}, {"per_layer_config", json::object()}}}) {
        INFO(config.dump());
        try {
            (void)posenc::hf::model_from_json(config);
            FAIL("read");
        } catch (const posenc::error& e) {
            CHECK(std::string(e.what()).find("per_layer_config") != std::string::npos);
            CHECK(std::string(e.what()).find("dots3_note/configuration_dots3_note.py") != std::string::npos);
        }
    }
    // Families on unmerged transformers branches only (no folder in the 5.25.0 release): refused as unreleased.
    for (const char* type : {"deepseek_v41", "k2_horizon"}) {
        INFO(type);
        try {
            (void)posenc::hf::model_from_json(
                json {{"model_type", type}, {"hidden_size", 1024}, {"num_attention_heads", 16}});
            FAIL("read");
        } catch (const posenc::error& e) {
            CHECK(e.field() == "model_type");
            CHECK(std::string(e.what()).find("is not defined in a transformers release") != std::string::npos);
        }
    }
    // The legacy {"type": "ntk", "factor": f} of GTE's original checkpoints: transformers 5.25.0's
    // GteConfig has no rewrite for it (gte/configuration_gte.py declares default_theta 160000 and no
    // convert_rope_params_to_dict; the wheel has no "ntk" anywhere), keeps rope_type "ntk", and
    // GteRotaryEmbedding fails looking it up (KeyError 'ntk', run in the sweep's environment). A
    // rewrite to linear with factor f^(2/H) and base times f exists only on transformers branches
    // after the release; posenc follows the release and refuses the rope type by name.
    try {
        (void)posenc::hf::model_from_json(
            json {{"model_type", "gte"}, {"rope_scaling", {{"type", "ntk"}, {"factor", 2.0}}}});
        FAIL("read");
    } catch (const posenc::error& e) {
        INFO(e.what());
        CHECK(std::string(e.field()).find("rope_scaling") != std::string::npos);
    }
}

TEST_CASE("transformers 5.25.0 hand-written configs of the families added after decba1d2: every one matches or is "
          "refused by name")
{
    // The --minimal variants for the families above that posenc reads: their class defaults (hand-added to
    // hf_class_defaults.hpp from the 5.25.0 configuration files) and layer patterns must give what the
    // configuration classes fill in.
    const json& data = families_minimal_data();
    int matched = 0;
    for (const json& family : data.at("families")) {
        if (family.at("kind").get<std::string>() != "text") continue;
        const Result r = check_family(family, data.at("tables"));
        INFO(family.at("model_type").get<std::string>()
             << ": " << std::string(outcome_name(r.outcome)) << ": " << r.detail);
        CHECK((r.outcome == Outcome::match || r.outcome == Outcome::refused_by_name));
        if (r.outcome == Outcome::match) ++matched;
    }
    CHECK(matched >= 100);
    MESSAGE(matched << " of " << data.at("families").size()
                    << " hand-written configs of the new families read and match transformers 5.25.0");
}

TEST_CASE("transformers decba1d2 class defaults: every non-language model_type with RoPE is refused as such, naming "
          "model_type")
{
    // Vision towers, audio encoders, codecs and the rest that the sweep found applying RoPE outside a
    // language model: each is refused with an error that names model_type and says what it is.
    int towers = 0;
    for (const json& family : sweep_data().at("families")) {
        if (family.at("kind").get<std::string>() != "not_language") continue;
        ++towers;
        const std::string model_type = family.at("model_type").get<std::string>();
        INFO(model_type);
        try {
            // the sweep stores no config for these: the model_type is what identifies them
            (void)posenc::hf::model_from_json(
                json {{"model_type", model_type}, {"hidden_size", 1024}, {"num_attention_heads", 16}});
            FAIL("read as a language model");
        } catch (const posenc::error& e) {
            CHECK(e.field() == "model_type");
            CHECK(std::string(e.what()).find("expected a language model's config") != std::string::npos);
        }
    }
    CHECK(towers > 50);
}

}  // namespace models_transformers_sweep_tests
