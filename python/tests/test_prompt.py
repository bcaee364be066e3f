# SPDX-License-Identifier: MIT
# posenc.prompt_position_ids / prompt_angles / parse_prompt_segments against the position ids and
# rope deltas transformers' own get_rope_index returned (tests/data/transformers_sweep_prompts.json,
# written by scripts/sweep-transformers.py --prompts).
import json
import os

import pytest

import posenc

np = pytest.importorskip("numpy")

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")


def test_every_swept_prompt_matches_get_rope_index():
    with open(os.path.join(DATA, "transformers_sweep_prompts.json"), encoding="utf-8") as f:
        data = json.load(f)
    assert not data["failures"] and len(data["cases"]) >= 30
    for case in data["cases"]:
        ids, delta = posenc.prompt_position_ids(case["config"], case["prompt"])
        assert ids.dtype == np.int64
        assert ids.tolist() == case["position_ids"], case["prompt"]
        assert delta == case["rope_delta"], case["prompt"]


def test_prompt_angles_are_each_axis_id_times_its_frequency():
    config = os.path.join(DATA, "configs", "qwen2-vl-7b-instruct.json")
    a = posenc.prompt_angles(config, "text:3;image:1x4x6;text:2")
    # get_rope_index's ids for this prompt (the sweep's first Qwen2-VL case)
    want = np.array([[0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7], [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],
                     [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]], dtype=float)
    assert a["rule"] == "qwen2_vl" and a["rope_delta"] == -3
    assert np.array_equal(a["positions"], want.T)
    theta = 1e6 ** (-2.0 * np.arange(64) / 128)
    axis = np.array([0] * 16 + [1] * 24 + [2] * 24)  # mrope_section [16, 24, 24]
    assert np.allclose(a["tokens"], want[axis].T * theta, rtol=1e-15, atol=0)
    assert a["pairs"].tolist()[40] == [40, 104]


def test_prompt_refusals_name_the_segment_and_the_model():
    with pytest.raises(posenc.Error, match='segment 1 "vid:1x4x4"'):
        posenc.parse_prompt_segments("text:1;vid:1x4x4")
    with pytest.raises(posenc.Error, match=r"segments\[1\]\.t 2 must be 1"):
        posenc.prompt_position_ids({"model_type": "qwen3_vl"}, "text:1;video:2x4x4;text:1")
    with pytest.raises(posenc.Error, match='model_type "llama" has no M-RoPE'):
        posenc.prompt_angles(os.path.join(DATA, "configs", "llama-3.1-8b.json"), "text:2")
    with pytest.raises(posenc.Error, match="may hold more tokens than 1048576"):
        posenc.prompt_angles(os.path.join(DATA, "configs", "qwen2-vl-7b-instruct.json"), "text:1;image:1x2147483647x2147483647")
    assert posenc.PromptSegment.video(2, 4, 4, 0.5).seconds_per_grid == 0.5
