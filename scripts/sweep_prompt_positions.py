# SPDX-License-Identifier: MIT
"""Prompt position ids of the M-RoPE families, computed by transformers' own get_rope_index.

Run through scripts/sweep-transformers.py TRANSFORMERS_SRC --prompts (which prepares the
environment the same way as the main sweep); writes tests/data/transformers_sweep_prompts.json.

For each family below, a few prompts written in posenc's SEGMENTS grammar (docs/models.md,
"Multimodal") become what get_rope_index reads: mm_token_type_ids (0 text, 1 image, 2 video; one
entry per token, a vision run holding t * h * w / spatial_merge_size^2 tokens), image_grid_thw and
video_grid_thw (one row per vision segment, in order), and for Qwen2.5-VL second_per_grid_ts (one
value per video, 1 where a segment gives no @S). The model's get_rope_index is called unbound on a
stand-in `self` that holds the family's configuration class, built from the config dict stored
with the case, and the family's own get_vision_position_ids; the position ids and rope delta it
returns are stored as they came out. No model weights are built.
"""

import functools
import importlib
import json
import types

# (model_type, modeling module, model class, configs: vision_config dicts, prompts)
FAMILIES = [
    ("qwen2_vl", "qwen2_vl", "Qwen2VLModel", [{}, {"spatial_merge_size": 1}],
     ["text:3;image:1x4x6;text:2", "text:1;video:3x4x4;text:2;image:1x8x4;text:1", "image:1x2x2;text:4",
      "text:1;video:8x2x2;text:2"]),
    ("qwen2_5_vl", "qwen2_5_vl", "Qwen2_5_VLModel", [{"tokens_per_second": 2}, {}],
     ["text:2;video:3x4x4@2;text:2", "text:2;video:3x4x4@0.5;text:1;video:2x2x4@2.9;text:1",
      "text:1;video:2x4x4;image:1x4x4;text:1", "text:2;image:1x6x4;text:3", "text:1;video:4x2x2@1.5;text:2"]),
    ("qwen3_vl", "qwen3_vl", "Qwen3VLModel", [{}],
     ["text:2;video:1x4x4;text:3;video:1x4x4;text:1", "text:1;image:1x4x8;text:2;video:1x6x4;text:1"]),
    ("qwen3_5", "qwen3_5", "Qwen3_5Model", [{}], ["text:2;image:1x4x4;text:2;video:1x2x4;text:1"]),
    ("glm4v", "glm4v", "Glm4vModel", [{}],
     ["text:2;video:1x4x4;text:3;video:1x4x4;text:1", "text:3;image:1x8x4;text:2"]),
    ("glm_ocr", "glm_ocr", "GlmOcrModel", [{}], ["text:1;image:1x4x6;text:2"]),
    ("paddleocr_vl", "paddleocr_vl", "PaddleOCRVLModel", [{}], ["text:2;image:1x6x4;text:2;image:1x2x2;text:1"]),
    ("ernie4_5_vl_moe", "ernie4_5_vl_moe", "Ernie4_5_VLMoeModel", [{}],
     ["text:2;image:1x4x4;text:1;video:4x4x4;text:1"]),
    # "sections": which HUNYUAN_TEXT (3 or 4 axes); not a vision_config key
    ("hunyuan_vl", "hunyuan_vl", "HunYuanVLModel", [{}, {"sections": [1, 1, 1], "spatial_merge_size": 1}],
     ["text:2;image:1x4x6;text:1;image:1x2x2;text:1", "image:1x4x4;text:3"]),
]
# HunYuan-VL's text model: get_rope_index reads len(rope_parameters["mrope_section"]).
HUNYUAN_TEXT = {
    4: {"head_dim": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [16, 16, 16, 16]}},
    3: {"head_dim": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [22, 21, 21]}},
}


def parse_segments(text):
    """The SEGMENTS grammar, restated (posenc's own parser is what the tests check)."""
    out = []
    for seg in text.split(";"):
        kind, rest = seg.split(":")
        if kind == "text":
            out.append(("text", int(rest), None, None))
            continue
        grid, _, seconds = rest.partition("@")
        out.append((kind, None, [int(v) for v in grid.split("x")], float(seconds) if seconds else None))
    return out


