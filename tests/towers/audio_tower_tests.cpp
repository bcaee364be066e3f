// SPDX-License-Identifier: MIT
// Audio towers' RoPE (posenc/models/hf_audio_tower.hpp) against transformers' own code:
// tests/data/transformers_sweep_audio_towers.json holds, for mimi, glmasr_encoder, lasr_encoder
// and pe_audio_encoder, each built from its class defaults and from a few keys a config.json sets
// (scripts/sweep_audio_towers.py), the rotary module's inv_freq and its cos/sin at a few frame
// positions, the attention's head width, and the head dims each frequency rotates, probed through
// the modeling file's own apply_rotary_pos_emb.
#include <posenc/angles.hpp>
#include <posenc/models/hf_audio_tower.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

namespace {

nlohmann::json load_audio_towers_sweep(const char* file = "transformers_sweep_audio_towers.json")
{
    std::ifstream in(std::string(POSENC_TEST_DATA_DIR) + "/" + file);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

std::string audio_error_of(const std::string& text)
{
    try {
        (void)posenc::hf::parse_audio_tower(text);
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(no error)";
}

/// The pair of head dims frequency j rotates under `pairing` (rotary slice at the head's start).
std::pair<int, int> audio_pair_dims(posenc::Pairing pairing, int j, int rotary)
{
    return pairing == posenc::Pairing::interleaved ? std::pair<int, int> {2 * j, 2 * j + 1}
                                                   : std::pair<int, int> {j, j + rotary / 2};
}

/// The tower read from `config` matches the sweep case `c`: head, rotated width, pairs, inv_freq
/// (transformers' float32 pow of a float32 exponent: within (2 + ln theta) x 2^-24 relative of
/// posenc's double), cos and sin at each position (the float32 angle carries that error and its own
/// rounding: |error| <= position x inv_freq x (3 + ln theta) x 2^-24 + 2^-22).
void check_audio_case(const posenc::hf::HfAudioTower& read, const nlohmann::json& c)
{
    const posenc::RopeSpec& spec = read.group().spec;
    const auto& want_inv = c.at("inv_freq");
    CHECK(read.head_dim == c.at("head_dim").get<int>());
    CHECK(spec.head_dim() == c.at("head_dim").get<int>());
    REQUIRE(spec.num_pairs() == static_cast<int>(want_inv.size()));
    CHECK(c.at("table_is_cat").get<bool>());
    CHECK(c.at("attention_scaling").get<double>() == 1.0);
    CHECK(read.group().attention_factor == 1.0);
    const posenc::FrequencyTable table = read.group().table();
    const double rel = (2.0 + std::log(spec.base())) * 0x1p-24;
    for (int j = 0; j < spec.num_pairs(); ++j) {
        const double want = want_inv[static_cast<std::size_t>(j)].get<double>();
        CHECK(std::abs(table.inv_freq(j) - want) <= want * rel);
        const auto& moved = c.at("pairs")[static_cast<std::size_t>(j)];
        REQUIRE(moved.size() == 2);
        const auto dims = audio_pair_dims(spec.pairing(), j, spec.rotary_dim());
        CHECK(moved[0].get<int>() == dims.first);
        CHECK(moved[1].get<int>() == dims.second);
    }
    const auto& positions = c.at("positions");
    for (std::size_t p = 0; p < positions.size(); ++p) {
        const std::int64_t m = positions[p].get<std::int64_t>();
        for (int j = 0; j < spec.num_pairs(); ++j) {
            const double angle = posenc::reduced_angle(m, table.inv_freq(j));
            const double bound = static_cast<double>(m) * table.inv_freq(j) * (rel + 0x1p-24) + 0x1p-22;
            CHECK(std::abs(std::cos(angle) - c.at("cos")[p][static_cast<std::size_t>(j)].get<double>()) <= bound);
            CHECK(std::abs(std::sin(angle) - c.at("sin")[p][static_cast<std::size_t>(j)].get<double>()) <= bound);
        }
    }
}

}  // namespace

TEST_CASE("audio sweep: each tower's full config.json and its few written keys give transformers' table and pairs")
{
    int cases = 0;
    // decba1d2's towers, then transformers 5.25.0's (dots3_note, nemotron3_5_transcribe,
    // nemotron3_diarization, pocket_tts_audio_tokenizer)
    for (const char* file : {"transformers_sweep_audio_towers.json", "transformers_sweep_audio_towers_5_25.json"}) {
        const nlohmann::json data = load_audio_towers_sweep(file);
        REQUIRE(data.at("cases").size() >= 32);
        for (const auto& c : data.at("cases")) {
            const std::string type = c.at("model_type");
            CAPTURE(type);
            CAPTURE(c.at("keys").dump());
            nlohmann::json full = c.at("config");
            full["model_type"] = type;
            const posenc::hf::HfAudioTower from_full = posenc::hf::audio_tower_from_json(full);
            CHECK(from_full.model_type == type);
            CHECK(from_full.key_prefix.empty());
            if (c.at("keys").is_null()) CHECK(from_full.warnings.empty());  // class defaults: nothing ignored
            check_audio_case(from_full, c);
            nlohmann::json written = c.at("keys").is_null() ? nlohmann::json::object() : c.at("keys");
            written["model_type"] = type;
            check_audio_case(posenc::hf::audio_tower_from_json(written), c);
            if (c.contains("wrapper")) {  // the class-default tower nested in its wrapper's config
                const auto& w = c.at("wrapper");
                const posenc::hf::HfAudioTower nested = posenc::hf::audio_tower_from_json(w.at("config"));
                CHECK(nested.model_type == type);
                CHECK(nested.key_prefix == w.at("key").get<std::string>() + ".");
                check_audio_case(nested, c);
                const posenc::hf::HfAudioTower bare =
                    posenc::hf::audio_tower_from_json(nlohmann::json {{"model_type", w.at("model_type")}});
                CHECK(bare.model_type == type);
                check_audio_case(bare, c);
            }
            ++cases;
        }
    }
    CHECK(cases >= 64);
}

TEST_CASE("the audio towers' rules: positions, pairing, partial rotation and the keys transformers ignores")
{
    const auto mimi = posenc::hf::parse_audio_tower(R"({"model_type": "mimi"})");
    CHECK(mimi.positions == posenc::hf::AudioPositions::frames_from_cache_offset);
    CHECK(std::string(posenc::hf::to_string(mimi.positions)) == "frames_from_cache_offset");
    CHECK(mimi.group().max_position_embeddings == 8000);
    CHECK(mimi.rope.num_layers() == std::nullopt);
    const auto glm = posenc::hf::parse_audio_tower(R"({"model_type": "glmasr", "audio_config": {"head_dim": 128}})");
    CHECK(glm.positions == posenc::hf::AudioPositions::frames_from_zero);
    CHECK(glm.group().spec.rotary_dim() == 64);  // the class's partial_rotary_factor 0.5
    CHECK(glm.group().spec.pass_through_dim() == 64);
    const auto pe = posenc::hf::parse_audio_tower(R"({"model_type": "pe_audio_encoder", "rope_theta": 500})");
    CHECK(pe.group().spec.base() == 20000.0);
    CHECK(pe.group().spec.pairing() == posenc::Pairing::interleaved);
    REQUIRE(pe.warnings.size() == 1);
    CHECK(pe.warnings[0].key == "rope_theta");
    CHECK(pe.warnings[0].message == "500 is ignored: without rope_parameters pe_audio_encoder's class sets theta 20000 "
                                    "(at transformers decba1d2; 5.25.0 reads it)");
    const auto pe_no_theta = posenc::hf::parse_audio_tower(
        R"({"model_type": "pe_audio_encoder", "rope_parameters": {"rope_type": "default"}})");
    CHECK(pe_no_theta.group().spec.base() == 10000.0);
    REQUIRE(pe_no_theta.warnings.size() == 1);
    CHECK(pe_no_theta.warnings[0].key == "rope_parameters");
    const auto lasr = posenc::hf::parse_audio_tower(R"({"model_type": "lasr_encoder", "partial_rotary_factor": 0.25})");
    CHECK(lasr.group().spec.rotary_dim() == 64);
    REQUIRE(lasr.warnings.size() == 1);
    CHECK(lasr.warnings[0].message == "0.25 is ignored: lasr_encoder's rotary module rotates the whole head");
    const auto dots = posenc::hf::parse_audio_tower(R"({"model_type": "dots3_note_audio_encoder", "head_dim": 32})");
    CHECK(dots.head_dim == 64);
    REQUIRE(dots.warnings.size() == 1);
    CHECK(dots.warnings[0].message ==
          "32 is ignored: dots3_note_audio_encoder's class sets head_dim = hidden_size / num_attention_heads = 64");
    const auto asr = posenc::hf::parse_audio_tower(
        R"({"model_type": "nemotron3_5_transcribe_asr_audio", "partial_rotary_factor": 0.25})");
    CHECK(asr.group().spec.rotary_dim() == 64);
    REQUIRE(asr.warnings.size() == 1);
    CHECK(asr.warnings[0].key == "partial_rotary_factor");
    const auto tts = posenc::hf::parse_audio_tower(R"({"model_type": "pocket_tts_audio_tokenizer"})");
    CHECK(tts.positions == posenc::hf::AudioPositions::frames_from_cache_offset);
}

TEST_CASE("the tower's double inv_freq keeps the angle within 2^-20 rad of theta^(-2i/d) x m up to m = 2^31 - 1")
{
    // posenc's inv_freq is std::pow in double (relative error < (1 + |ln theta|) 2^-52, frequencies.hpp);
    // against a long double reference the angle m x inv_freq at m = 2^24 and 2^31 - 1 stays within
    // m x 12 x 2^-52 < 2^-18 x 2^-2 of the exact one, reduced_angle adding < 4e-15 rad.
    const auto pe = posenc::hf::parse_audio_tower(R"({"model_type": "pe_audio"})");
    const posenc::FrequencyTable table = pe.group().table();
    for (const std::int64_t m : {std::int64_t {1} << 24, std::int64_t {2147483647}}) {
        for (int j = 0; j < table.num_pairs(); j += 9) {
            const long double exact_inv = std::pow(20000.0L, -2.0L * j / 128.0L);
            const long double two_pi = 6.283185307179586476925286766559L;
            long double exact = std::fmod(static_cast<long double>(m) * exact_inv, two_pi);
            if (exact > two_pi / 2) exact -= two_pi;
            const double got = posenc::reduced_angle(m, table.inv_freq(j));
            long double diff = std::abs(static_cast<long double>(got) - exact);
            if (diff > two_pi / 2) diff = two_pi - diff;
            CAPTURE(m);
            CAPTURE(j);
            CHECK(static_cast<double>(diff) <= 0x1p-20);
        }
    }
}

TEST_CASE("audio models without a RoPE posenc represents are refused by name, with what they apply instead")
{
    const char* refused[] = {"gemma3n_audio",
                             "gemma4_audio",
                             "gemma4_unified_audio",
                             "phi4_multimodal_audio",
                             "qwen2_5_omni_audio_encoder",
                             "qwen3_omni_moe_audio_encoder",
                             "moonshine_streaming_encoder",
                             "qwen2_5_omni_bigvgan",
                             "qwen2_5_omni_dit",
                             "qwen2_5_omni_token2wav",
                             "xcodec2",
                             "neucodec",
                             "muse_spark_audio"};
    for (const char* type : refused) {
        CAPTURE(type);
        const std::string e = audio_error_of(std::string(R"({"model_type": ")") + type + "\"}");
        CHECK(e.find("model_type") != std::string::npos);
        CHECK(e.find("names an audio model posenc does not read as a RoPE tower") != std::string::npos);
        CHECK(e.find(std::string("\"") + type + "\"") != std::string::npos);
    }
    CHECK(audio_error_of(R"({"model_type": "xcodec2"})").find("attention head indices") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "qwen2_5_omni_dit"})").find("first head only") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "llama"})").find("expected an audio tower whose code applies RoPE") !=
          std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "glmasr", "audio_config": {"model_type": "whisper"}})")
              .find("audio_config.model_type") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "mimi", "rope_parameters": {"rope_type": "linear", "factor": 2}})")
              .find("rope_parameters.rope_type") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "glmasr_encoder", "partial_rotary_factor": 1.5})")
              .find("partial_rotary_factor") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "mimi", "head_dim": 7})").find("head_dim") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "mimi", "rope_theta": 1})").find("rope_theta") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "lasr_ctc", "encoder_config": 3})").find("encoder_config") !=
          std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "mimi", "rope_scaling": {"type": "linear", "factor": 2}})")
              .find("rope_scaling") != std::string::npos);
    CHECK(audio_error_of(R"({"model_type": "mimi", "rope_parameters": {"full_attention": {"rope_theta": 5}}})")
              .find("rope_parameters.full_attention") != std::string::npos);
    const auto extra = posenc::hf::parse_audio_tower(
        R"({"model_type": "lasr_encoder", "rope_parameters": {"rope_type": "default", "rope_theta": 100.0, "factor": 4}})");
    REQUIRE(extra.warnings.size() == 1);
    CHECK(extra.warnings[0].key == "rope_parameters.factor");
    CHECK(extra.group().spec.base() == 100.0);
    CHECK(audio_error_of("[1]").find("config") != std::string::npos);
}

