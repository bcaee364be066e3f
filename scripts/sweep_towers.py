# SPDX-License-Identifier: MIT
"""Vision towers' RoPE, computed by transformers' own code (scripts/sweep-transformers.py --towers).

For each vision tower in TOWERS the script builds the tower's configuration class with its class
defaults (one layer: `depth` or `num_hidden_layers` 1; RoPE reads no per-layer key), builds the
tower's model class from it, and runs its forward on random pixel rows for a few patch grids
(grid_thw: frames, rows, columns, before the spatial merge). A forward hook on the tower's rotary
module records what it receives and returns:

  - `positions`: the position ids the tower hands its rotary module, one row per token in the
    order of the rows of pixel_values (the processor's order);
  - `angles`: the module's output, one row per token: the angle of each frequency (float32, as
    the model computes it), before any internal reordering (Qwen2.5-VL's windows reorder the
    rows after this point and undo it after the merger);
  - `pairs`: the two head dims each angle column rotates, probed through the modeling file's own
    vision apply function (`apply_rotary_pos_emb_vision`): a unit vector along head dim d, with
    cos/sin built from one angle column set to pi/2 and every other to 0, is moved to its partner
    dim; this also checks that the forward builds cos/sin as cat(angles, angles) (the block's
    cos/sin are compared with it, row multiset by row multiset);
  - `config`: the tower's config as a user's config.json holds it (the class's to_dict()).

The output holds facts only (numbers, config values); no transformers code is copied.
"""
import contextlib
import json
import math
import sys

# model_type: (modeling module, model class, rotary attribute path, layers key)
TOWERS = {
    "qwen2_vl_vision": ("qwen2_vl", "Qwen2VisionTransformerPretrainedModel", "rotary_pos_emb", "depth"),
    "qwen2_5_vl_vision": ("qwen2_5_vl", "Qwen2_5_VisionTransformerPretrainedModel", "rotary_pos_emb", "depth"),
    "qwen2_5_omni_vision_encoder": ("qwen2_5_omni", "Qwen2_5OmniVisionEncoder", "rotary_pos_emb", "depth"),
    "qwen3_vl_vision": ("qwen3_vl", "Qwen3VLVisionModel", "rotary_pos_emb", "depth"),
    "qwen3_vl_moe_vision": ("qwen3_vl_moe", "Qwen3VLMoeVisionModel", "rotary_pos_emb", "depth"),
    "qwen3_5_vision": ("qwen3_5", "Qwen3_5VisionModel", "rotary_pos_emb", "depth"),
    "qwen3_5_moe_vision": ("qwen3_5_moe", "Qwen3_5MoeVisionModel", "rotary_pos_emb", "depth"),
    "qwen3_omni_moe_vision_encoder": ("qwen3_omni_moe", "Qwen3OmniMoeVisionEncoder", "rotary_pos_emb", "depth"),
    "glm4v_vision": ("glm4v", "Glm4vVisionModel", "rotary_pos_emb", "depth"),
    "glm4v_moe_vision": ("glm4v_moe", "Glm4vMoeVisionModel", "rotary_pos_emb", "depth"),
    "glm_ocr_vision": ("glm_ocr", "GlmOcrVisionModel", "rotary_pos_emb", "depth"),
    "ernie4_5_vl_moe_vision": ("ernie4_5_vl_moe", "Ernie4_5_VLMoeVisionTransformerPretrainedModel",
                               "rotary_pos_emb", "depth"),
    "exaone4_5_vision": ("exaone4_5", "Exaone4_5_VisionModel", "rotary_pos_emb", "depth"),
    "cohere_compass_vision": ("cohere_compass", "CohereCompassVisionModel", "rotary_pos_emb", "depth"),
    "paddleocr_vl_vision": ("paddleocr_vl", "PaddleOCRVisionModel", "rotary_pos_emb", "num_hidden_layers"),
    # Pixtral's rotary module holds the whole (row, column) table and returns cos/sin: the angles
    # recorded are its own table's rows at the position ids the forward hands it.
    "pixtral": ("pixtral", "PixtralVisionModel", "patch_positional_embedding", "num_hidden_layers"),
}

# (frames, rows, columns) before the spatial merge: an image, a video of 2 frames, a taller image.
GRIDS = [(1, 4, 6), (2, 2, 4), (1, 6, 2)]


def find_module(model, attr):
    for name, module in model.named_modules():
        if name == attr or name.endswith("." + attr):
            return module
    raise LookupError(f"no submodule {attr}")


def pixel_rows(torch, config, n):
    """Random pixel rows of the width the tower's patch embedding takes."""
    get = lambda k, d: getattr(config, k, d)  # noqa: E731
    width = get("in_channels", get("num_channels", 3)) * get("temporal_patch_size", 1) * get("patch_size", 14) ** 2
    return torch.randn(n, width)


class Captured(Exception):
    """Raised by the hook once the rotary module has run."""


