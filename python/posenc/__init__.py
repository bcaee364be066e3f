# SPDX-License-Identifier: MIT
"""posenc: positional-encoding math (RoPE and everything around it) from Python.

The native module (posenc._posenc, pybind11) holds everything computational: RopeSpec and
FrequencyTable (theta_i = base^(-2i/R)), the context-extension methods (PI, NTK-aware, dynamic
NTK, YaRN, Llama 3, LongRoPE), the long-context lesson's per-pair diagnostics, the bounds of
RoFormer, Position Interpolation and Men et al., the classic encodings (posenc.encodings), the
presets (posenc.presets), the Hugging Face config reader (from_hf_config) and apply_rope, the
SIMD kernels on NumPy arrays and PyTorch CPU tensors. Every refusal is a posenc.Error.

    >>> import posenc
    >>> posenc.frequency_table(posenc.presets.qwen3_8b()).count_without_full_turn(32768)
    24
"""

import math as _math
import os as _os
import sys as _sys

from . import _posenc
from . import _keywords

# One-line TypeErrors with a did-you-mean for calls no native overload takes (posenc/_keywords.py),
# installed before the names are re-exported below.
_keywords.install(_posenc)
from ._posenc import *  # noqa: F401,F403  (the native API)
from ._posenc import encodings, presets, Error

__version__ = _posenc.version


from ._common import error as _error  # noqa: E402  (posenc.Error raised from Python)


def _cut(text, width=57):
    return text if len(text) <= width else text[:width] + "..."


# ---------------------------------------------------------------- the config reader's inputs
#
# The native reader takes text. A dict is turned into JSON here, and a path read here, so that
# what JSON cannot carry or a file that is not a config is refused with the key path or the path,
# as posenc.Error, before the reader sees it (never a TypeError, RecursionError or a read that
# blocks).

_MAX_CONFIG_DEPTH = 64               # as the native reader: deeper JSON is refused


def _config_error(key, rule, got):
    return _error(key, got, rule, "%s: %s, got %s" % (key, rule, got))


def _json_ready(value, key, depth):
    """`value` (a config dict's entry at `key`) as plain JSON data: dicts with str keys, lists,
    str, int, finite float, bool, None. NumPy scalars and arrays become their Python values."""
    if depth > _MAX_CONFIG_DEPTH:
        raise _config_error("config", "expected JSON nested at most %d levels deep" % _MAX_CONFIG_DEPTH,
                            "deeper nesting")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _config_error(key, "expected a string of Unicode characters (no lone surrogates)",
                                _cut(ascii(value))) from None
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not _math.isfinite(value):
            raise _config_error(key, "expected a finite number", repr(float(value)))
        return float(value)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _config_error(key, "expected string keys", _cut(repr(k)))
            out[k] = _json_ready(v, k if key == "config" else key + "." + k, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_json_ready(v, "%s[%d]" % (key, i), depth + 1) for i, v in enumerate(value)]
    numpy = _sys.modules.get("numpy")
    if numpy is not None and isinstance(value, (numpy.generic, numpy.ndarray)):
        if isinstance(value, numpy.ndarray) and value.ndim > _MAX_CONFIG_DEPTH:
            raise _config_error("config", "expected JSON nested at most %d levels deep" % _MAX_CONFIG_DEPTH,
                                "deeper nesting")
        plain = value.tolist()
        if isinstance(plain, type(value)):  # no Python equivalent (e.g. datetime64)
            raise _config_error(key, "expected a JSON value (dict, list, str, int, float, bool or None)",
                                _cut(repr(value)))
        return _json_ready(plain, key, depth)
    raise _config_error(key, "expected a JSON value (dict, list, str, int, float, bool or None)",
                        "%s %s" % (type(value).__name__, _cut(repr(value), 40)))


def _config_json(source):
    import json

    return json.dumps(_json_ready(source, "config", 0), allow_nan=False)