def family_inputs(torch, segments, sm, temporal_merge, newline_column=False):
    types_, images, videos, seconds = [], [], [], []
    for kind, n, grid, s in segments:
        if kind == "text":
            types_ += [0] * n
            continue
        t, h, w = grid
        merge_t = temporal_merge if kind == "video" else 1
        if newline_column:  # HunYuan-VL: one extra token per merged row
            types_ += [1] * ((h // sm) * (w // sm + 1))
        else:
            types_ += [1 if kind == "image" else 2] * ((t // merge_t) * h * w // (sm * sm))
        (images if kind == "image" else videos).append(grid)
        if kind == "video":
            seconds.append(1.0 if s is None else s)
    tensor = functools.partial(torch.tensor, dtype=torch.long)
    return (tensor([types_]), tensor(images) if images else None, tensor(videos) if videos else None,
            seconds)


def run_case(torch, model_type, module, cls_name, vision, prompt):
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    cls = getattr(modeling, cls_name)
    config_cls = cls.config_class
    text = HUNYUAN_TEXT[len(vision.get("sections", ())) or 4] if model_type == "hunyuan_vl" else None
    vision = {k: v for k, v in vision.items() if k != "sections"}
    config = config_cls(vision_config=dict(vision), **({"text_config": json.loads(json.dumps(text))} if text else {}))
    sm = config.vision_config.spatial_merge_size
    temporal_merge = getattr(config.vision_config, "temporal_merge_size", 1) if model_type == "ernie4_5_vl_moe" else 1
    segments = parse_segments(prompt)
    token_types, images, videos, seconds = family_inputs(torch, segments, sm, temporal_merge, model_type == "hunyuan_vl")
    self = types.SimpleNamespace(config=config,
                                 get_vision_position_ids=functools.partial(cls.get_vision_position_ids, None))
    kwargs = dict(input_ids=torch.zeros_like(token_types), mm_token_type_ids=token_types, image_grid_thw=images,
                  video_grid_thw=videos)
    if model_type == "hunyuan_vl":
        del kwargs["video_grid_thw"]  # images only
    if model_type == "qwen2_5_vl" and any(s is not None for _, _, _, s in segments):
        kwargs["second_per_grid_ts"] = torch.tensor(seconds)
    position_ids, deltas = cls.get_rope_index(self, **kwargs)
    stored = {"model_type": model_type, "vision_config": vision, **({"text_config": text} if text else {})}
    return {"config": stored, "prompt": prompt,
            "position_ids": position_ids[:, 0, :].tolist(), "rope_delta": int(deltas.reshape(-1)[0])}


# Omni thinkers: (model_type, module, class holding get_rope_index, thinker config class, thinker dicts, prompts).
# Each vision segment sits between text segments: the text before it ends with vision_start, the
# text after it begins with the run's end token (any ordinary token to get_rope_index).
OMNI = [
    ("qwen2_5_omni_thinker", "qwen2_5_omni", "Qwen2_5OmniPreTrainedModelForConditionalGeneration",
     "Qwen2_5OmniThinkerConfig", [{}, {"position_id_per_seconds": 13, "vision_config": {"spatial_merge_size": 1}}],
     ["text:3;image:1x4x6;text:2", "text:2;video:3x4x4@0.5;text:3;image:1x2x2;text:1",
      "text:1;video:4x2x4@0.37;text:2;video:2x2x2@2;text:1"]),
    ("qwen3_omni_moe_thinker", "qwen3_omni_moe", "Qwen3OmniMoePreTrainedModelForConditionalGeneration",
     "Qwen3OmniMoeThinkerConfig", [{}],
     ["text:3;image:1x4x6;text:2", "text:2;video:3x4x4@0.4;text:3;image:1x2x2;text:1"]),
]


def run_omni_case(torch, model_type, module, cls_name, config_name, thinker, prompt):
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    configuration = importlib.import_module(f"transformers.models.{module}.configuration_{module}")
    cls = getattr(modeling, cls_name)
    config = getattr(configuration, config_name)(**json.loads(json.dumps(thinker)))
    if not hasattr(config, "vision_start_token_id"):
        config.vision_start_token_id = 151652  # the hub configs' value; the class has no default
    sm = config.vision_config.spatial_merge_size
    segments = parse_segments(prompt)
    token_types, images, videos, seconds = family_inputs(torch, segments, sm, 1)
    ids = []
    for kind, n, grid, _ in segments:
        if kind == "text":
            ids += [1000] * n
            continue
        ids[-1] = config.vision_start_token_id
        count = grid[0] * grid[1] * grid[2] // (sm * sm)
        ids += [config.image_token_id if kind == "image" else config.video_token_id] * count
    self = types.SimpleNamespace(config=config, spatial_merge_size=sm)
    self.get_llm_pos_ids_for_vision = functools.partial(cls.get_llm_pos_ids_for_vision, self)
    self.get_chunked_index = functools.partial(cls.get_chunked_index, self)
    input_ids = torch.tensor([ids], dtype=torch.long)
    position_ids, deltas = cls.get_rope_index(
        self, input_ids, image_grid_thw=images, video_grid_thw=videos, attention_mask=torch.ones_like(input_ids),
        second_per_grids=torch.tensor(seconds) if seconds else None)
    out = position_ids[:, 0, :]
    assert bool((out == out.round()).all()), "fractional positions"
    delta = float(deltas.reshape(-1)[0])
    assert delta == round(delta)
    return {"config": {"model_type": model_type, **thinker}, "prompt": prompt,
            "position_ids": out.long().tolist(), "rope_delta": int(round(delta))}


def sweep(torch, transformers_version, commit):
    cases, failures = [], []
    for model_type, module, cls_name, visions, prompts in FAMILIES:
        for vision in visions:
            for prompt in prompts:
                try:
                    cases.append(run_case(torch, model_type, module, cls_name, vision, prompt))
                except Exception as e:  # noqa: BLE001
                    failures.append({"model_type": model_type, "prompt": prompt, "error": f"{type(e).__name__}: {e}"})
    for model_type, module, cls_name, config_name, thinkers, prompts in OMNI:
        for thinker in thinkers:
            for prompt in prompts:
                try:
                    cases.append(run_omni_case(torch, model_type, module, cls_name, config_name, thinker, prompt))
                except Exception as e:  # noqa: BLE001
                    failures.append({"model_type": model_type, "prompt": prompt, "error": f"{type(e).__name__}: {e}"})
    return {"source": "transformers " + transformers_version + (" at " + commit if commit else ""),
            "torch": torch.__version__, "cases": cases, "failures": failures}


def write(data, path):
    lines = ["{"]
    for key in ("source", "torch"):
        lines.append(f"{json.dumps(key)}:{json.dumps(data[key])},")
    for key in ("cases", "failures"):
        body = ",\n".join(json.dumps(c, separators=(",", ":")) for c in data[key])
        lines.append(f"{json.dumps(key)}:[\n{body}\n]" + ("," if key == "cases" else ""))
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
