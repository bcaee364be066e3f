#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for the QSA block-start test in tests/models/family_rules_tests.cpp: runs
transformers' own Qwen4ExpTextQSAIndexer._select_tokens (qwen4_exp/modeling_qwen4_exp.py,
transformers 5.25.0) on one query whose attention mask shows the listed tokens, with a cos table
whose row t holds t, and prints the rows the pooled keys were rotated with: the block-start tokens.

Run:  /usr/bin/python3 tests/models/qsa_block_starts_reference.py TF525
(TF525: the folder holding the unpacked 5.25.0 wheel's `transformers`; the sweep script's
stand-ins cover what it imports, as in docs/models.md.)
"""
import importlib.util
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("sweep", root / "scripts" / "sweep-transformers.py")
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)
sweep.prepare_environment(sys.argv[1])

import torch  # noqa: E402

import transformers.models.qwen4_exp.modeling_qwen4_exp as qwen4  # noqa: E402
from transformers.models.qwen4_exp.configuration_qwen4_exp import Qwen4ExpTextConfig  # noqa: E402

S = 13
CASES = [  # (compress ratio, visible token indices of the query)
    (3, list(range(13))),
    (4, list(range(13))),
    (4, list(range(7))),
    (4, list(range(3))),
    (3, [j for j in range(13) if j not in (1, 4, 6, 9, 10)]),
    (2, list(range(8, 13))),
]

for ratio, visible in CASES:
    config = Qwen4ExpTextConfig(hidden_size=64, head_dim=16, num_attention_heads=4, num_key_value_heads=1,
                                num_hidden_layers=4, indexer_n_heads=2, indexer_kv_heads=1, indexer_head_dim=16,
                                indexer_budget=8, indexer_compress_ratio=ratio)
    indexer = qwen4.Qwen4ExpTextQSAIndexer(config, 3)
    seen = []
    apply = qwen4.apply_rotary_pos_emb

    def spy(q, k=None, cos=None, sin=None, unsqueeze_dim=1, seen=seen, apply=apply):
        if q.dim() == 3 and q.shape[1] == 1:  # the pooled keys, [blocks, 1, D]
            seen.append([int(round(float(c))) for c in cos[:, 0]])
        return apply(q, k, cos, sin, unsqueeze_dim)

    qwen4.apply_rotary_pos_emb = spy
    table = torch.arange(S, dtype=torch.float32)[None, :, None].expand(1, S, 16).clone()
    mask = torch.zeros(1, 1, 1, S, dtype=torch.bool)
    mask[0, 0, 0, visible] = True
    try:
        indexer._select_tokens(torch.zeros(1, 1, 64), torch.randn(1, 1, 2, 16), torch.randn(1, S, 16), table,
                               table.clone(), mask)
    except RuntimeError:
        pass  # torch 1.13's scatter wants int64 indices; the pooled keys were rotated before it
    qwen4.apply_rotary_pos_emb = apply
    print(f"compress {ratio}, visible {visible}: block starts {seen[0] if seen else []}")
