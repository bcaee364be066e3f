# SPDX-License-Identifier: MIT
"""posenc.export: RoPE tables in the layouts inference engines load, from exactly reduced angles.

    cos_sin_cache(config, max_positions, layout="vllm", dtype="float32")
    rope_freqs(config)

Every cos/sin entry is a*cos(m theta_i) or a*sin(m theta_i) (a = the attention factor) computed by
posenc's C++ code (m theta_i reduced exactly modulo 2 pi in double, error < 5e-15) and rounded
once to the requested dtype, so it is within half an ulp of that dtype at every position up to
2^31 - 1. docs/export.md lists each layout, its source file in the engine, and the measured error
of the engine's own float table beside posenc's.
"""

import numpy as _np

from . import _posenc
from ._common import error as _error

LAYOUTS = ("vllm", "flashinfer", "hf")
DTYPES = ("float32", "float16", "bfloat16", "float64")


# ---------------------------------------------------------------- configs (posenc/_common.py)
# Public here as before; defined once in the private module posenc.torch shares.
from ._common import config_source, group_of, hf_module_layout, model_rope, rows_to_torch  # noqa: E402,F401


# ---------------------------------------------------------------- rounding once
def _dtype_name(dtype):
    """'float32', 'float16', 'bfloat16' or 'float64' from a name, a NumPy dtype or a torch dtype."""
    name = str(dtype).replace("torch.", "")
    if name in ("float", "half", "double"):
        name = {"float": "float32", "half": "float16", "double": "float64"}[name]
    if name not in DTYPES:
        try:
            name = _np.dtype(dtype).name
        except TypeError:
            pass
    if name not in DTYPES:
        raise _error("dtype", repr(dtype), "must be one of float32, float16, bfloat16, float64")
    return name


def round_once(values, dtype):
    """float64 `values` rounded once (to nearest, ties to even) to `dtype`: a NumPy array of that
    dtype, except bfloat16 (NumPy has none): float64 values that are bfloat16 numbers, which a
    torch .to(torch.bfloat16) then converts exactly."""
    name = _dtype_name(dtype)
    values = _np.asarray(values, dtype=_np.float64)
    if name == "float64":
        return values
    if name in ("float32", "float16"):
        return values.astype(name)  # NumPy rounds from double directly (no float32 step for float16)
    # bfloat16: 8 significant bits, exponent range of float32 (normal from 2^-126).
    _, exponent = _np.frexp(values)
    quantum = _np.ldexp(1.0, _np.maximum(exponent, -125) - 8)
    return _np.rint(values / quantum) * quantum


def _torch_dtype(name):
    try:
        import torch
    except ImportError:
        raise _error("tensor", "True", "needs PyTorch (Debian python3-torch), which is not installed") from None
    return getattr(torch, name)


def _as_tensor(array, name):
    torch_dtype = _torch_dtype(name)
    array = _np.ascontiguousarray(array)
    if array.dtype in (_np.uint16, _np.float16):  # 16-bit storage from the C++ rows
        return rows_to_torch(array.view(_np.uint16), torch_dtype)
    return rows_to_torch(array, torch_dtype).to(torch_dtype)


def _is_torch_dtype(dtype):
    return type(dtype).__module__ == "torch" and type(dtype).__name__ == "dtype"


