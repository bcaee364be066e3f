# SPDX-License-Identifier: MIT
"""posenc.torch: posenc's exact RoPE angles inside PyTorch models (needs torch).

    RotaryEmbedding.from_config(config)   a drop-in for transformers' per-model rotary modules:
                                          forward(x, position_ids[, layer_type]) -> (cos, sin)
    apply_rope(x, spec, angles, positions)   a differentiable RoPE (torch.autograd.Function; CPU)

Every angle m * theta_i is exact (posenc's C++ reduction modulo 2 pi in double, then the digit
products of OnTheFlyAngles) and cos/sin are rounded once to the output dtype, so the error does not
grow with the position. RotaryEmbedding computes on the tensors' device: on the CPU it gathers rows
of an exact table kept per dtype; elsewhere it gathers rows of OnTheFlyAngles' digit tables kept on
the device and forms their products there, with no host synchronisation (docs/python.md,
"posenc.torch").
"""

import numpy as _np
import torch as _torch

from . import _posenc
from . import apply_rope as _apply_rope_arrays
from ._common import error as _error
from ._common import group_of as _group_of
from ._common import model_rope as _model_rope
from ._common import config_source as _config_source
from ._common import hf_module_layout as _hf_module_layout
from ._common import rows_to_torch as _rows_to_torch

_FLOAT_DTYPES = {_torch.float32: "float32", _torch.float16: "float16", _torch.bfloat16: "bfloat16",
                 _torch.float64: "float64"}
# Rounding once on the device: (significant bits, smallest normal frexp exponent) of the format.
_DIGITS = {_torch.float16: (11, -13), _torch.bfloat16: (8, -125)}
_MAX_POSITION = 2147483647       # the angle source's range, |position| <= 2^31 - 1
_FIRST_TABLE_ROWS = 4096          # the CPU table's first size; it doubles as positions need
_MAX_TABLE_ROWS = 1 << 18         # beyond, the CPU path computes the rows of the call alone


def _dtype_of(x, name):
    if not isinstance(x, _torch.Tensor):
        raise _error(name, type(x).__name__, "must be a torch.Tensor")
    if x.dtype not in _FLOAT_DTYPES:
        raise _error(name + ".dtype", str(x.dtype).replace("torch.", ""), "must be float32, float16, bfloat16 or float64")
    return _FLOAT_DTYPES[x.dtype]


def _check_ids(position_ids, name="position_ids"):
    if not isinstance(position_ids, _torch.Tensor):
        raise _error(name, type(position_ids).__name__, "must be a torch.Tensor of int32 or int64 position ids")
    if position_ids.dtype not in (_torch.int32, _torch.int64):
        raise _error(name + ".dtype", str(position_ids.dtype).replace("torch.", ""), "must be int32 or int64")


def _position_array(position_ids, name="position_ids"):
    """position_ids (an int32/int64 torch.Tensor) as an int64 NumPy array (CPU paths only)."""
    _check_ids(position_ids, name)
    return position_ids.detach().to("cpu", _torch.int64).contiguous().numpy()


def round_to_digits(values, digits, min_exponent):
    """float64 `values` rounded once (to nearest, ties to even) to `digits` significant bits with the
    smallest normal frexp exponent `min_exponent` (bfloat16: 8, -125; float16: 11, -13), as float64
    numbers the narrow format holds exactly. Torch operations only: runs on any device."""
    _, exponent = _torch.frexp(values)
    quantum = _torch.ldexp(_torch.ones_like(values), exponent.clamp(min=min_exponent) - digits)
    return _torch.round(values / quantum) * quantum  # torch.round: ties to even


