# SPDX-License-Identifier: MIT
"""posenc.context_lengths: the L and L' posenc-inspect gives a config, from Python.

Expected values are the lengths the models' own configs and cards name: Llama 3.1 trained at
8192 (original_max_position_embeddings) and extended to 131072 (max_position_embeddings);
Qwen3 with YaRN x4 over 32768 reaches 4 x 32768 = 131072."""
import json

import pytest

import posenc

LLAMA_31 = {
    "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
    "rope_theta": 500000.0, "max_position_embeddings": 131072,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192},
}


def group_of(config):
    return posenc.parse_hf_model(json.dumps(config)).rope.groups[0]


def test_llama31_lengths_are_its_config_lengths():
    group = group_of(LLAMA_31)
    assert posenc.context_lengths(group) == (8192, 131072)  # not 8 x 8192: Llama 3's factor is not L'/L
    assert posenc.context_lengths(group, target_factor=2.0) == (8192, 16384)
    assert posenc.context_lengths(group, target_length=4096) == (8192, 4096)


def test_yarn_override_is_built_with_the_trained_length():
    config = dict(LLAMA_31, rope_scaling=None, max_position_embeddings=32768)
    group = group_of(config)
    length = posenc.trained_length(group)
    assert length == 32768
    yarn = posenc.YarnScaling(4.0, length)
    assert posenc.context_lengths(group, yarn) == (32768, 131072)
    posenc.require_frequencies_at(group.spec, yarn, 131072)  # exists: no error


def test_refusals_name_the_field():
    group = group_of(LLAMA_31)
    with pytest.raises(posenc.Error, match="target_factor"):
        posenc.context_lengths(group, target_factor=0.5)
    with pytest.raises(posenc.Error, match="length"):
        posenc.require_frequencies_at(group.spec, group.scaling, 0)
