#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for the "legacy keys" test cases of tests/models/family_rules_tests.cpp: what
transformers 5.25.0's own configuration classes make of the released key layouts of Dory (attention
and mlp blocks listed in layer_types) and UltraBERT (attention_windows, a rope_theta list), the base
they give a per-layer-type dict without rope_theta, and where
they fail (UltraBERT's single rope_theta; Dory's single dict: its rotary embedding looks dicts up by
layer type).

Run:  /usr/bin/python3 tests/models/legacy_keys_525_reference.py TF525
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

from transformers.models.dory.configuration_dory import DoryConfig  # noqa: E402
from transformers.models.dory.modeling_dory import DoryRotaryEmbedding  # noqa: E402
from transformers.models.ultrabert.configuration_ultrabert import UltrabertConfig  # noqa: E402
from transformers.models.ultrabert.modeling_ultrabert import UltrabertRotaryEmbedding  # noqa: E402


def show(name, make, rotary):
    try:
        config = make()
        rotary(config)
        print(f"{name}: num_hidden_layers {config.num_hidden_layers}, layer_types {config.layer_types}, "
              f"rope_parameters {config.rope_parameters}")
    except Exception as e:  # noqa: BLE001 - the failure is the value
        print(f"{name}: fails: {type(e).__name__}: {e}")


show("dory blocks", lambda: DoryConfig(num_hidden_layers=8, n_input_layers=2, n_output_layers=2, layer_types=[
    "sliding_attention", "mlp", "sliding_attention", "mlp", "sliding_attention", "mlp", "full_attention", "mlp"]),
    DoryRotaryEmbedding)
show("dory single dict", lambda: DoryConfig(num_hidden_layers=4, n_input_layers=1, n_output_layers=1,
                                            rope_parameters={"rope_type": "default", "rope_theta": 5e5}),
     DoryRotaryEmbedding)
show("ultrabert windows and thetas", lambda: UltrabertConfig(
    num_hidden_layers=4, hidden_size=256, num_attention_heads=4, attention_windows=[128, 0, 128, 0],
    rope_theta=[1e4, 1.6e5, 2e4, 3.2e5]), UltrabertRotaryEmbedding)
show("ultrabert single theta", lambda: UltrabertConfig(num_hidden_layers=3, hidden_size=256, num_attention_heads=4,
                                                       rope_theta=5e4), UltrabertRotaryEmbedding)
dicts = {"sliding_attention": {"rope_type": "default"}, "full_attention": {"rope_type": "default"}}
show("dory dicts without rope_theta, top-level rope_theta",
     lambda: DoryConfig(num_hidden_layers=4, n_input_layers=1, n_output_layers=1, rope_theta=5e5,
                        rope_parameters={k: dict(v) for k, v in dicts.items()}), DoryRotaryEmbedding)
show("ultrabert dicts without rope_theta, top-level rope_theta",
     lambda: UltrabertConfig(num_hidden_layers=3, hidden_size=256, num_attention_heads=4, rope_theta=5e5,
                             rope_parameters={k: dict(v) for k, v in dicts.items()}), UltrabertRotaryEmbedding)
