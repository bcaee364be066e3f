# SPDX-License-Identifier: MIT
# The model-level description from Python: per-layer groups, NoPE layers and M-RoPE, from the
# whole-model presets and from published configs (tests/data/configs, sources in its README).
# Expected values are the configs' own fields and Hugging Face's layer rules, written here.
import json
import pathlib

import numpy as np
import pytest

import posenc

CONFIGS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "configs"


def test_gemma_3_layers_alternate_between_two_groups_by_hf_rule():
    model = posenc.model_from_hf_config(CONFIGS / "gemma-3-4b-it.json").rope
    config = json.loads((CONFIGS / "gemma-3-4b-it.json").read_text())
    text = config.get("text_config", config)
    layers = text.get("num_hidden_layers", 34)
    assert model.num_layers == layers
    full = [i for i in range(layers) if (i + 1) % 6 == 0]  # Gemma 3: every 6th layer is global
    assert model.layers_of_group([g.name for g in model.groups].index("full_attention")) == full
    sliding = model.group("sliding_attention")
    assert sliding.spec.base == 10000.0 and isinstance(sliding.scaling, posenc.NoScaling)
    global_group = model.group("full_attention")
    assert global_group.spec.base == 1e6
    assert isinstance(global_group.scaling, posenc.LinearScaling) and global_group.scaling.factor == 8.0
    theta = 1e6 ** (-2 * np.arange(global_group.spec.num_pairs) / global_group.spec.rotary_dim) / 8.0
    assert np.allclose(model.table_for_layer(5).inv_freq, theta, rtol=1e-14, atol=0)
    assert np.allclose(model.table_for_layer(0).inv_freq,
                       10000.0 ** (-2 * np.arange(sliding.spec.num_pairs) / sliding.spec.rotary_dim), rtol=1e-14)


def test_smollm3_nope_layers_come_from_no_rope_layers_and_refuse_a_table():
    config = json.loads((CONFIGS / "smollm3-3b.json").read_text())
    model = posenc.model_from_hf_config(config).rope
    expected = [i for i, use_rope in enumerate(config["no_rope_layers"]) if not use_rope]
    assert model.nope_layers() == expected
    with pytest.raises(posenc.Error, match="has no RoPE"):
        model.table_for_layer(expected[0])
    assert not model.layer_has_rope(expected[0])


def test_qwen2_5_vl_m_rope_sections_from_the_config():
    config = json.loads((CONFIGS / "qwen2.5-vl-7b-instruct.json").read_text())
    model = posenc.model_from_hf_config(config).rope
    layout = model.multi_axis
    section = (config.get("rope_scaling") or config["text_config"]["rope_scaling"])["mrope_section"]
    assert layout.mrope_section == section
    assert layout.pair_axes == [0] * section[0] + [1] * section[1] + [2] * section[2]
    spec, table = model.primary_group().spec, model.primary_group().table()
    head = np.linspace(-1, 1, spec.head_dim)
    same = posenc.apply_multi_axis_rope_reference(spec, table, layout, head, [7, 7, 7])
    assert np.array_equal(same, posenc.apply_rope_reference(spec, table, head, 7))  # text tokens: the 1-D result


def test_whole_model_presets_and_a_model_built_in_python():
    gemma = posenc.presets.gemma_3_4b_it_rope()
    assert gemma.num_groups == 2 and gemma.num_layers == 34
    assert posenc.presets.smollm3_3b_rope().nope_layers()[:2] == [3, 7]
    group = posenc.RopeGroup.make("default", posenc.RopeSpec.full(64, 1e4), posenc.YarnScaling(4.0, 2048))
    model = posenc.ModelRope([group], [0, posenc.ModelRope.no_rope, 0])
    assert model.nope_layers() == [1]
    assert model.table_for_layer(2).attention_factor == pytest.approx(posenc.yarn_mscale(4.0), rel=1e-15)
    with pytest.raises(posenc.Error, match="is used by no layer"):
        posenc.ModelRope([group], [posenc.ModelRope.no_rope])