class RotaryEmbedding(_torch.nn.Module):
    """A drop-in for transformers' rotary embedding modules (LlamaRotaryEmbedding, Gemma3RotaryEmbedding,
    Qwen2VLRotaryEmbedding, Qwen3VLTextRotaryEmbedding, DeepseekV3RotaryEmbedding, CohereRotaryEmbedding,
    ...): forward(x, position_ids[, layer_type]) returns (cos, sin) with transformers' shapes, in x's
    dtype, on x's device (computed on position_ids' device):

      one position per token   position_ids [batch, seq] -> cos, sin [batch, seq, rotary_dim]
      M-RoPE, sections         (Qwen2-VL, Qwen2.5-VL) position_ids [3, batch, seq] -> [3, batch, seq,
                               rotary_dim], row a the table at axis a's positions (the attention
                               picks each pair's axis by mrope_section, as transformers does)
      M-RoPE, interleaved      (Qwen3-VL) position_ids [3, batch, seq] (or [batch, seq], every axis
                               alike) -> [batch, seq, rotary_dim], pair i at its axis's position

    Row layout as the family's module returns it: cat(freqs, freqs) (columns i and i + rotary_dim/2
    hold a cos(m theta_i), a = the attention scaling) for rotate_half models and for DeepSeek-V3,
    GLM and GLM-4, whose attention interleaves afterwards; repeat_interleave(freqs, 2) (columns 2i and
    2i + 1) for Cohere. Each value is the exact one rounded once to x.dtype. Dynamic NTK follows
    transformers' update rule (the table grows with max(position_ids) + 1 beyond the cached length
    and resets below the original one); LongRoPE switches tables by the library's rule
    (LongRopeScaling.past_original_length(max(position_ids) + 1)). Those two read max(position_ids)
    (a host synchronisation on a GPU, as transformers' own modules do); every other type does not.
    """

    def __init__(self, rope, config=None, *, layer_type=None, row_layout=None):
        super().__init__()
        if not isinstance(rope, _posenc.ModelRope):
            raise _error("rope", type(rope).__name__, "must be a posenc.ModelRope (use RotaryEmbedding.from_config)")
        if row_layout is None:
            row_layout = _hf_module_layout(rope, None)
        if row_layout not in ("cat", "repeat_interleave"):
            raise _error("row_layout", repr(row_layout), "must be \"cat\" or \"repeat_interleave\"")
        layout = rope.multi_axis
        if layout is not None and str(layout.kind).split(".")[-1] not in ("sections", "interleaved"):
            raise _error("multi_axis", str(layout.kind).split(".")[-1],
                         "must be M-RoPE sections or interleaved (the text models' layouts)")
        self.rope = rope
        self.config = config
        self.layer_type = layer_type
        self.row_layout = row_layout
        if layer_type is not None:
            rope.group(layer_type)  # posenc.Error listing the groups when there is no such group
        self._dynamic_switch = {}  # dynamic NTK: group name -> its DynamicNtkSwitch (the table in effect)
        self._tables = {}         # (group name, length or None) -> the library's FrequencyTable
        self._rows = {}           # (table key, dtype) -> CPU (cos, sin) tables [rows, R]
        self._levels = {}         # (table key, device) -> (digit tables on the device, bits)
        self._angles = {}         # table key -> OnTheFlyAngles (the CPU angle source)
        self._interleaved_axes = None
        self._dynamic_groups = {g.name for g in rope.groups if isinstance(g.scaling, _posenc.DynamicNtkScaling)}
        self._axis_masks = {}     # (device, width) -> per-axis column masks (interleaved M-RoPE)
        if layout is not None and str(layout.kind).split(".")[-1] == "interleaved":
            self._interleaved_axes = list(layout.pair_axes)
        primary = rope.primary_group()
        self.attention_scaling = primary.attention_factor
        self.rope_type = _posenc.scaling_type_name(primary.scaling)

    @classmethod
    def from_config(cls, config, *, layer_type=None, assume_half_split=False):
        """From a config dict (as config.json), a path, a transformers config (its to_dict()), any
        object with the same attributes, a posenc HfModel or ModelRope. Configs the reader refuses
        raise its posenc.Error with its message; so do families whose rotary module returns a layout
        other than cos/sin rows (Llama 4 and DeepSeek-V2 return complex freqs_cis). layer_type: the
        group forward uses when it is called without one (transformers 4.x Gemma 3 keeps one module
        per layer type)."""
        source = config if isinstance(config, (_posenc.ModelRope, _posenc.HfModel)) else _config_source(config)
        rope = _model_rope(source, assume_half_split=assume_half_split)
        return cls(rope, config, layer_type=layer_type, row_layout=_hf_module_layout(rope, source))

    # ---- the table in effect
    def _length_dependent(self, group):
        return isinstance(group.scaling, (_posenc.DynamicNtkScaling, _posenc.LongRopeScaling))

    def _table(self, group, seq_len):
        """(key, FrequencyTable) in effect for a sequence of seq_len tokens (None: not needed)."""
        scaling = group.scaling
        if isinstance(scaling, _posenc.DynamicNtkScaling):
            # transformers' growth / reset rule, in C++ (posenc/scaling/dynamic_ntk_switch.hpp)
            switch = self._dynamic_switch.get(group.name)
            if switch is None:
                switch = _posenc.DynamicNtkSwitch(group.max_position_embeddings or group.original_length)
                self._dynamic_switch[group.name] = switch
            # n <= 0 (every position negative) is below L as n = 1 is: update(1) takes the same step
            # (for L > 1; at L = 1 transformers would reset, update(1) keeps the table)
            key = (group.name, switch.update(max(seq_len, 1)))
        elif isinstance(scaling, _posenc.LongRopeScaling):
            # the library's switching rule (longrope.hpp): the table for seq_len is the init one up
            # to the original length and one other table (long factors; PhiMoE: its long mscale)
            # at every length past it, so one table serves every length past it
            key = (group.name, "past_original" if scaling.past_original_length(seq_len) else None)
        else:
            key = (group.name, None)
        table = self._tables.get(key)
        if table is None:
            if isinstance(key[1], int):  # dynamic NTK: the table at the switch's length
                table = group.table(key[1])
            else:
                table = group.table(seq_len if key[1] is not None else None)
            self._tables = {k: v for k, v in self._tables.items() if k[0] != group.name}
            self._tables[key] = table
            for cache in (self._rows, self._levels):
                for k in [k for k in cache if k[0][0] == group.name and k[0] != key]:
                    del cache[k]
            self._angles = {k: v for k, v in self._angles.items() if k[0] != group.name or k == key}
        return key, table

    def _angle_source(self, key, table, reach=_MAX_POSITION):
        """OnTheFlyAngles for |position| <= 2^31 - 1: three 11-bit digits, the same digit products
        on the CPU and on any device, so both paths give the same values bit for bit. Dynamic NTK's
        table changes with the length: its digit tables serve the reach a call needs (a few hundred
        rows below 2^16), which costs little to rebuild at every new length."""
        if key[0] not in self._dynamic_groups:
            reach = _MAX_POSITION
        angles = self._angles.get(key)
        if angles is None or angles.max_position < reach:
            angles = _posenc.OnTheFlyAngles(table, max(1, min(reach, _MAX_POSITION)))
            self._angles[key] = angles
        return angles

    def _check_shape(self, position_ids):
        layout = self.rope.multi_axis
        ndim = position_ids.dim()
        if layout is None:
            if ndim != 2:
                raise _error("position_ids.ndim", ndim, "must be 2 ([batch, seq]) for a model without M-RoPE")
            return position_ids
        if ndim == 2:
            position_ids = position_ids.unsqueeze(0).expand(layout.num_axes, -1, -1)
        if position_ids.dim() != 3 or position_ids.shape[0] != layout.num_axes:
            raise _error("position_ids.shape", list(position_ids.shape),
                         "must be [%d, batch, seq] (M-RoPE: one row per axis) or [batch, seq]" % layout.num_axes)
        return position_ids

    def _columns(self, half):
        """Full rows [..., R] in the family's layout from half rows [..., P]."""
        if self.row_layout == "cat":
            return _torch.cat((half, half), dim=-1)
        return _torch.repeat_interleave(half, 2, dim=-1)

    def _pick_axes(self, rows):
        """Interleaved M-RoPE: rows [axes, ..., W] (W = P or R columns) -> [..., W], pair i from
        its axis (columns in the row layout)."""
        width = rows.shape[-1]
        axes = self._interleaved_axes
        if width != len(axes):
            axes = axes + axes if self.row_layout == "cat" else [a for a in axes for _ in (0, 1)]
        masks = self._axis_masks.get((rows.device, width))
        if masks is None:  # made once per device and width: no host copy on later calls (CUDA graphs)
            masks = [_torch.tensor([v == a for v in axes], device=rows.device) for a in range(rows.shape[0])]
            self._axis_masks[(rows.device, width)] = masks
        out = rows[0]
        for a in range(1, rows.shape[0]):
            out = _torch.where(masks[a], rows[a], out)
        return out

    # ---- CPU: an exact table per dtype, gathered by position
    def _cpu_rows(self, key, table, dtype, rows):
        cached = self._rows.get((key, dtype))
        if cached is not None and cached[0].shape[0] >= rows:
            return cached
        n = _FIRST_TABLE_ROWS
        while n < rows:
            n *= 2
        n = min(n, _MAX_TABLE_ROWS)
        angles = self._angle_source(key, table, n - 1)
        positions = _np.arange(n, dtype=_np.int64)[None]
        cos, sin = _posenc._on_the_fly_rows(angles, positions, None, _FLOAT_DTYPES[dtype], "hf")
        cos, sin = _rows_to_torch(cos, dtype), _rows_to_torch(sin, dtype)
        if self.row_layout != "cat":
            p = cos.shape[-1] // 2
            cos, sin = self._columns(cos[:, :p]).contiguous(), self._columns(sin[:, :p]).contiguous()
        self._rows[(key, dtype)] = (cos, sin)
        return cos, sin

    def _grows(self, key, dtype, rows, tokens):
        """Whether a call needing `rows` table rows for `tokens` positions should use (and grow) the
        table: it covers them, or grows by at most a doubling (a decode loop walking forward), or
        the call fills a sixteenth of the new table (a prefill); a few far positions do not build a
        table for themselves."""
        if rows > _MAX_TABLE_ROWS:
            return False
        cached = self._rows.get((key, dtype))
        have = cached[0].shape[0] if cached is not None else 0
        return rows <= max(2 * have, _FIRST_TABLE_ROWS) or 16 * tokens >= rows

    def _cpu_forward(self, key, table, dtype, ids, lowest, highest):
        if lowest >= 0 and self._grows(key, dtype, highest + 1, ids.numel()):
            cos_t, sin_t = self._cpu_rows(key, table, dtype, highest + 1)
            flat = ids.reshape(-1)
            shape = tuple(ids.shape) + (cos_t.shape[-1],)
            cos = cos_t.index_select(0, flat).view(shape)
            sin = sin_t.index_select(0, flat).view(shape)
            if self._interleaved_axes is not None:
                cos, sin = self._pick_axes(cos), self._pick_axes(sin)
            return cos, sin
        # negative or far positions: this call's rows alone, from the C++ angle source
        angles = self._angle_source(key, table, min(max(-lowest, highest), _MAX_POSITION))
        arr = ids.to(_torch.int64).contiguous().numpy()
        axes = self._interleaved_axes
        flat = arr.reshape(arr.shape[0], -1) if axes is not None else arr.reshape(1, -1)
        cos, sin = _posenc._on_the_fly_rows(angles, flat, axes, _FLOAT_DTYPES[dtype], "hf")
        shape = (arr.shape[1:] if axes is not None else arr.shape) + (cos.shape[-1],)
        out = []
        for t in (_rows_to_torch(cos, dtype), _rows_to_torch(sin, dtype)):
            if self.row_layout != "cat":
                t = self._columns(t[:, :t.shape[-1] // 2])
            out.append(t.reshape(shape))
        return out[0], out[1]

    # ---- any device: OnTheFlyAngles' digit tables on the device, no host synchronisation
    def _device_levels(self, key, table, device, reach=_MAX_POSITION):
        """(digit tables on `device`, bits per digit, the largest |position| they serve), uploaded on
        the first call (run one forward before capturing a CUDA graph, as with any module that
        allocates on its first call). reach is 2^31 - 1 unless the caller read the positions."""
        cached = self._levels.get((key, device))
        if cached is None or cached[2] < reach:
            angles = self._angle_source(key, table, reach)
            levels = [_torch.from_numpy(t).to(device) for t in _posenc._on_the_fly_levels(angles)]
            cached = (levels, angles.bits_per_level, angles.max_position)
            self._levels[(key, device)] = cached
        return cached

    def _device_forward(self, key, table, dtype, ids, reach=_MAX_POSITION):
        """Sync-free: digit gathers, complex products in float64, one rounding; CUDA-graph capturable
        once the digit tables are on the device. Positions beyond +-(2^31 - 1) give NaN rows (a refusal
        would need the host to read the positions)."""
        levels, bits, max_position = self._device_levels(key, table, ids.device, reach)
        m = ids.to(_torch.int64)
        magnitude = m.abs()
        beyond = (magnitude > max_position) | (magnitude < 0)  # |-2^63| wraps to itself
        magnitude = _torch.where(beyond, _torch.zeros_like(magnitude), magnitude)
        flat = magnitude.reshape(-1)
        pairs = levels[0].shape[-1] // 2
        row = levels[0].index_select(0, _torch.remainder(flat, 1 << bits))
        c, s = row[:, :pairs], row[:, pairs:]
        for k in range(1, len(levels)):
            digit = _torch.remainder(_torch.div(flat, 1 << (k * bits), rounding_mode="floor"), 1 << bits)
            row = levels[k].index_select(0, digit)
            ck, sk = row[:, :pairs], row[:, pairs:]
            c, s = c * ck - s * sk, s * ck + c * sk
        c = c.reshape(tuple(m.shape) + (pairs,))
        s = s.reshape(tuple(m.shape) + (pairs,))
        s = _torch.where((m < 0).unsqueeze(-1), -s, s)
        nan = _torch.full_like(c, float("nan"))
        c = _torch.where(beyond.unsqueeze(-1), nan, c)
        s = _torch.where(beyond.unsqueeze(-1), nan, s)
        if self._interleaved_axes is not None:
            c, s = self._pick_axes(c), self._pick_axes(s)
        out = []
        for half in (c, s):
            if dtype in _DIGITS:
                half = round_to_digits(half, *_DIGITS[dtype])
            out.append(self._columns(half.to(dtype)))
        return out[0], out[1]

    def forward(self, x, position_ids, layer_type=None):
        """(cos, sin) for position_ids, in x's dtype and on x's device (see the class doc)."""
        _dtype_of(x, "x")
        _check_ids(position_ids)
        group = _group_of(self.rope, layer_type if layer_type is not None else self.layer_type)
        ids = self._check_shape(position_ids)
        if ids.numel() == 0:
            raise _error("position_ids.numel", 0, "must be > 0")
        on_cpu = ids.device.type == "cpu"
        if on_cpu or self._length_dependent(group):
            lowest, highest = (int(v) for v in _torch.aminmax(ids))  # a host read: CPU, or transformers' own rule
        if self._length_dependent(group):
            key, table = self._table(group, highest + 1)
        else:
            key, table = self._table(group, None)
        if on_cpu:
            cos, sin = self._cpu_forward(key, table, x.dtype, ids, lowest, highest)
        elif self._length_dependent(group):  # positions already read: digit tables for their reach
            cos, sin = self._device_forward(key, table, x.dtype, ids, min(max(-lowest, highest), _MAX_POSITION))
        else:
            cos, sin = self._device_forward(key, table, x.dtype, ids)
        if cos.device != x.device:
            cos, sin = cos.to(x.device), sin.to(x.device)
        return cos, sin

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