def run_tower(torch, model, rotary, grid, config, model_type):
    seen = {}

    def hook(module, args, output):
        if model_type == "pixtral":  # args: (patch_embeds, position ids h * max_width + w)
            ids = args[1].reshape(-1)
            width = config.image_size // config.patch_size
            seen["positions"] = torch.stack([ids // width, ids % width], dim=-1)
            table = module.inv_freq[ids]
            seen["angles"] = table[:, : table.shape[-1] // 2].detach().clone()
            seen["cat"] = bool(torch.equal(table[:, : table.shape[-1] // 2], table[:, table.shape[-1] // 2:]))
        else:
            seen["positions"] = args[0].detach().clone()
            seen["angles"] = output.detach().clone()
        raise Captured()  # the rest of the forward (attention, merger) reads no RoPE input

    handle = rotary.register_forward_hook(hook)
    try:
        n = grid[0] * grid[1] * grid[2]
        grid_thw = torch.tensor([list(grid)])
        with torch.no_grad(), contextlib.suppress(Captured):
            if model_type == "pixtral":  # T images of H x W patches
                p = config.patch_size
                pixels = torch.randn(grid[0], config.num_channels, grid[1] * p, grid[2] * p)
                model(pixels, image_sizes=[(grid[1] * p, grid[2] * p)] * grid[0])
            elif model_type == "paddleocr_vl_vision":
                p = config.patch_size
                pixels = torch.randn(1, n, config.num_channels, p, p)
                model(pixel_values=pixels, grid_thw=grid_thw)
            else:
                model(pixel_rows(torch, config, n), grid_thw=grid_thw)
    finally:
        handle.remove()
    return seen


def probe_pairs(torch, module, n_angles, head_dim):
    """Partner dims of each angle column through the modeling file's apply_rotary_pos_emb_vision."""
    apply = getattr(module, "apply_rotary_pos_emb_vision", None)
    if apply is None and hasattr(module, "apply_rotary_pos_emb"):  # Pixtral: the text layout
        def apply(q, k, cos, sin):  # q (tokens, 1, dim) -> (1, 1, tokens, dim), cos (1, tokens, dim)
            out, _ = module.apply_rotary_pos_emb(q.transpose(0, 1).unsqueeze(0), k.transpose(0, 1).unsqueeze(0),
                                                 cos.unsqueeze(0), sin.unsqueeze(0), unsqueeze_dim=1)
            return out[0].transpose(0, 1), None
    if apply is None:
        return None
    pairs = []
    for j in range(n_angles):
        angles = torch.zeros(1, n_angles)
        angles[0, j] = math.pi / 2
        emb = torch.cat((angles, angles), dim=-1)
        if emb.shape[-1] != head_dim:
            return None
        q = torch.eye(head_dim).reshape(head_dim, 1, head_dim)  # head_dim tokens, 1 head
        cos, sin = emb.cos().expand(head_dim, -1), emb.sin().expand(head_dim, -1)
        try:
            out, _ = apply(q, q.clone(), cos, sin)
        except TypeError:  # Qwen2.5-Omni: apply(tensor (1, seq, heads, dim), freqs (seq, dim / 2))
            out = apply(q.unsqueeze(0), angles.expand(head_dim, -1))
        out = out.reshape(head_dim, head_dim)
        moved = [d for d in range(head_dim) if abs(out[d, d].item()) < 0.5]
        if len(moved) != 2:
            return None
        pairs.append(moved)
    return pairs


def sweep_tower(torch, transformers, model_type):
    import importlib
    from transformers.models.auto import configuration_auto as auto
    folder, cls_name, rotary_attr, layers_key = TOWERS[model_type]
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    config = auto.CONFIG_MAPPING[model_type]()
    stored = {k: v for k, v in config.to_dict().items()
              if isinstance(v, (int, float, str, bool, list, dict)) and not k.startswith("_")}
    setattr(config, layers_key, 1)
    if hasattr(config, "fullatt_block_indexes"):
        config.fullatt_block_indexes = [0]
    if hasattr(config, "deepstack_visual_indexes"):
        config.deepstack_visual_indexes = []
    torch.manual_seed(0)
    model = getattr(module, cls_name)(config).eval()
    rotary = find_module(model, rotary_attr)
    cases = []
    head_dim = None
    for grid in GRIDS:
        seen = run_tower(torch, model, rotary, grid, config, model_type)
        angles = seen["angles"].to(torch.float32)
        cases.append({"grid_thw": list(grid), "positions": seen["positions"].tolist(),
                      **({"table_is_cat": seen["cat"]} if "cat" in seen else {}),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        head_dim = 2 * angles.shape[-1]
    entry = {"model_type": model_type, "module": f"modeling_{folder}", "model_class": cls_name,
             "rotary_class": type(rotary).__name__, "config": stored, "cases": cases}
    pairs = probe_pairs(torch, module, head_dim // 2, head_dim)
    if pairs is not None:
        entry["pairs"] = pairs
    return entry


def stand_in_torch(torch):
    """torch 1.13 lacks what model construction asks for (torch >= 2.3): the default device."""
    if not hasattr(torch, "get_default_device"):
        torch.get_default_device = lambda: torch.device("cpu")
    # Weight initialisation passes torch >= 2 arguments; RoPE reads no weight, so the layers keep
    # torch's own initialisation.
    from transformers import modeling_utils
    modeling_utils.PreTrainedModel.init_weights = lambda self: None


def sweep_towers(torch, transformers, out_path, commit):
    stand_in_torch(torch)
    towers, failures = [], []
    for model_type in TOWERS:
        try:
            towers.append(sweep_tower(torch, transformers, model_type))
            print(f"{model_type}: swept", file=sys.stderr)
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            failures.append({"model_type": model_type, "error": f"{type(e).__name__}: {str(e)[:400]}"})
            print(f"{model_type}: FAILED", file=sys.stderr)
    data = {"source": "transformers " + transformers.__version__ + (" at " + commit if commit else ""),
            "torch": torch.__version__, "grids": [list(g) for g in GRIDS], "towers": towers, "failures": failures}
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(
            f"{json.dumps(k)}:" + ("[\n" + ",\n".join(json.dumps(t, separators=(",", ":")) for t in v) + "\n]"
                                  if k in ("towers", "failures") else json.dumps(v))
            for k, v in data.items()) + "\n}\n")
    print(f"{len(towers)} towers, {len(failures)} failures -> {out_path}", file=sys.stderr)
