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

import sys as _sys

from . import _posenc
from ._posenc import *  # noqa: F401,F403  (the native API)
from ._posenc import encodings, presets, Error

__version__ = _posenc.version

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
        raise Error("%s.device %s must be cpu (posenc.apply_rope runs on CPU tensors)" % (name, x.device.type))
    x = x.detach()
    if x.dtype == torch.bfloat16:
        # NumPy has no bfloat16: the same 2-byte elements as int16 bits (a view, no copy).
        return x.view(torch.int16).numpy(), "bfloat16"
    if x.dtype in (torch.float32, torch.float16, torch.float64):
        return x.numpy(), None
    raise Error("%s.dtype %s must be float32, float16, bfloat16 or float64" % (name, str(x.dtype).replace("torch.", "")))


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
            raise Error("dtype '%s' does not match the tensors' %s" % (dtype, detected))
        dtype = detected
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(positions, tensor_type):
        positions = positions.detach().cpu().numpy()
    _posenc._apply_rope(spec, angles, arrays["q"], arrays["k"], positions, arrays["q_out"], arrays["k_out"],
                        direction, dtype, layout)
    if k is None:
        return q if q_out is None else q_out
    return (q, k) if q_out is None else (q_out, k_out)