def _read_config_file(source):
    """The bytes of the config file at `source` (str, bytes or os.PathLike): the native
    posenc::hf::read_config_file (the library's, posenc-inspect's and this module's one set of
    file checks), naming the path as the file system decodes it."""
    path = _os.fsencode(_os.fspath(source))
    shown = _os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")
    return _posenc._read_config_file(path, shown.replace("\0", "\\x00"))


def _refuse_nul(text, where):
    nul = text.find(b"\0" if isinstance(text, bytes) else "\0")
    if nul >= 0:
        raise _error(where, "text", "holds a NUL byte at offset %d" % nul,
                     "%s: holds a NUL byte at offset %d; a JSON config is text without NUL bytes" % (where, nul))


def _config_text(source):
    """JSON text (str or bytes) for the native reader, from a dict or a path."""
    if isinstance(source, dict):
        return _config_json(source)
    return _read_config_file(source)


def from_hf_config(source, *, assume_half_split=False):
    return _posenc.parse_hf_config(_config_text(source), assume_half_split=assume_half_split)


def model_from_hf_config(source, *, assume_half_split=False):
    return _posenc.parse_hf_model(_config_text(source), assume_half_split=assume_half_split)


def parse_hf_config(text, *, assume_half_split=False):
    if isinstance(text, (str, bytes)):
        _refuse_nul(text, "config")
    return _posenc.parse_hf_config(text, assume_half_split=assume_half_split)


def parse_hf_model(text, *, assume_half_split=False):
    if isinstance(text, (str, bytes)):
        _refuse_nul(text, "config")
    return _posenc.parse_hf_model(text, assume_half_split=assume_half_split)


def vision_tower_from_hf_config(source):
    """The vision tower of a config.json (a path or a dict): posenc.parse_vision_tower on its text."""
    return _posenc.parse_vision_tower(_config_text(source))


def audio_tower_from_hf_config(source):
    """The audio tower of a config.json (a path or a dict): posenc.parse_audio_tower on its text."""
    return _posenc.parse_audio_tower(_config_text(source))


for _name in ("from_hf_config", "model_from_hf_config", "parse_hf_config", "parse_hf_model"):
    globals()[_name].__doc__ = getattr(_posenc, _name).__doc__
del _name

# `import posenc.presets` and `from posenc.encodings import ...` work like ordinary submodules.
_sys.modules[__name__ + ".presets"] = presets
_sys.modules[__name__ + ".encodings"] = encodings


def _torch_tensor_type():
    torch = _sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def _as_array(x, name):
    """(NumPy view sharing x's memory, dtype name or None) for a NumPy array or a CPU torch.Tensor."""
    tensor_type = _torch_tensor_type()
    if tensor_type is None or not isinstance(x, tensor_type):
        return x, None
    import torch

    if x.device.type != "cpu":
        raise _error(name + ".device", x.device.type, "must be cpu (posenc.apply_rope runs on CPU tensors)")
    if x.layout != torch.strided:
        raise _error(name + ".layout", str(x.layout).replace("torch.", ""),
                     "must be strided (a dense tensor; sparse and other layouts have no strides to share)")
    x = x.detach()
    if x.dtype == torch.bfloat16:
        # NumPy has no bfloat16: the same 2-byte elements as int16 bits (a view, no copy).
        x, kind = x.view(torch.int16), "bfloat16"
    elif x.dtype in (torch.float32, torch.float16, torch.float64):
        kind = None
    else:
        raise _error(name + ".dtype", str(x.dtype).replace("torch.", ""), "must be float32, float16, bfloat16 or float64")
    try:
        return x.numpy(), kind
    except (RuntimeError, TypeError) as e:  # a conjugate or negative view, ...: no NumPy view of it
        raise _error(name, "tensor", "must be a tensor NumPy can view without a copy (%s)" % str(e).split("\n")[0]) from None