TEST_CASE("every audio model_type of transformers' tower sweep is a row or a refusal")
{
    // The audio model_types whose modeling files the sweep found defining a rotary module
    // (transformers decba1d2).
    const char* swept[] = {"gemma3n_audio",
                           "gemma4_audio",
                           "gemma4_unified_audio",
                           "glmasr_encoder",
                           "lasr_ctc",
                           "lasr_encoder",
                           "mimi",
                           "moonshine_streaming_encoder",
                           "pe_audio_encoder",
                           "phi4_multimodal_audio",
                           "qwen2_5_omni_audio_encoder",
                           "qwen2_5_omni_bigvgan",
                           "qwen2_5_omni_dit",
                           "qwen2_5_omni_token2wav",
                           "qwen3_omni_moe_audio_encoder",
                           "xcodec2"};
    int rows = 0, refusals = 0;
    for (const char* type : swept) {
        CAPTURE(type);
        const std::string text = std::string(R"({"model_type": ")") + type + "\"}";
        if (audio_error_of(text) == "(no error)") ++rows;
        else if (audio_error_of(text).find("names an audio model posenc does not read") != std::string::npos)
            ++refusals;
    }
    CHECK(rows == 5);  // mimi, glmasr_encoder, lasr_ctc (its encoder), lasr_encoder, pe_audio_encoder
    CHECK(refusals == 11);
    // transformers 5.25.0's audio model_types with a rotary module
    const char* swept_5_25[] = {"dots3_note_audio_encoder",
                                "muse_spark_audio",
                                "nemotron3_5_transcribe_asr_audio",
                                "nemotron3_5_transcribe_audio",
                                "nemotron3_diarization",
                                "nemotron3_diarization_audio",
                                "neucodec",
                                "pocket_tts_audio_tokenizer"};
    rows = refusals = 0;
    for (const char* type : swept_5_25) {
        CAPTURE(type);
        const std::string text = std::string(R"({"model_type": ")") + type + "\"}";
        if (audio_error_of(text) == "(no error)") ++rows;
        else if (audio_error_of(text).find("names an audio model posenc does not read") != std::string::npos)
            ++refusals;
    }
    CHECK(rows == 6);  // the two wrappers read their default tower
    CHECK(refusals == 2);
}

