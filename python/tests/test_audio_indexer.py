# SPDX-License-Identifier: MIT
"""posenc.parse_audio_tower and HfModel.indexer from Python.

Expected values come from the models' own code as transformers writes it: Mimi's rotary embedding
is built over head_dim = hidden_size / num_attention_heads (512 / 8 = 64 by default) at theta
10000, rotate_half over the whole head, positions offset by the streaming cache; HY-V4's indexer
rotates the LAST qk_rope_head_dim (64) of its index_head_dim (128) dims, interleaved; Qwen4-Exp's
QSA pooled keys sit at the first token of each complete block of visible tokens."""
import json

import pytest

import posenc


def test_mimi_audio_tower_is_one_rope_over_frames():
    tower = posenc.parse_audio_tower(json.dumps({"model_type": "mimi"}))
    assert tower.model_type == "mimi"
    assert tower.head_dim == 64
    spec = tower.group.spec
    assert (spec.head_dim, spec.rotary_dim, spec.base) == (64, 64, 10000.0)
    assert spec.pairing == posenc.Pairing.half_split
    assert tower.positions == "frames_from_cache_offset"
    assert posenc.audio_tower_from_hf_config({"model_type": "mimi"}).head_dim == 64


def test_audio_model_without_rope_is_refused_by_name():
    with pytest.raises(posenc.Error, match="qwen2_5_omni_audio_encoder"):
        posenc.parse_audio_tower(json.dumps({"model_type": "qwen2_5_omni_audio_encoder"}))


def test_qsa_block_starts():
    # blocks of 4 over 10 visible tokens: two complete blocks, starting at tokens 0 and 4
    assert posenc.qsa_block_start_tokens(list(range(10)), 4) == [0, 4]
    # a mask hiding tokens 2 and 3: the visible ones, grouped in fours
    assert posenc.qsa_block_start_tokens([0, 1, 4, 5, 6, 7, 8, 9], 4) == [0, 6]


def test_model_without_indexer_has_none():
    model = posenc.parse_hf_model(json.dumps({"model_type": "llama", "hidden_size": 4096,
                                              "num_attention_heads": 32, "num_hidden_layers": 2}))
    assert model.indexer is None


def test_qwen4_exp_indexer_rotates_its_first_rotary_dims():
    # Qwen4-Exp's main attention rotates int(256 x 0.25) = 64 dims; its QSA indexer (head 128) rotates
    # the same first 64 dims with rotate_half, its pooled keys at block starts of 4 tokens.
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "configs" / "qwen4-exp-qsa-indexer.json"
    indexer = posenc.model_from_hf_config(str(path)).indexer
    assert (indexer.spec.head_dim, indexer.spec.rotary_dim, indexer.spec.rotary_offset) == (128, 64, 0)
    assert indexer.spec.pairing == posenc.Pairing.half_split
    assert (indexer.keys, indexer.compress_ratio) == ("block_start", 4)
    assert indexer.head_dim_key == "text_config.indexer_head_dim"
