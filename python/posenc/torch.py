# SPDX-License-Identifier: MIT
"""posenc.torch: posenc's exact RoPE angles inside PyTorch models (needs torch; CPU tensors).

    RotaryEmbedding.from_config(config)   a drop-in for transformers' per-model rotary modules:
                                          forward(x, position_ids[, layer_type]) -> (cos, sin)
    apply_rope(x, spec, angles, positions)   a differentiable RoPE (torch.autograd.Function)

Both compute every angle m * theta_i exactly (posenc's C++ reduction modulo 2 pi in double) and
round once to the output dtype, so the error does not grow with the position. Tables are built on
the CPU and moved to x's device (docs/python.md, "posenc.torch").
"""

import numpy as _np
import torch as _torch

from . import _posenc
from . import _error
from . import apply_rope as _apply_rope_arrays
from .export import group_of as _group_of
from .export import model_rope as _model_rope
from .export import round_once as _round_once

_FLOAT_DTYPES = {_torch.float32: "float32", _torch.float16: "float16", _torch.bfloat16: "bfloat16",
                 _torch.float64: "float64"}


def _dtype_of(x, name):
    if not isinstance(x, _torch.Tensor):
        raise _error(name, type(x).__name__, "must be a torch.Tensor")
    if x.dtype not in _FLOAT_DTYPES:
        raise _error(name + ".dtype", str(x.dtype).replace("torch.", ""), "must be float32, float16, bfloat16 or float64")
    return _FLOAT_DTYPES[x.dtype]


def _position_array(position_ids, name="position_ids"):
    """position_ids (an int32/int64 torch.Tensor on any device) as an int64 NumPy array."""
    if not isinstance(position_ids, _torch.Tensor):
        raise _error(name, type(position_ids).__name__, "must be a torch.Tensor of int32 or int64 position ids")
    if position_ids.dtype not in (_torch.int32, _torch.int64):
        raise _error(name + ".dtype", str(position_ids.dtype).replace("torch.", ""), "must be int32 or int64")
    return position_ids.detach().to("cpu", _torch.int64).contiguous().numpy()


class RotaryEmbedding(_torch.nn.Module):
    """A drop-in for transformers' rotary embedding modules (LlamaRotaryEmbedding, Gemma3RotaryEmbedding,
    Qwen2VLRotaryEmbedding, Qwen3VLTextRotaryEmbedding, ...): forward(x, position_ids[, layer_type])
    returns (cos, sin) with transformers' shapes, in x's dtype, on x's device:

      one position per token   position_ids [batch, seq] -> cos, sin [batch, seq, rotary_dim]
      M-RoPE, sections         (Qwen2-VL, Qwen2.5-VL) position_ids [3, batch, seq] -> [3, batch, seq,
                               rotary_dim], row a the table at axis a's positions (the attention
                               picks each pair's axis by mrope_section, as transformers does)
      M-RoPE, interleaved      (Qwen3-VL) position_ids [3, batch, seq] (or [batch, seq], every axis
                               alike) -> [batch, seq, rotary_dim], pair i at its axis's position

    Row layout cat(freqs, freqs): columns i and i + rotary_dim/2 hold a cos(m theta_i) (a = the
    attention scaling, folded in), half-split pairs as transformers' rotate_half expects. Each value
    is the exact one rounded once to x.dtype. Dynamic NTK follows transformers' update rule (the
    table grows with max(position_ids) + 1 beyond the cached length and resets below the original
    one); LongRoPE uses the long factors when max(position_ids) + 1 exceeds the original length.
    """

    def __init__(self, rope, config=None, *, layer_type=None):
        super().__init__()
        if not isinstance(rope, _posenc.ModelRope):
            raise _error("rope", type(rope).__name__, "must be a posenc.ModelRope (use RotaryEmbedding.from_config)")
        for g in rope.groups:
            if str(g.spec.pairing).split(".")[-1] != "half_split":
                raise _error("pairing", "\"interleaved\"",
                             "is not served: transformers' rotary modules for interleaved-pair models return "
                             "model-specific layouts; use posenc.apply_rope (group \"%s\")" % g.name)
        layout = rope.multi_axis
        if layout is not None and str(layout.kind).split(".")[-1] not in ("sections", "interleaved"):
            raise _error("multi_axis", str(layout.kind).split(".")[-1],
                         "must be M-RoPE sections or interleaved (the text models' layouts)")
        self.rope = rope
        self.config = config
        self.layer_type = layer_type
        if layer_type is not None:
            rope.group(layer_type)  # posenc.Error listing the groups when there is no such group
        self._cached_length = {}  # dynamic NTK: group name -> the length its current table serves
        self._tables = {}
        primary = rope.primary_group()
        self.attention_scaling = primary.attention_factor
        self.rope_type = _posenc.scaling_type_name(primary.scaling)

    @classmethod
    def from_config(cls, config, *, layer_type=None, assume_half_split=False):
        """From a config dict (as config.json), a path, a transformers config (its to_dict()), any
        object with the same attributes, a posenc HfModel or ModelRope. Configs the reader refuses
        raise its posenc.Error with its message. layer_type: the group forward uses when it is
        called without one (transformers 4.x Gemma 3 keeps one module per layer type)."""
        return cls(_model_rope(config, assume_half_split=assume_half_split), config, layer_type=layer_type)

    # ---- the table in effect
    def _table(self, group, seq_len):
        scaling = group.scaling
        if isinstance(scaling, _posenc.DynamicNtkScaling):
            original = group.max_position_embeddings or group.original_length
            cached = self._cached_length.get(group.name, original)
            if seq_len > cached:
                cached = seq_len
            if seq_len < original and cached > original:
                cached = original
            self._cached_length[group.name] = cached
            key = (group.name, cached if cached > original else None)
        elif isinstance(scaling, _posenc.LongRopeScaling):
            key = (group.name, seq_len if seq_len > group.original_length else None)
        else:
            key = (group.name, None)
        table = self._tables.get(key)
        if table is None:
            table = group.table(key[1])
            self._tables = {k: v for k, v in self._tables.items() if k[0] != group.name}
            self._tables[key] = table
        return table

    def _positions(self, position_ids):
        ids = _position_array(position_ids)
        layout = self.rope.multi_axis
        if layout is None:
            if ids.ndim != 2:
                raise _error("position_ids.ndim", ids.ndim, "must be 2 ([batch, seq]) for a model without M-RoPE")
            return ids, None
        if ids.ndim == 2:
            ids = _np.broadcast_to(ids, (layout.num_axes,) + ids.shape)
        if ids.ndim != 3 or ids.shape[0] != layout.num_axes:
            raise _error("position_ids.shape", list(ids.shape),
                         "must be [%d, batch, seq] (M-RoPE: one row per axis) or [batch, seq]" % layout.num_axes)
        return ids, layout

    def forward(self, x, position_ids, layer_type=None):
        """(cos, sin) for position_ids, in x's dtype and on x's device (see the class doc)."""
        dtype = _dtype_of(x, "x")
        group = _group_of(self.rope, layer_type if layer_type is not None else self.layer_type)
        ids, layout = self._positions(position_ids)
        if ids.size == 0:
            raise _error("position_ids.numel", 0, "must be > 0")
        table = self._table(group, int(ids.max()) + 1)
        if layout is not None and str(layout.kind).split(".")[-1] == "interleaved":
            flat = ids.reshape(ids.shape[0], -1)
            cos, sin = _posenc._exact_cos_sin_rows(table, flat, list(layout.pair_axes))
            shape = ids.shape[1:]
        else:  # one axis, or M-RoPE sections: every row of position_ids on its own
            cos, sin = _posenc._exact_cos_sin_rows(table, ids.reshape(1, -1))
            shape = ids.shape
        out = []
        for half in (cos, sin):
            full = _np.concatenate((half, half), axis=-1).reshape(tuple(shape) + (2 * half.shape[-1],))
            rounded = _round_once(full, dtype)
            out.append(_torch.from_numpy(_np.ascontiguousarray(rounded)).to(x.dtype).to(x.device))
        return out[0], out[1]

    def extra_repr(self):
        return "groups=%s, rope_type=%s" % ([g.name for g in self.rope.groups], self.rope_type)


