# SPDX-License-Identifier: MIT
# Held-out check: transformers' own rotary classes beside posenc.torch.RotaryEmbedding on real
# configs (tests/data/configs). At positions below 32, transformers' float32 angles are within
# 32 * 2^-24 rad of exact, so the two (cos, sin) agree within 4e-6 times the attention factor.
# Skipped with the reason when transformers (not a Debian 12 package) or torch is absent.
import importlib
import json
import os

import pytest

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "configs")
CASES = [("llama-3.1-8b.json", "llama", "LlamaRotaryEmbedding"),
         ("qwen2.5-7b-instruct-yarn.json", "qwen2", "Qwen2RotaryEmbedding"),
         ("phi-3-mini-128k-instruct.json", "phi3", "Phi3RotaryEmbedding"),
         ("mistral-7b-v0.1.json", "mistral", "MistralRotaryEmbedding")]


@pytest.mark.parametrize("name,module,cls", CASES)
def test_transformers_rotary_class_agrees_at_small_positions(torch, name, module, cls):
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    import posenc.torch

    path = os.path.join(CONFIGS, name)
    with open(path) as fh:
        data = json.load(fh)
    config = transformers.AutoConfig.for_model(**data)
    theirs = getattr(importlib.import_module("transformers.models.%s.modeling_%s" % (module, module)), cls)(config=config)
    ours = posenc.torch.RotaryEmbedding.from_config(config)
    x = torch.zeros(1, dtype=torch.float32)
    ids = torch.arange(32)[None]
    their_cos, their_sin = theirs(x, ids)
    our_cos, our_sin = ours(x, ids)
    assert our_cos.shape == their_cos.shape and our_cos.dtype == their_cos.dtype
    bound = 4e-6 * max(1.0, ours.attention_scaling)
    assert torch.max(torch.abs(our_cos - their_cos)).item() <= bound
    assert torch.max(torch.abs(our_sin - their_sin)).item() <= bound
