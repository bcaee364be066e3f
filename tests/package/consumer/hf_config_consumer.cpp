// SPDX-License-Identifier: MIT
// Links posenc::hf_config alone (no nlohmann_json named by the project) and reads a config.
#include <posenc/models/hf_config.hpp>

#include <cstdio>

int main()
{
    const posenc::hf::HfModel model = posenc::hf::parse_model(
        R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 2, "rope_theta": 500000.0})");
    // Llama: head 4096 / 32 = 128, base as written.
    const posenc::RopeSpec& spec = model.rope.group_of_layer(0).spec;
    if (spec.head_dim() != 128 || spec.base() != 500000.0) {
        std::fprintf(stderr, "hf_config consumer: head %d base %g\n", spec.head_dim(), spec.base());
        return 1;
    }
    std::puts("posenc::hf_config: llama head 128, base 500000");
    return 0;
}