def apply_rope(spec, angles, q, k=None, positions=0, *, q_out=None, k_out=None, direction="forward", dtype=None,
               layout="thd"):
    """Rotate q (and k) by RoPE with posenc's SIMD kernels, zero-copy, GIL released.

    For every pair (a, b) of a head at position m, with (c, s) = a_f (cos, sin)(m theta_i)
    (a_f = the table's attention factor; RoFormer eq. 34, Hugging Face x*cos + rotate_half(x)*sin):

        forward   a' = a c - b s      b' = b c + a s
        inverse   a' = a c + b s      b' = b c - a s

    The first spec.rotary_dim dims of each head rotate (pairs placed by spec.pairing), the rest pass
    through (untouched in place, copied out of place). cos/sin come from exactly reduced double
    angles rounded once to float32, so the error does not grow with the position (at 1e6 it is
    ~1e-7 |x|, where float32 angles as in PyTorch are off by up to 0.03 rad).

    Arguments:
      spec       RopeSpec (head_dim must be the arrays' last dimension).
      angles     CosSinCache, OnTheFlyAngles, or a FrequencyTable (OnTheFlyAngles built for the call).
      q, k       NumPy arrays or CPU torch.Tensors, [tokens, head_dim], [tokens, heads, head_dim]
                 (layout 'thd') or [heads, tokens, head_dim] (layout 'htd'), or a batch of those
                 ([batch, ...]). Strides are taken from the array; the last axis must be unit-stride.
                 k may have another head count (grouped-query attention).
      positions  an int (token t at positions + t) or int32/int64 ids of [tokens] ([batch, tokens]
                 for a batch).
      q_out, k_out  outputs for an out-of-place call (same shapes; both when k is given); in place
                 when omitted.
      direction  'forward' or 'inverse' (Direction).
      dtype      'bfloat16' for bfloat16 data passed as uint16/int16 bits (NumPy has no bfloat16);
                 otherwise the arrays' dtype (float32, float16, float64 = the double reference path).
                 torch.bfloat16 tensors are handled for you (a .view(torch.int16) of the same memory).

    Returns q (or q_out), or (q, k) / (q_out, k_out) when k is given: the objects passed in.
    Raises posenc.Error for what the kernels cannot take (wrong head_dim, overlapping outputs,
    non-unit inner stride, read-only outputs, positions beyond the angle source, ...).
    """
    arrays = {}
    detected = None
    for name, value in (("q", q), ("k", k), ("q_out", q_out), ("k_out", k_out)):
        if value is None:
            arrays[name] = None
            continue
        array, kind = _as_array(value, name)
        arrays[name] = array
        detected = detected or kind
    if detected is not None:
        if dtype is not None and dtype != detected:
            raise _error("dtype", repr(dtype), "does not match the tensors' %s" % detected)
        dtype = detected
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(positions, tensor_type):
        if positions.layout != _sys.modules["torch"].strided:
            raise _error("positions.layout", str(positions.layout).replace("torch.", ""), "must be strided (a dense tensor)")
        positions = positions.detach().cpu()
        positions = positions.item() if positions.dim() == 0 and not positions.is_floating_point() else positions.numpy()
    _posenc._apply_rope(spec, angles, arrays["q"], arrays["k"], positions, arrays["q_out"], arrays["k_out"],
                        direction, dtype, layout)
    if k is None:
        return q if q_out is None else q_out
    return (q, k) if q_out is None else (q_out, k_out)

# A keyword the package's own Python functions do not take: one line with the nearest one, as
# for the native functions (posenc/_keywords.py).
for _name in ("from_hf_config", "model_from_hf_config", "parse_hf_config", "parse_hf_model",
              "vision_tower_from_hf_config", "apply_rope"):
    globals()[_name] = _keywords.python_function(globals()[_name])
del _name

# posenc.export (NumPy only) is always there; posenc.torch is imported on demand (it needs torch).
from . import export  # noqa: E402,F401