# ---------------------------------------------------------------- differentiable apply
class ApplyRope(_torch.autograd.Function):
    """y = RoPE(x) with posenc's kernels; the gradient is the inverse rotation of the incoming one
    (the rotation is a * R(m theta) with R orthogonal, so dL/dx = a * R(m theta)^T dL/dy exactly)."""

    @staticmethod
    def forward(ctx, x, spec, angles, positions, layout):
        ctx.spec, ctx.angles, ctx.positions, ctx.layout = spec, angles, positions, layout
        out = _torch.empty_like(x, memory_format=_torch.contiguous_format)
        _apply_rope_arrays(spec, angles, x.detach(), positions=positions, q_out=out, layout=layout)
        return out

    @staticmethod
    @_torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        grad = grad.contiguous()
        out = _torch.empty_like(grad)
        _apply_rope_arrays(ctx.spec, ctx.angles, grad, positions=ctx.positions, q_out=out,
                           direction="inverse", layout=ctx.layout)
        return out, None, None, None, None


def apply_rope(x, spec, angles, positions=0, *, layout="thd"):
    """RoPE of x, differentiable: forward with posenc's kernels (exact angles rounded once to
    float32, or the double path for float64), backward the exact inverse rotation of the gradient.

      x          a CPU tensor, float32 / float16 / bfloat16 / float64, [seq, heads, head_dim] or
                 [batch, seq, heads, head_dim] (layout "thd", default), or [heads, seq, head_dim] /
                 [batch, heads, seq, head_dim] (layout "htd", transformers' q and k)
      spec       posenc.RopeSpec (head_dim = x's last dimension)
      angles     a FrequencyTable, CosSinCache or OnTheFlyAngles
      positions  an int (token t at positions + t), or int32/int64 ids [seq] or [batch, seq]
    Returns a new tensor; x is not modified. Raises posenc.Error naming the argument for a wrong
    dtype, device or shape.
    """
    _dtype_of(x, "x")
    if x.device.type != "cpu":
        raise _error("x.device", x.device.type, "must be cpu (posenc.torch.apply_rope runs on CPU tensors)")
    if x.dim() not in (3, 4):
        raise _error("x.ndim", x.dim(), "must be 3 ([seq, heads, head_dim]) or 4 ([batch, seq, heads, head_dim])")
    if x.shape[-1] != spec.head_dim:
        raise _error("x.shape[-1]", x.shape[-1], "must equal spec.head_dim %d" % spec.head_dim)
    if isinstance(positions, _torch.Tensor):
        positions = _position_array(positions, "positions")
    return ApplyRope.apply(x, spec, angles, positions, layout)