#include "inspect/tower.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

TEST_CASE("[cli] --tower audio --json gives the tower transformers builds from the config")
{
    const nlohmann::json data = load_audio_towers_sweep();
    for (const auto& c : data.at("cases")) {
        if (c.at("model_type") != "pe_audio_encoder" || !c.contains("wrapper")) continue;
        const std::string path =
            (std::filesystem::temp_directory_path() / ("posenc-audio-" + std::to_string(::getpid()) + ".json"))
                .string();
        {
            std::ofstream out(path);
            out << c.at("wrapper").at("config").dump();
        }
        const inspect::Options o = inspect::parse_options({"--config", path, "--tower", "audio", "--json"});
        inspect::check_tower_options(o);
        const nlohmann::json j =
            nlohmann::json::parse(inspect::render_audio_tower_json(posenc::hf::read_audio_tower(o.config_path)));
        const std::string text = inspect::render_audio_tower_text(posenc::hf::read_audio_tower(o.config_path));
        std::remove(path.c_str());
        CHECK(j.at("tower") == "audio");
        CHECK(j.at("model_type") == "pe_audio_encoder");
        CHECK(j.at("key_prefix") == "audio_config.");
        CHECK(j.at("head_dim") == c.at("head_dim"));
        CHECK(j.at("pairing") == "interleaved");
        CHECK(j.at("positions") == "frames_from_zero");
        REQUIRE(j.at("inv_freq").size() == c.at("inv_freq").size());
        for (std::size_t i = 0; i < j.at("inv_freq").size(); ++i) {
            const double w = c.at("inv_freq")[i].get<double>();
            CHECK(std::abs(j.at("inv_freq")[i].get<double>() - w) <= w * 0x1p-20);
        }
        CHECK(text.find("audio tower pe_audio_encoder (audio_config.)") == 0);
        return;
    }
    FAIL("pe_audio_encoder's wrapper case missing from the audio sweep");
}

TEST_CASE("[cli] --tower audio usage errors")
{
    const auto usage = [](const std::vector<std::string>& args) -> std::string {
        try {
            inspect::check_tower_options(inspect::parse_options(args));
        } catch (const inspect::UsageError& e) {
            return e.what();
        }
        return "(accepted)";
    };
    CHECK(usage({"--config", "c.json", "--tower", "audio"}) == "(accepted)");
    CHECK(usage({"--config", "c.json", "--tower", "audio", "--grid", "1,2,2"}) ==
          "--grid does not apply to --tower audio");
    CHECK(usage({"--preset", "qwen3-8b", "--tower", "audio"}).find("--config only") != std::string::npos);
    CHECK(usage({"--config", "c.json", "--tower", "speech"}) == "--tower: expected vision or audio, got \"speech\"");
}
