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

Towers whose rotary module returns cos/sin rather than angles (OWN_PATH: Llama 4, Gemma 4) are
recorded through the cos the module takes: while the module builds its table (Llama 4, at
construction) or runs (Gemma 4), torch.cos / Tensor.cos are wrapped to keep their float32
argument, the angles the model rotates by. Their layout is probed instead of `pairs`: `probe`
holds, for one token of the first grid with every angle non-zero, the modeling file's own apply
function (Llama 4 vision_apply_rotary_emb, Gemma 4 apply_multidimensional_rope) run on a unit
vector along each head dim d with the forward's cos/sin: `partner[d]` is the other dim the
vector moves into and `cos[d]` what stays on d (the cosine of d's pair's angle).
  - llama4_vision_model: the table covers the whole image_size / patch_size grid plus the CLS
    token the encoder appends last (image_size is set to 4 patches so the data stays small; the
    grid is fixed by it). `positions` are the angles of the first pair of each axis (frequency
    theta^0 = 1), i.e. the coordinates the table multiplies.
  - gemma4_vision: pixel_position_ids built as the image processor builds them ((x, y) =
    (column, row) of each patch, row-major, then padding rows at -1, which the tower masks); the
    padding rows are dropped from the record.
  - kimi_k25_vision: the tower's forward on random patches; `positions` are the position ids its
    rotary module receives (one row per token, in the module's axis order), the angles the first
    half of the cos argument (cat(freqs, freqs)).
  - muse_glimmer_vision: as Kimi K2.5, except that the tower permutes its rows into attention
    windows before the rotary module runs (and undoes it after the encoder): the recorded rows are
    put back in pixel_values order with the inverse of the modeling file's own
    get_vision_window_index permutation.
  - step3p5_vision (Step 3.7's tower): the forward on T images of the grid's size; `positions` are
    the position ids its rotary module receives, the angles the first half of the cos argument.
  - minimax_m3_vl_vision: the forward on random pixel rows; `positions` are the (frame, row,
    column) ids its rotary module computes (the module-level get_vision_position_ids is wrapped to
    keep them), the angles the first half of the cos argument. The head dims past the rotated
    part pass through: the probe gives them partner -1.
  - sam3_vit_model (SAM 3's ViT; image_size 8 patches, window_size 4, layer 0 windowed, layer 1
    global): the tables both layers' rotary modules build at construction (their cos argument).
    The case holds the global layer's (the one the reader gives); `windowed` holds the windowed
    layer's, each image token's row taken through the modeling file's own window_partition of the
    token ids. `positions` are the angles of the first pair of each axis (frequency 1).
  - dinov3_vit, eomt_dinov3, sapiens2 (DINOv3's RoPE, real-valued coordinates): the model in eval
    mode (no coordinate jitter); the rotary module is run on pixel_values of the grid's size and
    `get_patches_center_coordinates` is wrapped to keep the coordinates it returns (`positions`,
    (y, x) in [-1, 1]). The tokens the encoder puts before the patches (CLS and registers: the
    embeddings' output length minus the patches) are left unrotated by the apply function (the
    probe checks it: `unrotated`); they are recorded with angle 0 and positions (0, 0), as
    posenc's TokenAngles writes a token the model does not rotate.

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

# model_type: (modeling module, model class, rotary attribute path, layers key, config overrides)
OWN_PATH = {
    "llama4_vision_model": ("llama4", "Llama4VisionModel", "rotary_embedding", "num_hidden_layers", {"image_size": 56}),
    "gemma4_vision": ("gemma4", "Gemma4VisionModel", "rotary_emb", "num_hidden_layers", {}),
    "kimi_k25_vision": ("kimi_k25", "Kimi_K25VisionModel", "rotary_emb", "num_hidden_layers", {}),
    "muse_glimmer_vision": ("muse_glimmer", "MuseGlimmerVisionModel", "rotary_emb", "num_hidden_layers", {}),
    "minimax_m3_vl_vision": ("minimax_m3_vl", "MiniMaxM3VLVisionModel", "rotary_emb", "num_hidden_layers", {}),
    "step3p5_vision": ("step3p7", "Step3p7VisionModel", "rotary_emb", "num_hidden_layers", {}),
    "sam3_vit_model": ("sam3", "Sam3ViTModel", "rotary_emb", "num_hidden_layers",
                       {"image_size": 112, "window_size": 4, "num_hidden_layers": 2, "global_attn_indexes": [1]}),
    "dinov3_vit": ("dinov3_vit", "DINOv3ViTModel", "rope_embeddings", "num_hidden_layers", {}),
    "eomt_dinov3": ("eomt_dinov3", "EomtDinov3ForUniversalSegmentation", "rope_embeddings", "num_hidden_layers", {}),
    "sapiens2": ("sapiens2", "Sapiens2Model", "rope_embeddings", "num_hidden_layers", {}),
}
CENTRE_TOWERS = ("dinov3_vit", "eomt_dinov3", "sapiens2")
OWN_GRIDS = {"llama4_vision_model": [(1, 4, 4), (2, 4, 4)], "gemma4_vision": [(1, 4, 6), (2, 2, 4), (1, 6, 2)],
             "kimi_k25_vision": [(1, 4, 6), (2, 2, 4), (1, 6, 2)],
             "muse_glimmer_vision": [(1, 4, 6), (2, 2, 4), (1, 6, 2)],
             "step3p5_vision": [(1, 4, 6), (2, 2, 4), (1, 6, 2)],
             "minimax_m3_vl_vision": [(1, 4, 6), (2, 2, 4), (1, 6, 2)],
             "sam3_vit_model": [(1, 8, 8)],
             **{t: [(1, 4, 6), (2, 3, 5)] for t in CENTRE_TOWERS}}
GEMMA4_PADDING = 3  # padding rows after the patches

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


@contextlib.contextmanager
def recording_cos(torch, seen):
    """Wrap torch.cos and Tensor.cos: every float argument is appended to seen."""
    plain, method = torch.cos, torch.Tensor.cos

    def wrapped(x, *a, **k):
        seen.append(x.detach().clone())
        return plain(x, *a, **k)
    torch.cos = wrapped
    torch.Tensor.cos = lambda self, *a, **k: wrapped(self, *a, **k)
    try:
        yield
    finally:
        torch.cos, torch.Tensor.cos = plain, method


def probe_layout(torch, apply, head_dim, token):
    """partner[d] and cos[d] of one token: apply(unit vector along d) -> (tokens, head_dim) output."""
    partner, cos = [], []
    for d in range(head_dim):
        out = apply(d)[token]
        others = [(abs(out[e].item()), e) for e in range(head_dim) if e != d]
        big = [e for v, e in others if v > 1e-6]
        if not big and abs(out[d].item() - 1.0) == 0.0:  # a dim the apply function passes through
            partner.append(-1)
            cos.append(1.0)
            continue
        if len(big) != 1:
            raise RuntimeError(f"dim {d} moves into {big}: not one rotated pair")
        partner.append(big[0])
        cos.append(float(f"{out[d].item():.9g}"))
    return {"token": token, "partner": partner, "cos": cos}


def sweep_llama4(torch, module, config, model, rotary, grids):
    head_dim = config.hidden_size // config.num_attention_heads
    q = head_dim // 4
    recorded = []
    with recording_cos(torch, recorded):
        type(rotary)._compute_freqs_ci(config)
    freqs = recorded[0].reshape(recorded[0].shape[0], -1)  # (patches + 1, head_dim / 2)
    table = rotary.freqs_ci.reshape(freqs.shape)
    if not (torch.equal(torch.cos(freqs), table.real) and torch.equal(torch.sin(freqs), table.imag)):
        raise RuntimeError("the recorded angles do not rebuild the module's freqs_ci")
    cases = []
    for grid in grids:
        seen = {}
        def hook(m, args, out):
            seen["table"] = out
            raise Captured()  # the layers after it read no RoPE input
        handle = rotary.register_forward_hook(hook)
        p = config.patch_size
        with torch.no_grad(), contextlib.suppress(Captured):
            model(torch.randn(grid[0], config.num_channels, grid[1] * p, grid[2] * p))
        handle.remove()
        if not torch.equal(seen["table"], rotary.freqs_ci):
            raise RuntimeError("the forward used another table")
        angles = freqs.repeat(grid[0], 1)
        cases.append({"grid_thw": list(grid), "positions": angles[:, [0, q]].tolist(),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
    n = freqs.shape[0]
    eye = torch.eye(head_dim).reshape(head_dim, 1, 1, head_dim).expand(head_dim, n, 1, head_dim).contiguous()
    token = config.image_size // config.patch_size + 1  # (column 1, row 1): every angle non-zero
    probe = probe_layout(torch, lambda d: module.vision_apply_rotary_emb(eye, eye, rotary.freqs_ci)[0][d, :, 0, :],
                         head_dim, token)
    return cases, probe


def gemma4_position_ids(torch, grid):
    ys, xs = torch.meshgrid(torch.arange(grid[1]), torch.arange(grid[2]), indexing="ij")
    real = torch.stack([xs.reshape(-1), ys.reshape(-1)], dim=-1)
    pad = torch.full((GEMMA4_PADDING, 2), -1)
    return torch.cat([real, pad]).unsqueeze(0).expand(grid[0], -1, -1).contiguous()


def sweep_gemma4(torch, module, config, model, rotary, grids):
    head_dim = config.head_dim or config.hidden_size // config.num_attention_heads
    cases, probe = [], None
    for grid in grids:
        ids = gemma4_position_ids(torch, grid)
        recorded, seen = [], {}

        def hook(m, args, out):
            seen["positions"], seen["cos"], seen["sin"] = args[1].detach().clone(), out[0], out[1]
            raise Captured()  # the layers after it read no RoPE input
        handle = rotary.register_forward_hook(hook)
        pixels = torch.rand(grid[0], ids.shape[1], 3 * config.patch_size ** 2)
        with torch.no_grad(), recording_cos(torch, recorded), contextlib.suppress(Captured):
            model(pixel_values=pixels, pixel_position_ids=ids)
        handle.remove()
        if not torch.equal(seen["positions"], ids):
            raise RuntimeError("the rotary module got other position ids")
        half = recorded[0].shape[-1] // 2  # each axis: cat(freqs, freqs)
        angles = torch.cat([recorded[0][..., :half], recorded[1][..., :half]], dim=-1)
        real = grid[1] * grid[2]
        angles = angles[:, :real].reshape(-1, angles.shape[-1])
        positions = ids[:, :real].reshape(-1, 2)
        cases.append({"grid_thw": list(grid), "positions": positions.tolist(),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        if probe is None:
            n = seen["cos"].shape[1]
            eye = torch.eye(head_dim).reshape(head_dim, 1, 1, head_dim).expand(head_dim, n, 1, head_dim).contiguous()
            cos, sin = seen["cos"][:1], seen["sin"][:1]
            token = grid[2] + 1  # (column 1, row 1)
            probe = probe_layout(torch, lambda d: module.apply_multidimensional_rope(eye, cos, sin, ids[:1], 2)[d, :, 0, :],
                                 head_dim, token)
    return cases, probe


def sweep_kimi(torch, module, config, model, rotary, grids):
    head_dim = config.hidden_size // config.num_attention_heads
    glimmer = hasattr(module, "get_vision_window_index")
    cases, probe = [], None
    for grid in grids:
        recorded, seen = [], {}

        def hook(m, args, out):
            seen["positions"], seen["cos"], seen["sin"] = args[1].detach().clone(), out[0], out[1]
            raise Captured()  # the layers after it read no RoPE input
        handle = rotary.register_forward_hook(hook)
        p = config.patch_size
        n = grid[0] * grid[1] * grid[2]
        pixels = torch.randn(n, config.patch_temporal * 3 * p * p) if glimmer else torch.randn(n, 3, p, p)
        grid_thw = torch.tensor([list(grid)])
        with torch.no_grad(), recording_cos(torch, recorded), contextlib.suppress(Captured):
            model(pixels, grid_thw=grid_thw)
        handle.remove()
        half = recorded[0].shape[-1] // 2  # cat(freqs, freqs) (Muse Glimmer: cat(w, h, w, h))
        angles = recorded[0][:, :half]
        if glimmer:  # back to pixel_values order
            window_index, _ = module.get_vision_window_index(grid_thw, spatial_merge_size=model.spatial_merge_size,
                                                             window_size=model.window_size, patch_size=model.patch_size)
            inverse = torch.argsort(window_index)
            angles, seen["positions"] = angles[inverse], seen["positions"][inverse]
            seen["cos"], seen["sin"] = seen["cos"][inverse], seen["sin"][inverse]
        positions = seen["positions"] if glimmer else seen["positions"].transpose(0, 1)  # (tokens, 2)
        cases.append({"grid_thw": list(grid), "positions": positions.tolist(),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        if probe is None:
            n = angles.shape[0]
            eye = torch.eye(head_dim).reshape(1, head_dim, head_dim).expand(n, head_dim, head_dim).contiguous()
            out = lambda d: module.apply_rotary_pos_emb_vision(eye, eye, seen["cos"], seen["sin"])[0][:, d, :]  # noqa: E731
            probe = probe_layout(torch, out, head_dim, grid[2] + 2)  # row 1, column 2
    return cases, probe


def sweep_step(torch, module, config, model, rotary, grids):
    head_dim = config.hidden_size // config.num_attention_heads
    cases, probe = [], None
    for grid in grids:
        recorded, seen = [], {}

        def hook(m, args, out):
            seen["positions"], seen["cos"], seen["sin"] = args[1].detach().clone(), out[0], out[1]
            raise Captured()  # the layers after it read no RoPE input
        handle = rotary.register_forward_hook(hook)
        p = config.patch_size
        pixels = torch.randn(grid[0], config.num_channels, grid[1] * p, grid[2] * p)
        with torch.no_grad(), recording_cos(torch, recorded), contextlib.suppress(Captured):
            model(pixels)
        handle.remove()
        half = recorded[0].shape[-1] // 2  # cat(freqs, freqs)
        angles = recorded[0].reshape(-1, 2 * half)[:, :half].repeat(grid[0], 1)  # one table for the batch
        positions = seen["positions"].reshape(-1, 2).repeat(grid[0], 1)
        cases.append({"grid_thw": list(grid), "positions": positions.tolist(),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        if probe is None:
            n = grid[1] * grid[2]
            eye = torch.eye(head_dim).reshape(head_dim, 1, 1, head_dim).expand(head_dim, n, 1, head_dim).contiguous()
            out = lambda d: module.apply_rotary_pos_emb_vision(eye, eye, seen["cos"], seen["sin"])[0][d, :, 0, :]  # noqa: E731
            probe = probe_layout(torch, out, head_dim, grid[2] + 2)  # row 1, column 2
    return cases, probe


def sweep_minimax(torch, module, config, model, rotary, grids):
    head_dim = config.hidden_size // config.num_attention_heads
    cases, probe = [], None
    for grid in grids:
        recorded, coords, seen = [], [], {}
        plain = module.get_vision_position_ids

        def wrapped(*a, **k):
            coords.append(plain(*a, **k))
            return coords[-1]

        def hook(m, args, out):
            seen["cos"], seen["sin"] = out[0], out[1]
            raise Captured()  # the layers after it read no RoPE input
        handle = rotary.register_forward_hook(hook)
        n = grid[0] * grid[1] * grid[2]
        pixels = torch.randn(n, config.num_channels * config.temporal_patch_size * config.patch_size ** 2)
        module.get_vision_position_ids = wrapped
        try:
            with torch.no_grad(), recording_cos(torch, recorded), contextlib.suppress(Captured):
                model(pixels, grid_thw=torch.tensor([list(grid)]))
        finally:
            module.get_vision_position_ids = plain
            handle.remove()
        half = recorded[0].shape[-1] // 2  # cat(freqs, freqs)
        angles = recorded[0][:, :half]
        cases.append({"grid_thw": list(grid), "positions": coords[0].tolist(),
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        if probe is None and grid[0] > 1:
            eye = torch.eye(head_dim).reshape(head_dim, 1, 1, head_dim).expand(head_dim, n, 1, head_dim).contiguous()
            out = lambda d: module.apply_rotary_pos_emb_vision(eye, eye, seen["cos"], seen["sin"])[0][d, :, 0, :]  # noqa: E731
            probe = probe_layout(torch, out, head_dim, n - 1)  # the last patch: frame 1, every coordinate non-zero
            probe["case"] = len(cases) - 1
    return cases, probe


def sweep_sam3(torch, module, config, recorded, model):
    head_dim = config.hidden_size // config.num_attention_heads
    q = head_dim // 4
    side = config.image_size // config.patch_size
    windowed, global_ = recorded[0][:, ::2], recorded[1][:, ::2]  # repeat_interleave(2): one angle per pair
    ids = torch.arange(side * side, dtype=torch.float32).reshape(1, side, side, 1)
    slots = module.window_partition(ids, config.window_size)[0].reshape(-1).long()  # window slot -> token id
    per_token = torch.empty_like(windowed.repeat(slots.numel() // windowed.shape[0], 1))
    per_token[slots] = windowed.repeat(slots.numel() // windowed.shape[0], 1)
    rows = lambda a: [[float(f"{x:.9g}") for x in r] for r in a.tolist()]  # noqa: E731
    case = {"grid_thw": [1, side, side], "positions": rows(global_[:, [0, q]]), "angles": rows(global_)}
    rotary = model.layers[1].rotary_emb  # the global layer's module
    n = side * side
    eye = torch.eye(head_dim).reshape(head_dim, 1, 1, 1, head_dim).expand(head_dim, 1, n, 1, head_dim).contiguous()
    cos, sin = rotary.rope_embeddings_cos[:, None, :], rotary.rope_embeddings_sin[:, None, :]
    out = lambda d: module.apply_rotary_pos_emb_2d(eye, eye, cos, sin)[0][d, 0, :, 0, :]  # noqa: E731
    probe = probe_layout(torch, out, head_dim, side + 2)  # row 1, column 2
    return [case], {"window": config.window_size, "positions": rows(per_token[:, [0, q]]), "angles": rows(per_token)}, probe


def sweep_centres(torch, module, config, model, rotary, grids):
    head_dim = config.hidden_size // config.num_attention_heads
    cases, probe = [], None
    for grid in grids:
        p = config.patch_size
        pixels = torch.randn(grid[0], config.num_channels, grid[1] * p, grid[2] * p)
        coords, recorded = [], []
        plain = module.get_patches_center_coordinates

        def wrapped(*a, **k):
            coords.append(plain(*a, **k))
            return coords[-1]
        module.get_patches_center_coordinates = wrapped
        try:
            with torch.no_grad(), recording_cos(torch, recorded):
                cos, sin = rotary(pixels)
        finally:
            module.get_patches_center_coordinates = plain
        embeddings = find_module(model, "embeddings")
        with torch.no_grad():
            prefix = embeddings(pixels).shape[1] - grid[1] * grid[2]
        half = recorded[0].shape[-1] // 2  # cat(angles, angles)
        frame = recorded[0][:, :half]
        angles = torch.cat([torch.zeros(prefix, half), frame]).repeat(grid[0], 1)
        positions = torch.cat([torch.zeros(prefix, 2), coords[0]]).repeat(grid[0], 1)
        cases.append({"grid_thw": list(grid), "positions": [[float(f"{x:.9g}") for x in r] for r in positions.tolist()],
                      "angles": [[float(f"{x:.9g}") for x in row] for row in angles.tolist()]})
        if probe is None:
            n = prefix + grid[1] * grid[2]
            eye = torch.eye(head_dim).reshape(head_dim, 1, 1, head_dim).expand(head_dim, 1, n, head_dim).contiguous()
            out = lambda d: module.apply_rotary_pos_emb(eye, eye, cos, sin)[0][d, 0]  # noqa: E731
            token = prefix + grid[2] + 2  # the patch at row 1, column 2 (column 1 of 6 sits at x = -1/2: angle -pi)
            probe = probe_layout(torch, out, head_dim, token)
            probe["unrotated"] = [t for t in range(n) if all(torch.equal(out(d)[t], eye[d, 0, t]) for d in range(head_dim))]
    return cases, probe


def sweep_own_path(torch, model_type):
    import importlib
    from transformers.models.auto import configuration_auto as auto
    folder, cls_name, rotary_attr, layers_key, overrides = OWN_PATH[model_type]
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    config = auto.CONFIG_MAPPING[model_type](**overrides)
    stored = {k: v for k, v in config.to_dict().items()
              if isinstance(v, (int, float, str, bool, list, dict)) and not k.startswith("_")}
    if model_type != "sam3_vit_model":
        setattr(config, layers_key, 1)
    torch.manual_seed(0)
    built = []
    with recording_cos(torch, built):
        model = getattr(module, cls_name)(config).eval()
    if model_type == "sam3_vit_model":
        cases, windowed, probe = sweep_sam3(torch, module, config, built, model)
        return {"model_type": model_type, "module": f"modeling_{folder}", "model_class": cls_name,
                "rotary_class": "Sam3ViTRotaryEmbedding", "config": stored, "cases": cases, "windowed": windowed,
                "probe": probe}
    rotary = find_module(model, rotary_attr)
    run = {"llama4_vision_model": sweep_llama4, "gemma4_vision": sweep_gemma4,
           "kimi_k25_vision": sweep_kimi, "muse_glimmer_vision": sweep_kimi,
           "step3p5_vision": sweep_step, "minimax_m3_vl_vision": sweep_minimax}.get(model_type, sweep_centres)
    cases, probe = run(torch, module, config, model, rotary, OWN_GRIDS[model_type])
    return {"model_type": model_type, "module": f"modeling_{folder}", "model_class": cls_name,
            "rotary_class": type(rotary).__name__, "config": stored, "cases": cases, "probe": probe}


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
    for model_type in list(TOWERS) + list(OWN_PATH):
        try:
            towers.append(sweep_tower(torch, transformers, model_type) if model_type in TOWERS
                          else sweep_own_path(torch, model_type))
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
