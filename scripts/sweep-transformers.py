#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Maintainers' sweep: posenc's expected RoPE facts, computed by transformers' own code.

Usage (Debian's Python and Debian's torch; the script is not run by CI, its output is committed):

    /usr/bin/python3 scripts/sweep-transformers.py TRANSFORMERS_SRC [--out tests/data/transformers_sweep.json]
                                                   [--commit SHORT_SHA] [--only MODEL_TYPE,...]
    /usr/bin/python3 scripts/sweep-transformers.py TRANSFORMERS_SRC --minimal [--commit SHORT_SHA]
    /usr/bin/python3 scripts/sweep-transformers.py --coverage BUILD/tests/posenc_tests_models
    /usr/bin/python3 scripts/sweep-transformers.py TRANSFORMERS_SRC --towers [--commit SHORT_SHA]
    /usr/bin/python3 scripts/sweep-transformers.py TRANSFORMERS_SRC --prompts [--commit SHORT_SHA]

The --towers form writes tests/data/transformers_sweep_towers.json: vision towers' per-token
angles for a few patch grids (scripts/sweep_towers.py says how).

The --prompts form writes tests/data/transformers_sweep_prompts.json: the M-RoPE families' prompt
position ids and rope deltas from their own get_rope_index (scripts/sweep_prompt_positions.py).
The second form runs the test that checks posenc against the data (tests/models/
transformers_sweep_tests.cpp) and writes its K/N line into docs/models.md. With --variants (and
an --out elsewhere) the first form sweeps every language model with linear, dynamic, yarn and
llama3 RoPE dicts instead of its class defaults: a maintainer's look, not test data (the test
binary reads a data folder's transformers_sweep.json, so point a build's POSENC_TEST_DATA_DIR
there to check posenc against it). With --minimal the first form writes
tests/data/transformers_sweep_minimal.json: each language model built from a hand-written config
(its model types only, then with num_hidden_layers 7, also with sliding_window_pattern 3, with
hidden_size 768 and 4 heads, a top-level rope_theta, partial_rotary_factor or head_dim, a
transformers 4 rope_scaling dict (linear with the legacy key "type", yarn, dynamic), a transformers
5 llama3 or yarn rope_parameters, rope_parameters per layer type with and without rope_theta,
M-RoPE sections with mrope_interleaved; see MINIMAL_VARIANTS), so the configuration class derives the rest (class defaults, layer types from
its pattern, a wrapper's text defaults) and posenc, given the same few keys, must derive the same.

TRANSFORMERS_SRC is the `src` folder of a transformers checkout (the folder that holds the
`transformers` package). For each model folder whose modeling code applies RoPE (it instantiates
a rotary embedding class or calls a rotary apply function), the script
instantiates every configuration class of the folder that transformers registers under a
`model_type` with its class defaults, finds the language model's config inside it (the config
itself, or a nested one: `text_config`, `thinker_config.text_config`, ...), constructs the
family's text rotary embedding module from it and runs it, and writes down what came out:

  - `config`: the config dict posenc is given (the class's `to_dict()`, less the generic keys no
    RoPE reader looks at, and less the nested configs off the path to the language model);
  - per group (one per layer type where the module builds one table per layer type, else one
    named `default`): `inv_freq` (the module's buffer), `attention_scaling`, `rotary_dim` (2 x the
    number of frequencies, zero frequencies included), and cos/sin from the module's forward at
    positions 1, 4095 and one past the original length (3 or 4 rows of position ids for M-RoPE,
    then also `text_outputs` with every row at the text position), with the shape the module
    returned (`repeat` says when a row was cat(h, h) or repeat_interleave(h, 2) and only h is
    stored). Every float32 array is stored once, in `tables`, as base64 of its little-endian
    float32 bytes (bit for bit as transformers computed it), named by a hash;
  - per group also `pairing` (half_split or interleaved: every unit vector through the family's
    own apply function) and, for M-RoPE, `coordinate_axes` (the position axis each coordinate
    reads: one axis moved at a time through the same function); `pair_order` where the module
    keeps its buffer permuted (ERNIE-4.5-VL);
  - `num_hidden_layers`, `nope_layers` and `layer_group` (the table each layer uses): the
    layers that apply no RoPE where the modeling code decides so from the config (see
    `nope_layers` below for the rules restated from the modeling files);
  - `kind`: `text` for a language model; `not_language` for a config without vocabulary or
    end-of-sequence token (vision and audio towers, codecs), listed with its rotary classes;
    `no_rotary_module` where RoPE is applied without a module (idefics, roformer; GPT-J and
    CodeGen are run through their create_sinusoidal_positions instead).

Families whose code could not be run are listed with the error, so the data says what it misses.
The output holds facts only (numbers and config values); no transformers code is copied.

