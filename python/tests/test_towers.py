# SPDX-License-Identifier: MIT
"""Vision towers from Python (docs/python.md, "Vision towers"): the reader and each token's angles,
against the towers sweep of transformers' own code (tests/data/transformers_sweep_towers.json)."""
import json
import os

import numpy as np
import pytest

import posenc

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "transformers_sweep_towers.json")


def _sweep():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


def test_every_swept_tower_gives_transformers_angles_as_numpy_arrays():
    towers = _sweep()["towers"]
    assert len(towers) >= 14
    for t in towers:
        config = {"model_type": t["model_type"], **{k: v for k, v in t["config"].items() if k != "model_type"}}
        tower = posenc.vision_tower_from_hf_config(config)
        assert tower.model_type == t["model_type"]
        for case in t["cases"]:
            got = posenc.tower_token_angles(tower, tuple(case["grid_thw"]))
            want = np.array(case["angles"], dtype=np.float64)
            assert got["tokens"].shape == want.shape
            np.testing.assert_allclose(got["tokens"], want, rtol=2.0 ** -22, atol=0)
            # integers, or DINOv3's float32 patch centres (stored with 9 significant digits)
            np.testing.assert_array_equal(got["positions"].astype(np.float32),
                                          np.array(case["positions"], dtype=np.float64).astype(np.float32))
        if "pairs" in t:
            np.testing.assert_array_equal(got["pairs"], np.array(t["pairs"]))


def test_qwen2_5_vl_config_and_exact_precision():
    config = {"model_type": "qwen2_5_vl", "vision_config": {"hidden_size": 1280, "num_heads": 16, "spatial_merge_size": 2}}
    tower = posenc.vision_tower_from_hf_config(config)
    assert (tower.head_dim, tower.theta, tower.merge_size) == (80, 10000.0, 2)
    exact = posenc.tower_token_angles(tower, (1, 2, 4), precision="exact")
    assert exact["positions"][4].tolist() == [0.0, 2.0]  # the second merge block starts at column 2
    assert exact["tokens"][4][20] == pytest.approx(2.0, rel=1e-15)  # column pair 0: frequency 1


def test_dinov3_real_valued_centres_and_unrotated_prefix_tokens():
    tower = posenc.vision_tower_from_hf_config({"model_type": "dinov3_vit", "hidden_size": 384,
                                                "num_attention_heads": 6, "num_register_tokens": 4})
    assert (tower.rule, tower.head_dim, tower.theta, tower.prefix_tokens) == ("rows_columns_centres", 64, 100.0, 5)
    a = posenc.tower_token_angles(tower, (1, 4, 6), precision="exact")
    assert a["tokens"].shape == (29, 32)
    assert not a["tokens"][:5].any()  # the CLS token and 4 registers are not rotated
    # row 1 of 4, column 2 of 6: centres y = -1/4, x = -1/6; pair 16 reads x at frequency 1
    assert a["positions"][13].tolist() == pytest.approx([-0.25, -1.0 / 6], rel=1e-15)
    assert a["tokens"][13][16] == pytest.approx(2 * np.pi * (-1.0 / 6), rel=1e-15)


def test_refusals_are_posenc_errors_naming_the_tower():
    with pytest.raises(posenc.Error, match="video_llama_3_vision"):
        posenc.vision_tower_from_hf_config({"model_type": "video_llama_3", "vision_config": {}})
    tower = posenc.parse_vision_tower('{"model_type": "qwen2_vl_vision"}')
    with pytest.raises(posenc.Error, match="merge"):
        posenc.tower_token_angles(tower, (1, 3, 4))