# ---------------------------------------------------------------- exporters
def cos_sin_cache(config, max_positions, layout="vllm", dtype="float32", *, layer_type=None,
                  sequence_length=None, first_position=0, tensor=False, assume_half_split=False):
    """cos/sin of positions first_position .. first_position + max_positions - 1 in an engine's layout.

    layout
      "vllm"        [max_positions, rotary_dim]: row m = [a cos(m theta_i) for every pair i |
                    a sin(m theta_i) for every pair i] (vLLM rotary_embedding/base.py,
                    _compute_cos_sin_cache: cat((cos, sin), -1)), in `dtype`.
      "flashinfer"  the same layout in float32 (flashinfer/rope.py apply_rope_with_cos_sin_cache);
                    dtype must be float32.
      "hf"          (cos, sin) as transformers' rotary module returns them for position_ids
                    [[first_position, ..]]: each [1, max_positions, rotary_dim] ([3, 1, max_positions,
                    rotary_dim] for M-RoPE with sections, Qwen2-VL / Qwen2.5-VL: every axis at the
                    same text positions), row m = a cos(cat(freqs, freqs)) (transformers
                    modeling_llama.py LlamaRotaryEmbedding.forward; Cohere: repeat_interleave), in
                    `dtype`. Interleaved-pair families whose module returns no such rows are refused.
    a = the group's attention factor (YaRN's mscale, LongRoPE's factor, else 1), folded in as the
    engines do.

    config           a config dict (as config.json), a path, a transformers config, a ModelRope or an
                     HfModel; refusals are the config reader's posenc.Error.
    dtype            "float32" (default), "float16", "bfloat16", "float64", or a NumPy / torch
                     dtype. A torch dtype gives torch tensors; "bfloat16" as a name needs
                     tensor=True (NumPy has no bfloat16). Each entry is rounded once from the exact
                     double value.
    layer_type       the RoPE group for models with several (Gemma 3: "full_attention",
                     "sliding_attention"); required then.
    sequence_length  the table in effect for that many tokens (dynamic NTK, LongRoPE). None: the
                     table at init, except for LongRoPE, whose table follows the length rule for a
                     sequence of first_position + max_positions tokens (LongRopeScaling: the long
                     factors past original_max_position_embeddings; PhiMoE: its mscale there), as
                     the runtime that reads rows past the original length uses it.
    tensor           return torch tensors instead of NumPy arrays (needs torch).
    Positions up to 2^31 - 1 are served; a table holds at most 2^31 entries.
    """
    if layout not in LAYOUTS:
        raise _error("layout", repr(layout), "must be one of \"vllm\", \"flashinfer\", \"hf\"")
    name = _dtype_name(dtype)
    if _is_torch_dtype(dtype):
        tensor = True
    if layout == "flashinfer" and name != "float32":
        raise _error("dtype", name, "must be float32 for layout \"flashinfer\" (FlashInfer reads a float32 cos_sin_cache)")
    if name == "bfloat16" and not tensor:
        raise _error("dtype", name, "needs tensor=True or dtype=torch.bfloat16 (NumPy has no bfloat16)")
    for arg, value in (("max_positions", max_positions), ("first_position", first_position)):
        if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
            raise _error(arg, repr(value), "must be an int")
    max_positions, first_position = int(max_positions), int(first_position)
    source = config if isinstance(config, (_posenc.ModelRope, _posenc.HfModel)) else config_source(config)
    rope = model_rope(source, assume_half_split=assume_half_split)
    row_layout = hf_module_layout(rope, source) if layout == "hf" else "cat"
    group = group_of(rope, layer_type)
    if sequence_length is None and isinstance(group.scaling, _posenc.LongRopeScaling):
        sequence_length = first_position + max_positions
    table = group.table(sequence_length)
    _posenc._require_export_rows(table, max_positions, first_position)
    # OnTheFlyAngles' digit products (double, error < 3 * 6e-15 a), rounded once to the dtype
    angles = _posenc.OnTheFlyAngles(table, max(1, first_position + max_positions - 1))
    positions = _np.arange(first_position, first_position + max_positions, dtype=_np.int64)[None]
    raw = _posenc._on_the_fly_rows(angles, positions, None, name, "vllm" if layout != "hf" else "hf")
    parts = raw if isinstance(raw, tuple) else (raw,)
    if layout == "hf" and row_layout != "cat":
        half = parts[0].shape[-1] // 2
        parts = tuple(_np.repeat(p[:, :half], 2, axis=-1) for p in parts)
    if name == "float16":
        parts = tuple(p.view(_np.float16) for p in parts)
    if tensor:
        parts = tuple(_as_tensor(p, name) for p in parts)
    if layout != "hf":
        return parts[0]
    sections = rope.multi_axis is not None and str(rope.multi_axis.kind).split(".")[-1] == "sections"
    shape = ((3,) if sections else ()) + (1,) + parts[0].shape
    if sections:
        shape = (rope.multi_axis.num_axes,) + shape[1:]
    if tensor:
        return tuple(p.unsqueeze(0).expand(shape).contiguous() if sections else p.reshape(shape) for p in parts)
    return tuple(_np.broadcast_to(p, shape).copy() if sections else p.reshape(shape) for p in parts)


def rope_freqs(config, *, layer_type=None, tensor=False, assume_half_split=False):
    """The per-pair factor tensors a GGUF conversion stores (llama.cpp convert_hf_to_gguf.py), as
    {name: float32 array of rotary_dim / 2}:

      llama3    {"rope_freqs": f}, f_i = theta_i / theta'_i: 1 for wavelengths below L0 /
                high_freq_factor, factor above L0 / low_freq_factor, 1 / ((1 - m_i) / factor + m_i)
                between, m_i = (L0 / wavelength_i - low_freq_factor) / (high_freq_factor - low_freq_factor)
      longrope  {"rope_factors_long": long_factor, "rope_factors_short": short_factor}

    llama.cpp divides each pair's frequency by the factor it reads. Other rope types have no factor
    tensor: posenc.Error naming the rope type.
    """
    group = group_of(model_rope(config, assume_half_split=assume_half_split), layer_type)
    out = _posenc.gguf_rope_factors(group.spec, group.scaling)
    if tensor:
        out = {k: _as_tensor(v, "float32") for k, v in out.items()}
    return out
