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

import os as _os

import numpy as _np

from . import _posenc
from . import _error

LAYOUTS = ("vllm", "flashinfer", "hf")
DTYPES = ("float32", "float16", "bfloat16", "float64")


# ---------------------------------------------------------------- configs
def _attributes(obj, depth=0):
    """An object's public attributes as a dict (nested config objects as dicts): for configs that
    are neither dicts nor have to_dict()."""
    if depth > 64:
        raise _error("config", "object", "is nested more than 64 levels deep")
    out = {}
    for key, value in vars(obj).items():
        if key.startswith("_") or callable(value):
            continue
        if hasattr(value, "__dict__") and not isinstance(value, type):
            value = _attributes(value, depth + 1)
        out[key] = value
    return out


def config_source(config):
    """A config as the reader takes it: a dict or a path as they are; an object with to_dict() (a
    transformers PretrainedConfig) as to_dict(); any other object as its public attributes."""
    if isinstance(config, (dict, str, bytes, _os.PathLike)):
        return config
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if hasattr(config, "__dict__"):
        return _attributes(config)
    raise _error("config", type(config).__name__,
                 "must be a config dict, a path to a config.json, a transformers config or a posenc ModelRope")


def model_rope(config, *, assume_half_split=False):
    """The ModelRope of `config` (a ModelRope, an HfModel, a dict, a path, or a config object),
    read with posenc.model_from_hf_config: refusals are its posenc.Error, with its message."""
    if isinstance(config, _posenc.ModelRope):
        return config
    if isinstance(config, _posenc.HfModel):
        return config.rope
    from . import model_from_hf_config

    return model_from_hf_config(config_source(config), assume_half_split=assume_half_split).rope


def group_of(rope, layer_type):
    """The RopeGroup named `layer_type`, or the only group when layer_type is None."""
    if layer_type is not None:
        return rope.group(layer_type)
    if rope.num_groups != 1:
        names = ", ".join(g.name for g in rope.groups)
        raise _error("layer_type", "None", "must name one of this model's RoPE groups (%s)" % names)
    return rope.groups[0]


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


def _as_tensor(array, name):
    try:
        import torch
    except ImportError:
        raise _error("tensor", "True", "needs PyTorch (Debian python3-torch), which is not installed") from None

    return torch.from_numpy(_np.ascontiguousarray(array)).to(getattr(torch, name))


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
      "hf"          (cos, sin), each [max_positions, rotary_dim], row m = a cos(cat(freqs, freqs))
                    (transformers modeling_llama.py LlamaRotaryEmbedding.forward), in `dtype`.
    a = the group's attention factor (YaRN's mscale, LongRoPE's factor, else 1), folded in as the
    engines do.

    config           a config dict (as config.json), a path, a transformers config, a ModelRope or an
                     HfModel; refusals are the config reader's posenc.Error.
    dtype            "float32" (default), "float16", "bfloat16" (needs tensor=True), "float64", or a
                     NumPy / torch dtype. Each entry is rounded once from the exact double value.
    layer_type       the RoPE group for models with several (Gemma 3: "full_attention",
                     "sliding_attention"); required then.
    sequence_length  the table in effect for that many tokens (dynamic NTK, LongRoPE); None: the
                     table at init, as the engines build it.
    tensor           return torch tensors instead of NumPy arrays (needs torch).
    Positions up to 2^31 - 1 are served; a table holds at most 2^31 entries.
    """
    if layout not in LAYOUTS:
        raise _error("layout", repr(layout), "must be one of \"vllm\", \"flashinfer\", \"hf\"")
    name = _dtype_name(dtype)
    if layout == "flashinfer" and name != "float32":
        raise _error("dtype", name, "must be float32 for layout \"flashinfer\" (FlashInfer reads a float32 cos_sin_cache)")
    if name == "bfloat16" and not tensor:
        raise _error("dtype", name, "needs tensor=True (NumPy has no bfloat16)")
    for arg, value in (("max_positions", max_positions), ("first_position", first_position)):
        if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
            raise _error(arg, repr(value), "must be an int")
    group = group_of(model_rope(config, assume_half_split=assume_half_split), layer_type)
    table = group.table(sequence_length)
    raw = _posenc._export_cos_sin(table, int(max_positions), int(first_position), layout)
    parts = raw if isinstance(raw, tuple) else (raw,)
    out = tuple(round_once(p, name) for p in parts)
    if tensor:
        out = tuple(_as_tensor(p, name) for p in out)
    return out if layout == "hf" else out[0]


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
