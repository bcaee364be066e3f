# SPDX-License-Identifier: MIT
# HfModel.qk_norm and HfModel.mla from Python. Expected: DeepSeek-V3's config numbers
# (qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, kv_lora_rank 512, q_lora_rank 1536;
# deepseek_v3/modeling_deepseek_v3.py splits the query head [nope, rope]) and gemma3/modeling_gemma3.py's
# Gemma3RMSNorm (1 + weight) on each q and k head before RoPE.
import os

import posenc

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "configs")


def test_deepseek_v3_mla_layout():
    m = posenc.model_from_hf_config(os.path.join(CONFIGS, "deepseek-v3.json"))
    assert m.mla is not None
    assert (m.mla.qk_nope_head_dim, m.mla.qk_rope_head_dim, m.mla.qk_head_dim) == (128, 64, 192)
    assert (m.mla.query_rope_offset, m.mla.key_rope_offset, m.mla.key_rope_shared) == (128, 128, True)
    assert (m.mla.v_head_dim, m.mla.kv_lora_rank, m.mla.q_lora_rank) == (128, 512, 1536)
    assert m.qk_norm.kind == "none" and not m.qk_norm.present


def test_gemma3_qk_norm_and_unknown_family():
    m = posenc.model_from_hf_config(os.path.join(CONFIGS, "gemma-3-1b-it.json"))
    assert (m.qk_norm.kind, m.qk_norm.scope, m.qk_norm.place) == ("rms_one_plus_weight", "per_head", "before_rope")
    assert m.mla is None
    unknown = posenc.model_from_hf_config({"model_type": "not_a_family", "hidden_size": 256, "num_attention_heads": 4},
                                          assume_half_split=True)
    assert unknown.qk_norm is None