The environment: transformers 5.x imports packages Debian 12 does not ship (huggingface_hub,
tokenizers, safetensors, httpx) and wants torch >= 2.5 where Debian 12 has 1.13. Nothing of that
is on the rotary path, so the script stands in for it before importing transformers:
  1. a missing top-level package (huggingface_hub, tokenizers, safetensors, httpx) is a permissive
     module: any attribute is a placeholder class (callable, raisable, falsy);
     `huggingface_hub.dataclasses.strict` is the identity (transformers' own `__init_subclass__`
     makes each config class a keyword-only dataclass; the class validators are not run) and
     `as_validated_field` returns a plain `dataclasses.field` with the default;
  2. `transformers.dependency_versions_check` is replaced by an empty module (Debian's regex,
     tqdm and friends are older than transformers pins) and `is_torch_available()` is patched to
     True (it refuses torch < 2.5); `is_torch_greater_or_equal` still sees 1.13, so transformers
     takes its paths for older torch;
  3. torch 1.13 gaps used at import time get stand-ins: missing `torch.*` submodules (the
     distributed tensor API) are permissive modules, `torch.compiler`/`torch._dynamo` decorators
     are pass-throughs, `torch.library` and `torch.utils._pytree` answer missing names with
     placeholders, float8/uint dtypes are aliases of existing dtypes (only quantization code reads
     them), `torch.no_grad` is usable as a bare decorator, `torch.is_autocast_enabled` takes the
     device type (and answers for the CPU's default, off here), and `torch.nn.Buffer` registers
     a buffer as torch 2.5 does (the rotary modules store inv_freq with it);
  4. typing_extensions.get_original_bases (4.7) is added where Debian's 4.4 lacks it.
Install what Debian has: `apt-get install -y python3-torch python3-packaging python3-regex
python3-tqdm python3-filelock python3-yaml python3-requests`.
"""

import argparse
import base64
import copy
import dataclasses
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import math
import os
import re
import struct
import sys
import traceback
import types
import warnings

# ----------------------------------------------------------------------------------------------
# 1. Stand-ins for what Debian 12 lacks (see the docstring).

STOOD_IN = set()


class _Anything(Exception):
    """A placeholder: a class that can be called, raised, caught, and is falsy."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())


def _passthrough(fn=None, *args, **kwargs):
    return fn if callable(fn) else (lambda f: f)


class _PermissiveModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__.endswith(".constants"):
            return "/nonexistent/sweep-hf" if any(w in name for w in ("HOME", "CACHE", "PATH", "DIR")) else None
        if name in ("constants", "utils", "errors", "dataclasses", "file_download", "torch", "hf_api", "httpx"):
            return importlib.import_module(self.__name__ + "." + name)
        placeholder = type(name, (_Anything,), {})
        setattr(self, name, placeholder)
        STOOD_IN.add(self.__name__ + "." + name)
        return placeholder


def _strict(cls=None, *, accept_kwargs=False):
    return (lambda c: c) if cls is None else cls


def _as_validated_field(validator):
    def make(default=dataclasses.MISSING, default_factory=dataclasses.MISSING, init=True, repr=True, hash=None,
             compare=True, metadata=None, **kwargs):
        return dataclasses.field(default=default, default_factory=default_factory, init=init, repr=repr,
                                 hash=hash, compare=compare, metadata=metadata)
    return make


MISSING_PACKAGES = {n for n in ("huggingface_hub", "tokenizers", "safetensors", "httpx")
                    if importlib.util.find_spec(n) is None}
# torch 1.13's FSDP package cannot be imported on Python 3.11 (a dataclass with a mutable default);
# transformers 5.2x imports it from distributed/fsdp.py, off the rotary path.
BROKEN_TORCH_MODULES = ("torch.distributed.fsdp",)


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        top = fullname.split(".")[0]
        if top in MISSING_PACKAGES or fullname.startswith(BROKEN_TORCH_MODULES) or (
                fullname.startswith("torch.") and not fullname.startswith("torch._C")
                and importlib.machinery.PathFinder.find_spec(fullname, path) is None):
            STOOD_IN.add(fullname)
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _PermissiveModule(spec.name)
        module.__path__ = []
        module.__version__ = "0.0.0+sweep-stand-in"
        return module

    def exec_module(self, module):
        if module.__name__ == "huggingface_hub.dataclasses":
            module.strict = _strict
            module.as_validated_field = _as_validated_field
            module.validate_typed_dict = lambda *a, **k: None


class _PatchImportUtils(importlib.abc.MetaPathFinder):
    """transformers.utils.import_utils, with is_torch_available() True on torch 1.13."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "transformers.utils.import_utils":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            module.is_torch_available = lambda: True
            module.BACKENDS_MAPPING["torch"] = (module.is_torch_available, module.BACKENDS_MAPPING["torch"][1])

        spec.loader.exec_module = exec_module
        return spec


def _lenient(module):
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        STOOD_IN.add(module.__name__ + "." + name)
        return type(name, (_Anything,), {})
    module.__getattr__ = __getattr__


def prepare_environment(src):
    sys.path.insert(0, src)
    sys.meta_path.insert(0, _StandInFinder())
    sys.meta_path.insert(0, _PatchImportUtils())

    import typing_extensions
    if not hasattr(typing_extensions, "get_original_bases"):
        typing_extensions.get_original_bases = lambda cls: cls.__dict__.get("__orig_bases__", cls.__bases__)

    import torch
    for name, alias in (("float8_e4m3fn", torch.float16), ("float8_e5m2", torch.float16),
                        ("float8_e4m3fnuz", torch.float16), ("float8_e5m2fnuz", torch.float16),
                        ("float8_e8m0fnu", torch.float16), ("float4_e2m1fn_x2", torch.float16),
                        ("uint16", torch.int16), ("uint32", torch.int32), ("uint64", torch.int64)):
        if not hasattr(torch, name):
            setattr(torch, name, alias)
            STOOD_IN.add("torch." + name)

    original_no_grad = torch.no_grad

    class no_grad(original_no_grad):  # usable bare, as in torch >= 2.0
        def __new__(cls, func=None):
            if func is not None and callable(func):
                return original_no_grad()(func)
            return super().__new__(cls)

        def __init__(self, func=None):
            super().__init__()

    torch.no_grad = no_grad

    original_autocast_enabled = torch.is_autocast_enabled
    torch.is_autocast_enabled = lambda device_type=None: original_autocast_enabled()

    import torch.utils._pytree as pytree
    _lenient(pytree)
    import torch.library
    _lenient(torch.library)

    if not hasattr(torch, "compiler"):
        compiler = types.ModuleType("torch.compiler")
        compiler.is_compiling = lambda: False
        compiler.is_dynamo_compiling = lambda: False
        compiler.disable = _passthrough
        compiler.allow_in_graph = _passthrough
        compiler.assume_constant_result = _passthrough
        torch.compiler = compiler
        sys.modules["torch.compiler"] = compiler
        STOOD_IN.add("torch.compiler")
    if not hasattr(torch, "_dynamo"):
        dynamo = types.ModuleType("torch._dynamo")
        for name in ("assume_constant_result", "disable", "allow_in_graph", "mark_static_address", "mark_dynamic"):
            setattr(dynamo, name, _passthrough)
        dynamo.is_compiling = lambda: False
        dynamo.__path__ = []  # its submodules (transformers 5.2x imports one) are stand-ins too
        _lenient(dynamo)
        torch._dynamo = dynamo
        sys.modules["torch._dynamo"] = dynamo
        STOOD_IN.add("torch._dynamo")

    if not hasattr(torch, "accelerator"):  # torch 2.6; transformers 5.2x asks it for the device (none: CPU)
        accelerator = types.ModuleType("torch.accelerator")
        accelerator.current_accelerator = lambda *a, **k: None
        accelerator.is_available = lambda: False
        torch.accelerator = accelerator
        sys.modules["torch.accelerator"] = accelerator
        STOOD_IN.add("torch.accelerator")
    if not hasattr(torch.nn, "Buffer"):
        def Buffer(data=None, *, persistent=True):
            tensor = data if data is not None else torch.empty(0)
            tensor._sweep_buffer_persistent = persistent
            return tensor

        torch.nn.Buffer = Buffer
        original_setattr = torch.nn.Module.__setattr__

        def module_setattr(self, name, value):
            if isinstance(value, torch.Tensor) and hasattr(value, "_sweep_buffer_persistent"):
                persistent = value._sweep_buffer_persistent
                del value._sweep_buffer_persistent
                self.__dict__.pop(name, None)
                self.register_buffer(name, value, persistent=persistent)
            else:
                original_setattr(self, name, value)

        torch.nn.Module.__setattr__ = module_setattr
        STOOD_IN.add("torch.nn.Buffer")

    deps = types.ModuleType("transformers.dependency_versions_check")
    deps.dep_version_check = lambda *a, **k: None
    sys.modules["transformers.dependency_versions_check"] = deps

    import transformers  # noqa: F401
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()
    warnings.simplefilter("ignore")
    return torch


# ----------------------------------------------------------------------------------------------
# 2. Which folders apply RoPE, and their configuration classes.

# A folder applies RoPE when its modeling code instantiates a rotary class or calls a rotary apply
# function (jamba and nemotron_h define apply_rotary_pos_emb but never call it).
ROPE_USE = re.compile(r"=\s*\w*Rotary\w*\(|^(?!\s*def )[^\n]*\bapply_rotary\w*\(", re.MULTILINE)
# Keys of PreTrainedConfig that no RoPE reader looks at (dropped from the stored config dicts).
GENERIC_KEYS = {
    "return_dict", "output_hidden_states", "output_attentions", "torchscript", "dtype", "torch_dtype",
    "pruned_heads", "tie_word_embeddings", "chunk_size_feed_forward", "is_encoder_decoder", "is_decoder",
    "cross_attention_hidden_size", "add_cross_attention", "tie_encoder_decoder", "architectures",
    "finetuning_task", "id2label", "label2id", "tokenizer_class", "prefix", "bos_token_id", "pad_token_id",
    "eos_token_id", "sep_token_id", "decoder_start_token_id", "task_specific_params", "problem_type",
    "_name_or_path", "transformers_version", "output_scores", "use_cache", "initializer_range",
    "vocab_size", "_attn_implementation_autoset", "problem_type", "base_model_tp_plan", "base_model_pp_plan",
    "keys_to_ignore_at_inference", "attention_dropout", "hidden_dropout", "hidden_act", "_output_attentions",
    "image_token_id", "video_token_id", "audio_token_id", "image_token_index", "video_token_index",
    "vision_start_token_id", "vision_end_token_id", "vision_token_id", "audio_start_token_id",
    "audio_end_token_id", "boi_token_id", "eoi_token_id", "boa_token_id", "eoa_token_id",
}
TEXT_CONFIG_NAMES = ("text_config", "thinker_config", "language_config", "llm_config", "text_model_config",
                     "decoder_config", "decoder", "generator", "talker_config")
NOT_TEXT = re.compile(r"Vision|Audio|Visual|Encoder|DiT|Code2Wav|Token2Wav|3D|ViT")


def rope_folders(models_dir):
    found = []
    for folder in sorted(os.listdir(models_dir)):
        path = os.path.join(models_dir, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.startswith("modeling_") and name.endswith(".py"):
                with open(os.path.join(path, name), encoding="utf-8") as f:
                    if ROPE_USE.search(f.read()):
                        found.append(folder)
                        break
    return found


def safe_get(config, name, default=None):
    try:
        return getattr(config, name, default)
    except Exception:  # noqa: BLE001 - per-layer attributes refuse global access
        return default


def language_config(config, base_class):
    """(path, config) of the language model's config inside `config`: the config itself, or the
    one a wrapper nests under a text-model name (text_config, thinker_config.text_config, ...).
    A config that nests none and has neither a vocabulary nor an end-of-sequence token (a vision
    or audio tower, a codec) gives (None, None)."""
    for name in TEXT_CONFIG_NAMES:
        inner = vars(config).get(name)
        if isinstance(inner, base_class):
            sub_path, sub = language_config(inner, base_class)
            if sub is not None:
                return (f"{name}.{sub_path}" if sub_path else name), sub
    if safe_get(config, "num_attention_heads") is not None and (
            "vocab_size" in vars(config) or vars(config).get("eos_token_id") is not None):
        return "", config  # a vocabulary, or an end-of-sequence token (a draft model sharing one)
    return None, None


def plain(value):
    """A JSON-able copy of a config value."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no inf/nan (only mamba keys such as time_step_limit hold them)
    if isinstance(value, float) or isinstance(value, (int, str, bool)) or value is None:
        return value
    return repr(value)


def stored_dict(config, keep_path, base_class):
    """config.to_dict() without generic keys and without nested configs off keep_path."""
    full = config.to_dict()
    first = keep_path.split(".")[0] if keep_path else None
    rest = ".".join(keep_path.split(".")[1:]) if keep_path else ""
    out = {}
    for key, value in full.items():
        if key in GENERIC_KEYS:
            continue
        attr = vars(config).get(key)
        if isinstance(attr, base_class) or (isinstance(value, dict) and "model_type" in value):
            if key != first:
                continue
            value = stored_dict(attr, rest, base_class) if isinstance(attr, base_class) else value
        out[key] = plain(value)
    return out


# ----------------------------------------------------------------------------------------------
# 3. Running the rotary module.

TABLES = {}  # the float32 arrays, stored once: name -> base64 of little-endian float32


def f32_b64(tensor):
    """The name of `tensor`'s float32 values in TABLES (f + the first 12 hex digits of their SHA-1)."""
    import hashlib
    import torch
    flat = tensor.detach().to(torch.float32).contiguous().reshape(-1).tolist()
    text = base64.b64encode(struct.pack(f"<{len(flat)}f", *flat)).decode("ascii")
    name = "f" + hashlib.sha1(text.encode("ascii")).hexdigest()[:12]
    TABLES[name] = text
    return name


def compact(tensor):
    """{shape, repeat, b64}: repeat "cat" stores the first half of the last axis (the row is
    cat(h, h)), "interleave" every second value (repeat_interleave(h, 2)), "none" the row as is."""
    import torch
    if torch.is_complex(tensor):
        return {"complex": True, "real": compact(tensor.real), "imag": compact(tensor.imag)}
    t = tensor.detach().to(torch.float32)
    n = t.shape[-1]
    out = {"shape": list(t.shape)}
    if n % 2 == 0 and n > 0 and torch.equal(t[..., : n // 2], t[..., n // 2:]):
        out["repeat"], t = "cat", t[..., : n // 2]
    elif n % 2 == 0 and n > 0 and torch.equal(t[..., 0::2], t[..., 1::2]):
        out["repeat"], t = "interleave", t[..., 0::2]
    else:
        out["repeat"] = "none"
    out["values"] = f32_b64(t)
    return out


def rope_dict_of(config):
    rp = getattr(config, "rope_parameters", None)
    return rp if isinstance(rp, dict) else {}


def axes_of(config, group):
    rp = rope_dict_of(config)
    if group != "default" and isinstance(rp.get(group), dict):
        rp = rp[group]
    for key in ("mrope_section", "xdrope_section"):
        section = rp.get(key) if isinstance(rp, dict) else None
        if section is None:
            section = getattr(config, key, None)
        if isinstance(section, (list, tuple)) and len(section) > 1:
            return len(section)
    return 1


def original_length(config, group):
    rp = rope_dict_of(config)
    if group != "default" and isinstance(rp.get(group), dict):
        rp = rp[group]
    value = rp.get("original_max_position_embeddings") if isinstance(rp, dict) else None
    return int(value or getattr(config, "max_position_embeddings", None) or 4096)


EXTRA_AXIS_ROWS = ([2, 17, 33], [3, 100, 1000], [4, 7, 9])


def call_forward(rot, group, per_type, positions, rows):
    """The module's forward at `positions` (rows of position ids: None for one row), one call
    per position, the results joined along the position axis: a module with a dynamic rope type
    rebuilds its table from the largest position of a call, so each position is a sequence of its
    own (as at the last step of a prefill that ends there)."""
    import torch
    kwargs = {"layer_type": group} if per_type else {}
    x = torch.zeros(1, 1, 8, dtype=torch.float32)
    ids = torch.tensor([positions]) if rows is None else torch.tensor(rows)[:, None, :]
    parts = []
    for k in range(len(positions)):
        out = rot(x, ids[..., k:k + 1], **kwargs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        parts.append([o for o in outs if hasattr(o, "shape")])
    return ids, [torch.cat([p[i] for p in parts], dim=-2) for i in range(len(parts[0]))]


def run_forward(rot, config, group, per_type):
    """cos/sin (whatever the forward returns) at positions 1, 4095 and one past the original
    length; for M-RoPE once with distinct rows per axis and once with every row the text position."""
    length = original_length(config, group)
    positions = [1, 4095, length + 1]
    n_axes = axes_of(config, group)
    tries = []
    if n_axes > 1:
        tries.append([positions] + [r for r in EXTRA_AXIS_ROWS[: n_axes - 1]])
    tries.append(None)
    tries.append([positions] + [r for r in EXTRA_AXIS_ROWS[:2]])
    last_error = None
    for rows in tries:
        try:
            ids, outs = call_forward(rot, group, per_type, positions, rows)
        except Exception as e:  # noqa: BLE001 - the next layout is tried
            last_error = e
            continue
        result = {"position_ids": ids.tolist(), "outputs": [compact(o) for o in outs]}
        if rows is not None:
            _, text_outs = call_forward(rot, group, per_type, positions, [positions] * len(rows))
            result["text_outputs"] = [compact(o) for o in text_outs]
            result["_text_raw"] = text_outs
        else:
            result["_text_raw"] = outs
        return result
    raise RuntimeError(f"forward failed: {type(last_error).__name__}: {last_error}")


def pair_order(inv_freq, text_outputs, scaling):
    """Which buffer entry each pair of the forward's output uses, when the module reorders its
    buffer (ERNIE-4.5-VL stores inv_freq pre-permuted and recomposes in forward); None when the
    output follows the buffer's order. Read from cos/sin at position 1 (the first position)."""
    import torch
    if len(text_outputs) < 2 or torch.is_complex(text_outputs[0]):
        return None
    cos, sin = (o.detach().to(torch.float32).reshape(-1, o.shape[-1]) for o in text_outputs[:2])
    # the first position's row (shapes [..., P, W]; the leading axes repeat it)
    width = cos.shape[-1]
    n = inv_freq.numel()
    c_row, s_row = text_outputs[0].reshape(-1, text_outputs[0].shape[-2], width)[0, 0], \
        text_outputs[1].reshape(-1, text_outputs[1].shape[-2], width)[0, 0]
    if width == 2 * n and torch.equal(c_row[:n], c_row[n:]):
        c_pairs, s_pairs = c_row[:n], s_row[:n]
    elif width == 2 * n and torch.equal(c_row[0::2], c_row[1::2]):
        c_pairs, s_pairs = c_row[0::2], s_row[0::2]
    elif width == n:
        c_pairs, s_pairs = c_row, s_row
    else:
        return None
    want_c = torch.cos(inv_freq.to(torch.float32)) * scaling
    want_s = torch.sin(inv_freq.to(torch.float32)) * scaling
    if torch.allclose(c_pairs, want_c, atol=1e-6) and torch.allclose(s_pairs, want_s, atol=1e-6):
        return None
    order, used = [], set()
    for j in range(n):
        error = ((want_c - c_pairs[j]).abs() + (want_s - s_pairs[j]).abs()).tolist()
        best = min((e, i) for i, e in enumerate(error) if i not in used)
        if best[0] > 1e-6:
            return None
        order.append(best[1])
        used.add(best[1])
    return order


def apply_function(rot_cls, n_axes, config):
    """The family's own apply function (module level, next to its rotary class): the
    interleaved-weights variant where the attention calls it (always, or under
    `if self.config.rope_interleave:` when the config sets it), else the plain or multimodal one."""
    module = sys.modules[rot_cls.__module__]
    source = inspect.getsource(module)
    interleave = getattr(module, "apply_rotary_pos_emb_interleave", None)
    if callable(interleave) and re.search(r"=\s*apply_rotary_pos_emb_interleave\(", source):
        conditional = re.search(r"if self\.config\.rope_interleave:[^\n]*\n\s*q_rot, k_rot = "
                                r"apply_rotary_pos_emb_interleave\(", source)
        if not conditional or safe_get(config, "rope_interleave"):
            return interleave
    names = ["apply_multimodal_rotary_pos_emb", "apply_rotary_pos_emb"] if n_axes > 1 else \
        ["apply_rotary_pos_emb", "apply_multimodal_rotary_pos_emb"]
    names.append("apply_rotary_emb")  # llama4, deepseek_v2: complex freqs_cis
    for name in names:
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return None


def apply_images(rot, config, group, per_type, axes, positions):
    """The images of the unit vectors e_0 .. e_{Q-1} under the family's own apply function, with
    cos/sin from the module's forward at one position per axis (`positions[a]` on axis a; one
    row of position ids when axes is 1): a [Q, Q] tensor whose row j is the rotated e_j, Q the
    width of the cos rows (or twice it, where the apply function widens them). None when the
    forward or the apply function cannot be called so ((q, k, cos, sin[, mrope_section]) or
    (xq, xk, freqs_cis))."""
    import torch
    fn = apply_function(type(rot), axes, config)
    if fn is None:
        return None
    try:
        rows = [[p] for p in positions[:axes]] if axes > 1 else None
        _, outs = call_forward(rot, group, per_type, [positions[0]], rows)
    except Exception:  # noqa: BLE001
        return None
    complex_out = torch.is_complex(outs[0])
    if len(outs) < 2 and not complex_out:
        return None
    cos, sin = (outs[0], outs[1]) if not complex_out else (None, None)
    width = outs[0].shape[-1]
    params = inspect.signature(fn).parameters
    rp = rope_dict_of(config)
    if group != "default" and isinstance(rp.get(group), dict):
        rp = rp[group]
    for q_width in (width, 2 * width):
        basis = torch.eye(q_width, dtype=torch.float32).reshape(1, q_width, 1, q_width)
        args = {}
        for i, (name, param) in enumerate(params.items()):
            if i == 0 or name in ("q", "x", "xq", "query", "tensor", "hidden_states"):
                args[name] = basis
            elif name in ("k", "xk", "key"):
                args[name] = basis
            elif name == "cos":
                args[name] = cos
            elif name == "sin":
                args[name] = sin
            elif name == "freqs_cis" and complex_out:
                args[name] = outs[0]
            elif name in ("mrope_section", "xdrope_section"):
                args[name] = (rp or {}).get(name) or safe_get(config, name)
            elif param.default is inspect.Parameter.empty:
                return None
        try:
            out = fn(**args)
        except Exception:  # noqa: BLE001 - the next query width is tried
            continue
        out = out[0] if isinstance(out, (tuple, list)) else out
        if out.numel() == q_width * q_width:
            return out.reshape(q_width, q_width)
    return None


def position_axes(rot, config, group, per_type, n_axes):
    """The number of rows of position ids the module's forward takes (1, or its M-RoPE axes)."""
    for axes in ([n_axes] if n_axes > 1 else []) + [1, 3]:
        try:
            call_forward(rot, group, per_type, [1], [[1]] * axes if axes > 1 else None)
            return axes
        except Exception:  # noqa: BLE001 - the next layout of position ids is tried
            continue
    return None


def probe_pairing(rot, config, group, per_type, axes):
    """Which coordinates the family's own apply function rotates together: the image of e_j at
    position 1 (every axis) has one other non-zero coordinate, j's partner. "half_split": partner
    j + R/2 (mod R), "interleaved": partner j xor 1, "other": neither; None when the function
    could not be called. Coordinates left unrotated (frequency 0) are skipped. Coordinates j and
    j' rotate together when their images span the same output coordinates (the
    interleaved-weights variant also permutes its output, the same for q and k, which leaves q.k
    as interleaved pairs give it)."""
    image = apply_images(rot, config, group, per_type, axes, [1] * max(axes, 1))
    if image is None:
        return None
    q_width = image.shape[0]
    support = [frozenset((image[j].abs() > 1e-6).nonzero().reshape(-1).tolist()) for j in range(q_width)]
    kinds = set()
    for j in range(q_width):
        if len(support[j]) < 2:
            continue  # unrotated at position 1 (frequency 0) or dropped
        partners = [i for i in range(q_width) if i != j and support[i] == support[j]]
        if len(partners) != 1:
            kinds.add("other")
        elif partners[0] == j ^ 1:
            kinds.add("interleaved")
        elif partners[0] == (j + q_width // 2) % q_width:
            kinds.add("half_split")
        else:
            kinds.add("other")
    if len(kinds) == 1:
        return kinds.pop()
    return "other" if kinds else None


def probe_axes(rot, config, group, per_type, axes):
    """For M-RoPE: which position axis each coordinate reads. The images of the unit vectors
    with every axis at position 7 are compared with those where axis a alone moves to 1000: the
    coordinates whose image changes read axis a. -1: a coordinate no axis moves (frequency 0).
    None for one axis, or when the apply function could not be called."""
    if axes < 2:
        return None
    base = apply_images(rot, config, group, per_type, axes, [7] * axes)
    if base is None:
        return None
    reads = [-1] * base.shape[0]
    for a in range(axes):
        moved = apply_images(rot, config, group, per_type, axes, [1000 if b == a else 7 for b in range(axes)])
        if moved is None or moved.shape != base.shape:
            return None
        for j in range(base.shape[0]):
            if not bool((moved[j] - base[j]).abs().max() <= 1e-6):
                reads[j] = a if reads[j] == -1 else -2  # -2: moved by two axes (not a per-axis layout)
    return reads


def groups_of(rot, config):
    """[(group name, inv_freq tensor, attention_scaling, per_type)] from the module's buffers."""
    import torch
    groups = []
    buffers = dict(rot.named_buffers())
    for name, buf in buffers.items():
        if not name.endswith("inv_freq") or "original" in name:
            continue
        prefix = name[: -len("inv_freq")].rstrip("._")
        if not prefix:
            scaling = getattr(rot, "attention_scaling", 1.0)
            groups.append(("default", buf, scaling, False))
        else:
            holder = rot
            for part in prefix.split(".")[:-1]:
                holder = getattr(holder, part)
            scaling = getattr(rot, f"{prefix}_attention_scaling", None)
            if scaling is None:
                scaling = getattr(holder, "attention_scaling", 1.0)
            groups.append((prefix.split(".")[-1], buf, scaling, True))
    if isinstance(getattr(rot, "attention_scaling", None), dict):
        groups = [(n, b, rot.attention_scaling.get(n, s), p) for n, b, s, p in groups]
    # by name: modules that build one table per layer type walk set(layer_types), whose order
    # changes from run to run with Python's string hashing
    return sorted(groups, key=lambda g: g[0])


# ----------------------------------------------------------------------------------------------
# 4. NoPE layers: where the modeling code skips RoPE on some layers, by a rule on the config.
# Each rule restates a condition of the family's modeling file (read there, not derived here).

NON_ROPE_LAYER_TYPES = {"linear_attention", "mamba", "mamba2", "conv", "short_conv", "ssm", "rwkv", "gated_deltanet",
                        "deltanet", "recurrent", "lightning_attention", "kimi_delta_attention"}


def nope_layers(model_type, config):
    """(sorted NoPE layer indices, the rules applied) for the language model's config."""
    n = safe_get(config, "num_hidden_layers") or 0
    layer_types = safe_get(config, "layer_types")
    layer_types = list(layer_types) if isinstance(layer_types, (list, tuple)) else None
    base = model_type[: -len("_text")] if model_type.endswith("_text") else model_type
    nope, rules = set(), []

    def add(layers, rule):
        layers = set(layers)
        if layers:
            nope.update(layers)
            rules.append(rule)

    no_rope = safe_get(config, "no_rope_layers")
    if isinstance(no_rope, (list, tuple)) and no_rope:
        # smollm3, llama4: `self.use_rope = config.no_rope_layers[layer_idx]` (0: NoPE)
        add((i for i, v in enumerate(no_rope) if not v), "no_rope_layers[i] == 0")
    theta = safe_get(config, "layer_rope_theta")
    if isinstance(theta, (list, tuple)):
        # granite_swa, granitemoe_swa, muse_glimmer: layers whose layer_rope_theta is 0 get no
        # position embeddings from the model
        add((i for i, v in enumerate(theta) if not v), "layer_rope_theta[i] == 0")
    if layer_types:
        add((i for i, t in enumerate(layer_types) if t in NON_ROPE_LAYER_TYPES),
            "layer type without attention (linear attention, mamba, conv)")
        if base in ("cohere2", "exaone4", "exaone_moe", "kolibri1") and safe_get(config, "sliding_window") is not None:
            # cohere2: RoPE only `if self.sliding_window is not None`; exaone4, exaone_moe, kolibri1:
            # `if self.sliding_window is None or self.is_sliding`
            add((i for i, t in enumerate(layer_types) if t == "full_attention"),
                "full_attention layers NoPE while sliding_window is set")
        if base == "cohere2_moe":
            # RoPE `if self.sliding_window is not None or self.force_rope`, force_rope =
            # mlp_layer_types[i] == "dense" and prefix_dense_sliding_window_pattern == 1
            mlp = safe_get(config, "mlp_layer_types") or []
            pattern = safe_get(config, "prefix_dense_sliding_window_pattern")
            add((i for i, t in enumerate(layer_types) if t != "sliding_attention"
                 and not (i < len(mlp) and mlp[i] == "dense" and pattern == 1)),
                "non-sliding layers NoPE unless force_rope")
        if base == "flint" and safe_get(config, "sliding_window") is not None:
            # RoPE only `if self.sliding_window is not None`, set on sliding_attention layers only
            add((i for i, t in enumerate(layer_types) if t != "sliding_attention"),
                "RoPE on sliding_attention layers only")
        if base in ("afmoe", "ergo", "lara_mini"):
            # afmoe: RoPE only `if self.is_local_attention` (layer_types[i] == "sliding_attention"); ergo:
            # position_embeddings.get(layer_type), None for full_attention; lara_mini: position_embeddings
            # `if layer_type == "sliding_attention" else None`
            add((i for i, t in enumerate(layer_types) if t != "sliding_attention"),
                "RoPE on sliding_attention layers only")
        if base == "olmo_hybrid":  # noqa: SIM102
            # the model passes position embeddings to full_attention layers only
            add((i for i, t in enumerate(layer_types) if t != "full_attention"), "RoPE on full_attention layers only")
    cross = safe_get(config, "cross_attention_layers")
    if base.startswith("mllama") and isinstance(cross, (list, tuple)):
        # mllama: the cross-attention layers (MllamaTextCrossAttention) apply no RoPE
        add(cross, "cross_attention_layers have no RoPE")
    blocks = safe_get(config, "layers_block_type")
    if base == "recurrent_gemma" and isinstance(blocks, (list, tuple)):
        # only the "attention" blocks attend (and rotate); "recurrent" blocks are RG-LRU
        add((i for i, t in enumerate(blocks) if t != "attention"), "recurrent blocks have no attention")
    return sorted(i for i in nope if i < n or not n), (" + ".join(rules) if rules else "all layers rotate")


# ----------------------------------------------------------------------------------------------
# 5. The sweep.

def rotary_classes(folder):
    import torch
    classes = []
    pkg = f"transformers.models.{folder}"
    import transformers
    base = os.path.join(os.path.dirname(transformers.__file__), "models", folder)
    for name in sorted(os.listdir(base)):
        if not (name.startswith("modeling_") and name.endswith(".py")):
            continue
        module = importlib.import_module(f"{pkg}.{name[:-3]}")
        for cname, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and "Rotary" in cname and issubclass(cls, torch.nn.Module):
                classes.append(cls)
    return classes


def built_rotary_class(folder, config_class_name):
    """The rotary class that the folder's model class for `config_class_name` builds: the
    `self.rotary_emb = X(` line of a class body that names `config: <config_class_name>` (a class
    attribute or its __init__'s parameter), else None."""
    import transformers
    base = os.path.join(os.path.dirname(transformers.__file__), "models", folder)
    for name in sorted(os.listdir(base)):
        if not (name.startswith("modeling_") and name.endswith(".py")):
            continue
        with open(os.path.join(base, name), encoding="utf-8") as f:
            source = f.read()
        for block in re.split(r"\nclass ", source)[1:]:
            if re.search(r"\bconfig: " + re.escape(config_class_name) + r"\b", block):
                m = re.search(r"self\.rotary_emb = (\w+)\(", block)
                if m:
                    return m.group(1)
    return None


def takes_config(cls):
    try:
        params = list(inspect.signature(cls.__init__).parameters)
    except (TypeError, ValueError):
        return False
    return len(params) > 1 and params[1] == "config"


def sweep_sinusoidal_table(entry, config, text, folder, base_class):
    """GPT-J and CodeGen keep no rotary module: the attention holds
    create_sinusoidal_positions(max_position_embeddings, rotary_dim or hidden_size), cat(sin, cos)
    per position (gptj/modeling_gptj.py, the attention's embed_positions). The function is run as
    is; its inv_freq is read from the torch.einsum call it makes (the outer product positions x
    inv_freq), and the pairing from the module's apply_rotary_pos_emb(tensor, sin, cos)."""
    import torch
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    dim = safe_get(text, "rotary_dim") or safe_get(text, "hidden_size")
    n = int(safe_get(text, "max_position_embeddings"))
    captured = []
    original = torch.einsum

    def spy(equation, *operands):
        captured.append(operands)
        return original(equation, *operands)

    torch.einsum = spy
    try:
        sincos = module.create_sinusoidal_positions(n, dim)
    finally:
        torch.einsum = original
    inv = captured[0][1].detach().to(torch.float32).reshape(-1)
    positions = sorted({1, min(4095, n - 1), n - 1})  # the table ends at max_position_embeddings
    half = sincos.shape[-1] // 2
    rows = sincos[positions]
    sin, cos = rows[:, :half][None], rows[:, half:][None]
    group = {"name": "default", "inv_freq": f32_b64(inv), "num_freqs": int(inv.numel()),
             "rotary_dim": 2 * int(inv.numel()), "attention_scaling": 1.0, "position_ids": [positions],
             "outputs": [compact(cos), compact(sin)]}
    # pairing: unit vectors through the module's apply_rotary_pos_emb(tensor, sin, cos)
    width = 2 * half
    basis = torch.eye(width).reshape(1, width, 1, width)
    image = module.apply_rotary_pos_emb(basis, sincos[[1], :half][None], sincos[[1], half:][None])
    image = image.reshape(width, width)
    support = [frozenset((image[j].abs() > 1e-6).nonzero().reshape(-1).tolist()) for j in range(width)]
    partners = {j: [i for i in range(width) if i != j and support[i] == support[j]] for j in range(width)
                if len(support[j]) > 1}
    if partners and all(p == [j ^ 1] for j, p in partners.items()):
        group["pairing"] = "interleaved"
    elif partners and all(p == [(j + half) % width] for j, p in partners.items()):
        group["pairing"] = "half_split"
    entry.update({"kind": "text", "text_config_path": "", "rotary_class": "create_sinusoidal_positions",
                  "config": stored_dict(config, "", base_class), "groups": [group],
                  "num_hidden_layers": safe_get(text, "num_hidden_layers")})
    entry["nope_layers"], entry["nope_rule"] = nope_layers(entry["model_type"], text)
    return entry


# --variants: the class defaults with the RoPE dict of the language model (its full_attention
# entry where it holds one per layer type) updated by each of these. Not committed data: a
# maintainer's look at how the scaled rope types of every family compare.
VARIANTS = {
    "linear": {"rope_type": "linear", "factor": 4.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0},
    "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
}


# --minimal: the config a person writes by hand, as transformers completes it. posenc is given only
# the model types along the path to the language model and these keys of the language model; the
# configuration class fills in everything else (layer_types from its pattern, class defaults), so
# posenc's own derivation of each is checked, not the values to_dict() would spell out.
MINIMAL_VARIANTS = {
    "min": {},
    "min+layers7": {"num_hidden_layers": 7},
    "min+pattern3": {"num_hidden_layers": 7, "sliding_window_pattern": 3},
    "min+hidden": {"hidden_size": 768, "num_attention_heads": 4},
    "min+theta": {"rope_theta": 123456.0},
    "min+prf": {"partial_rotary_factor": 0.5},
    "min+head_dim": {"head_dim": 96},
    "min+linear_v4": {"rope_scaling": {"type": "linear", "factor": 2.0}},
    "min+yarn_v4": {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
                    "max_position_embeddings": 16384},
    "min+dynamic_v4": {"rope_scaling": {"type": "dynamic", "factor": 2.0}, "max_position_embeddings": 8192},
    "min+llama3_v5": {"rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                          "original_max_position_embeddings": 8192}},
    "min+per_type": {"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 2.0},
                                         "sliding_attention": {"rope_type": "default"}}},
    "min+per_type_theta": {"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 77777.0},
                                               "sliding_attention": {"rope_type": "default", "rope_theta": 5555.0}}},
    "min+mrope_il": {"rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24], "mrope_interleaved": True}},
    "min+yarn_v5": {"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                        "truncate": False, "beta_fast": 16.0, "attention_factor": 1.2}},
}


def minimal_config(config, path, kwargs):
    """(constructor kwargs, stored config less the top-level model_type) for a config whose language
    model at `path` is given `kwargs` only, each nested level with its model_type."""
    levels = path.split(".") if path else []
    objects = [config]
    for key in levels:
        objects.append(vars(objects[-1])[key])
    inner = dict(kwargs)
    for depth in range(len(levels), 0, -1):
        nested_type = getattr(type(objects[depth]), "model_type", "")
        inner = {levels[depth - 1]: ({"model_type": nested_type, **inner} if nested_type else inner)}
    return inner


def apply_variant(text, variant):
    rp = getattr(text, "rope_parameters", None)
    if not isinstance(rp, dict):
        raise RuntimeError("no rope_parameters dict to vary")
    per_type = any(isinstance(v, dict) for v in rp.values())
    if per_type and not isinstance(rp.get("full_attention"), dict):
        raise RuntimeError("a RoPE dict per group without full_attention (not varied)")
    target = rp["full_attention"] if per_type else rp
    update = dict(VARIANTS[variant])
    if update["rope_type"] in ("yarn", "llama3"):
        update["original_max_position_embeddings"] = int(safe_get(text, "max_position_embeddings") or 4096)
    target.update(update)


def sweep_family(model_type, config_cls, folder, base_class, variant=None):
    import torch
    from transformers.models.auto import configuration_auto as auto
    entry = {"model_type": model_type, "folder": folder, "config_class": config_cls.__name__}
    config = config_cls()
    rotaries = rotary_classes(folder)
    path, text = language_config(config, base_class)
    stored = None
    if variant in MINIMAL_VARIANTS:
        entry["model_type"] = f"{model_type}+{variant}"
        if text is None:
            raise RuntimeError("no language model")
        nested = minimal_config(config, path, MINIMAL_VARIANTS[variant])
        config = config_cls(**copy.deepcopy(nested))  # the configuration class fills dicts in place
        path, text = language_config(config, base_class)
        stored = {"model_type": model_type, **nested}
    elif variant:
        entry["model_type"] = f"{model_type}+{variant}"
        if text is None:
            raise RuntimeError("no language model to vary")
        apply_variant(text, variant)
    text_folder = auto.model_type_to_module_name(getattr(text, "model_type", "") or model_type) if text else folder
    if text is not None and text_folder != folder:
        rotaries = rotary_classes(text_folder) + rotaries
    text_rotaries = [c for c in rotaries if takes_config(c)]
    if text is not None and not text_rotaries and folder in ("gptj", "codegen"):
        return sweep_sinusoidal_table(entry, config, text, folder, base_class)
    if text is None or not text_rotaries:
        entry["kind"] = "not_language" if text is None else "no_rotary_module"
        entry["rotary_classes"] = [c.__name__ for c in rotaries]
        return entry

    # The language model's rotary class: the one a model class of the folder builds
    # (`self.rotary_emb = X(`) when that model class is annotated with the language config's class,
    # then the one annotated with that class, then one named Text, then any other that is not a
    # vision or audio tower's.
    built = built_rotary_class(text_folder if text is not None else folder, type(text).__name__)

    def rank(c):
        if c.__name__ == built:
            return -1
        ann = inspect.signature(c.__init__).parameters["config"].annotation
        if getattr(ann, "__name__", str(ann)) == type(text).__name__:
            return 0 if "__init__" in vars(c) else 0.5
        if "Text" in c.__name__:
            return 1
        return 3 if NOT_TEXT.search(c.__name__) else 2
    text_rotaries.sort(key=rank)
    errors = []
    for cls in text_rotaries:
        if rank(cls) == 3:
            continue
        try:
            rot = cls(text)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{cls.__name__}: {type(e).__name__}: {e}")
            continue
        break
    else:
        raise RuntimeError("; ".join(errors) or "no language-model rotary class")
    entry["kind"] = "text"
    entry["text_config_path"] = path
    entry["rotary_class"] = cls.__name__
    entry["config"] = stored if stored is not None else stored_dict(config, path, base_class)
    groups = []
    for name, inv_freq, scaling, per_type in groups_of(rot, text):
        inv = inv_freq.detach().to(torch.float32).reshape(-1)
        width = int(inv_freq.shape[-1])  # Cosmos3-Edge keeps [axes, pairs]: each axis's pairs, others 0
        g = {"name": name, "inv_freq": f32_b64(inv), "num_freqs": width, "rotary_dim": 2 * width,
             "attention_scaling": float(scaling) if scaling is not None else None}
        try:
            g.update(run_forward(rot, text, name, per_type))
            text_raw = g.pop("_text_raw")
            order = None
            if inv_freq.dim() == 1:
                order = pair_order(inv, text_raw, float(scaling if scaling is not None else 1.0))
            if order is not None:
                g["pair_order"] = order  # pair j of the output rotates at inv_freq[pair_order[j]]
            axes = position_axes(rot, text, name, per_type, axes_of(text, name))
            coordinate_axes = probe_axes(rot, text, name, per_type, axes) if axes else None
            if axes == 1 and "mrope" in inspect.getsource(type(rot)):
                # a module that also takes one row of position ids (Qwen3-VL expands it to three)
                coordinate_axes = probe_axes(rot, text, name, per_type, 3)
                axes = 3 if coordinate_axes and any(a > 0 for a in coordinate_axes) else 1
                coordinate_axes = coordinate_axes if axes == 3 else None
            if model_type.startswith("hunyuan_vl"):
                # HunYuan-VL applies its sections in the attention (apply_multimodal_rotary_pos_emb
                # there), not in the rotary module's output that the probe reads: no per-axis facts.
                coordinate_axes = None
            pairing = probe_pairing(rot, text, name, per_type, axes) if axes else None
            if pairing is not None:
                g["pairing"] = pairing
            if coordinate_axes is not None:
                g["coordinate_axes"] = coordinate_axes  # the position axis each coordinate reads
        except Exception as e:  # noqa: BLE001
            g["forward_error"] = str(e)[:300]
        if inv_freq.dim() > 1:
            g["inv_freq_shape"] = list(inv_freq.shape)
        groups.append(g)
    if not groups:
        raise RuntimeError(f"{cls.__name__} holds no inv_freq buffer")
    entry["groups"] = groups
    entry["num_hidden_layers"] = safe_get(text, "num_hidden_layers")
    if model_type == "longcat_flash":
        # longcat_flash/modeling_longcat_flash.py: the model sets num_hidden_layers = 2 * num_layers (two
        # attention sublayers per decoder layer), whatever the config said.
        entry["num_hidden_layers"] = 2 * safe_get(text, "num_layers")
    entry["nope_layers"], entry["nope_rule"] = nope_layers(safe_get(text, "model_type") or model_type, text)
    lt = safe_get(text, "layer_types")
    names = [g["name"] for g in groups]
    if len(groups) > 1 or names != ["default"]:
        # Which table each layer's attention uses: the module is called with the layer's type
        # (config.layer_types[i]); DeepSeek-V4 calls it with "main" for sliding_attention layers
        # and "compress" for the others (deepseek_v4/modeling_deepseek_v4.py, the attention's
        # rope_layer_type).
        n = entry["num_hidden_layers"] or 0
        table = []
        for i in range(n):
            t = lt[i] if isinstance(lt, (list, tuple)) and i < len(lt) else None
            if model_type.startswith("deepseek_v4"):
                t = "main" if t == "sliding_attention" else "compress"
            table.append(names.index(t) if t in names else (0 if len(names) == 1 else -2))
        for i in entry["nope_layers"]:
            if i < len(table):
                table[i] = -1
        entry["layer_group"] = table  # index into groups; -1: no RoPE; -2: no table for the layer's type
    return entry


COVERAGE_BEGIN = "<!-- coverage: written by scripts/sweep-transformers.py --coverage -->"
COVERAGE_END = "<!-- end of coverage -->"


def write_coverage(binary):
    """Runs the sweep's test case and writes K/N into docs/models.md between the markers."""
    import subprocess
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    run = subprocess.run([binary, "--no-intro=true", "--test-case=transformers * class defaults*"],
                         capture_output=True, text=True, check=False)
    found = re.search(r"(\d+) of (\d+) language-model families read and match transformers; (\d+) refused by name; "
                      r"(\d+) listed gaps", run.stdout)
    if run.returncode != 0 or not found:
        sys.exit(f"{binary} failed or printed no coverage:\n{run.stdout[-3000:]}{run.stderr[-2000:]}")
    with open(os.path.join(root, "tests", "data", "transformers_sweep.json"), encoding="utf-8") as f:
        data = json.load(f)
    kinds = {}
    for family in data["families"]:
        kinds[family["kind"]] = kinds.get(family["kind"], 0) + 1
    line = (f"Coverage at {data['source']}: **{found.group(1)} of {found.group(2)}** language-model "
            f"model_types with RoPE are read and match transformers' own tables (class defaults), "
            f"{found.group(3)} are refused with an error naming the key posenc cannot represent, "
            f"{found.group(4)} are listed gaps; "
            f"{len(data['rope_folders'])} model folders apply RoPE, and they also register "
            f"{kinds.get('not_language', 0)} vision, audio and other non-language model_types, "
            f"{kinds.get('no_rotary_module', 0)} without a rotary module and {len(data['failures'])} that "
            f"transformers itself cannot build from class defaults here.")
    minimal = subprocess.run([binary, "--no-intro=true", "--test-case=transformers * hand-written configs*"],
                             capture_output=True, text=True, check=False)
    found_minimal = re.search(r"(\d+) of (\d+) hand-written configs read and match transformers", minimal.stdout)
    if minimal.returncode != 0 or not found_minimal:
        sys.exit(f"{binary} failed or printed no coverage:\n{minimal.stdout[-3000:]}{minimal.stderr[-2000:]}")
    line += (f" From hand-written configs (model types and at most two keys, the configuration class filling in "
             f"the rest; `--minimal`): **{found_minimal.group(1)} of {found_minimal.group(2)}** read and match, "
             f"the others refused by name.")
    path = os.path.join(root, "docs", "models.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.index(COVERAGE_BEGIN), text.index(COVERAGE_END)
    text = text[: begin + len(COVERAGE_BEGIN)] + "\n" + line + "\n" + text[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", nargs="?", help="the src folder of a transformers checkout")
    parser.add_argument("--coverage", metavar="TEST_BINARY",
                        help="instead of sweeping: run posenc's tests/models binary on the committed data and "
                             "write its coverage line into docs/models.md")
    parser.add_argument("--out", default=None,
                        help="the data file (default tests/data/transformers_sweep.json, with --minimal "
                             "tests/data/transformers_sweep_minimal.json)")
    parser.add_argument("--commit", default="", help="the checkout's commit, recorded in the data")
    parser.add_argument("--only", default="", help="comma-separated model types (a partial run; give --out elsewhere)")
    parser.add_argument("--minimal", action="store_true",
                        help="sweep each language model from a hand-written config (MINIMAL_VARIANTS: its model types "
                             "and a few keys; the configuration class fills in the rest) instead of to_dict()")
    parser.add_argument("--variants", action="store_true",
                        help="sweep each language model with the scaled RoPE dicts of VARIANTS instead of its class "
                             "defaults (give --out elsewhere: a look for maintainers, not test data)")
    parser.add_argument("--towers", action="store_true",
                        help="sweep the vision towers of scripts/sweep_towers.py instead (default --out "
                             "tests/data/transformers_sweep_towers.json)")
    parser.add_argument("--prompts", action="store_true",
                        help="instead: the M-RoPE families' prompt position ids from get_rope_index "
                             "(scripts/sweep_prompt_positions.py; default out tests/data/transformers_sweep_prompts.json)")
    args = parser.parse_args()
    if args.prompts and args.src:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import sweep_prompt_positions
        torch = prepare_environment(os.path.abspath(args.src))
        import transformers
        out = args.out or os.path.join(os.path.dirname(__file__), "..", "tests", "data", "transformers_sweep_prompts.json")
        data = sweep_prompt_positions.sweep(torch, transformers.__version__, args.commit)
        sweep_prompt_positions.write(data, out)
        print(f"{len(data['cases'])} prompts, {len(data['failures'])} failures -> {out}", file=sys.stderr)
        return
    if args.coverage:
        write_coverage(args.coverage)
        return
    if not args.src:
        parser.error("give the src folder of a transformers checkout (or --coverage)")
    if args.out is None:
        args.out = os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                "transformers_sweep_minimal.json" if args.minimal
                                else "transformers_sweep_towers.json" if args.towers else "transformers_sweep.json")

    torch = prepare_environment(os.path.abspath(args.src))
    import transformers
    if args.towers:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import sweep_towers
        sweep_towers.sweep_towers(torch, transformers, args.out, args.commit)
        return
    from transformers.configuration_utils import PreTrainedConfig
    from transformers.models.auto import configuration_auto as auto

    models_dir = os.path.join(os.path.dirname(transformers.__file__), "models")
    folders = rope_folders(models_dir)
    only = {m for m in args.only.split(",") if m}
    families, failures = [], []
    for model_type in sorted(auto.CONFIG_MAPPING_NAMES):
        folder = auto.model_type_to_module_name(model_type)
        if folder not in folders or (only and model_type not in only):
            continue
        for variant in (list(MINIMAL_VARIANTS) if args.minimal else list(VARIANTS) if args.variants else [None]):
            name = f"{model_type}+{variant}" if variant else model_type
            try:
                config_cls = auto.CONFIG_MAPPING[model_type]
                families.append(sweep_family(model_type, config_cls, folder, PreTrainedConfig, variant))
            except Exception as e:  # noqa: BLE001
                failures.append({"model_type": name, "folder": folder,
                                 "error": f"{type(e).__name__}: {str(e)[:400]}"})
                if os.environ.get("SWEEP_DEBUG"):
                    traceback.print_exc()
            swept = families and families[-1]["model_type"] == name
            print(f"{name}: {families[-1]['kind'] if swept else 'FAILED'}", file=sys.stderr)
    if args.minimal:
        # The hand-written configs keep the tables and layer facts; the forward's cos/sin (checked on
        # the class-default data) would triple the file.
        for family in families:
            for group in family.get("groups", []):
                for key in ("outputs", "text_outputs", "position_ids", "repeat", "output_shape"):
                    group.pop(key, None)
        used = set()

        def collect(value):
            if isinstance(value, dict):
                for v in value.values():
                    collect(v)
            elif isinstance(value, list):
                for v in value:
                    collect(v)
            elif isinstance(value, str) and value in TABLES:
                used.add(value)
        collect(families)
        for name in list(TABLES):
            if name not in used:
                del TABLES[name]
    covered = {auto.model_type_to_module_name(f["model_type"]) for f in families + failures}
    data = {
        "source": "transformers " + transformers.__version__ + (" at " + args.commit if args.commit else ""),
        "torch": torch.__version__,
        "rope_folders": folders,
        "folders_without_registered_config": sorted(set(folders) - covered),
        "stood_in": sorted(STOOD_IN),
        "families": families,
        "failures": failures,
        "tables": dict(sorted(TABLES.items())),
    }
    # One line per family, per failure and per table (diffs stay readable).
    def dumps(value):
        return json.dumps(value, separators=(",", ":"))
    lines = ["{"]
    for key, value in data.items():
        if isinstance(value, list) and key in ("families", "failures"):
            body = ",\n".join(dumps(v) for v in value)
            lines.append(f"{dumps(key)}:[\n{body}\n],")
        elif isinstance(value, dict):
            body = ",\n".join(f"{dumps(k)}:{dumps(v)}" for k, v in value.items())
            lines.append(f"{dumps(key)}:{{\n{body}\n}},")
        else:
            lines.append(f"{dumps(key)}:{dumps(value)},")
    lines[-1] = lines[-1].rstrip(",")
    lines.append("}")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(families)} families ({sum(f['kind'] == 'text' for f in families)} text), "
          f"{len(failures)} failures, {len(folders)} RoPE folders -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
