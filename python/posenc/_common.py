# SPDX-License-Identifier: MIT
"""posenc._common: the helpers posenc.export and posenc.torch share (private).

    error(field, value, rule[, message])   a posenc.Error raised from Python, with its parts
    config_source(config)                  a config as the reader takes it
    model_rope(config)                     the ModelRope of a config, HfModel or ModelRope
    hf_module_layout(rope, source)         the row layout of transformers' rotary module
    rows_to_torch(array, dtype)            a C++ row table as a torch tensor, without a copy
    group_of(rope, layer_type)             the RopeGroup a call means

It imports only the native module (and NumPy), so export.py and torch.py both import from here and
neither from the other.
"""

import os as _os

from . import _posenc


def error(field, value, rule, message=None):
    """A posenc.Error raised from Python, with the field, value and rule attributes the native ones
    carry; the message is '<field> <value> <rule>' unless given (the config reader's layout)."""
    e = _posenc.Error(message if message is not None else "%s %s %s" % (field, value, rule))
    e.field, e.value, e.rule = field, value, rule
    return e


_error = error


# ---------------------------------------------------------------- configs
def _json_value(value, depth):
    """value with the Python containers JSON has no form for made JSON's: sets and frozensets as
    sorted lists (a transformers config holds some, e.g. Qwen2.5-VL's
    ignore_keys_at_rope_validation), tuples as lists, nested config objects as dicts. Numbers,
    strings, None and what the reader refuses by itself are left as they are."""
    if depth > 64:
        raise _error("config", "object", "is nested more than 64 levels deep")
    if isinstance(value, dict):
        return {k: _json_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [_json_value(v, depth + 1) for v in value]
        try:
            return sorted(items)
        except TypeError:  # mixed types: a stable order all the same
            return sorted(items, key=repr)
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        to_dict = getattr(value, "to_dict", None)
        return _json_value(to_dict() if callable(to_dict) else _attributes(value, depth + 1), depth + 1)
    return value


def _attributes(obj, depth=0):
    """An object's public attributes as a dict (nested config objects as dicts): for configs that
    are neither dicts nor have to_dict()."""
    if depth > 64:
        raise _error("config", "object", "is nested more than 64 levels deep")
    return {key: value for key, value in vars(obj).items() if not key.startswith("_") and not callable(value)}


def config_source(config):
    """A config as the reader takes it: a dict or a path as they are; an object with to_dict() (a
    transformers PretrainedConfig) as to_dict(); any other object as its public attributes. Values
    of an object's dict JSON cannot hold as they are (sets, tuples, nested config objects) become
    JSON's (_json_value)."""
    if isinstance(config, (dict, str, bytes, _os.PathLike)):
        return config
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        return _json_value(to_dict(), 0)
    if hasattr(config, "__dict__"):
        return _json_value(_attributes(config), 0)
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


# Interleaved-pair families whose transformers rotary module still returns cos/sin rows, and the
# row layout it returns (the interleaving is done in their apply): DeepSeek-V3, GLM and GLM-4
# (modeling_deepseek_v3.py / modeling_glm.py / modeling_glm4.py: emb = cat((freqs, freqs), -1)),
# Cohere (modeling_cohere.py / modeling_cohere2.py: emb = repeat_interleave(freqs, 2, -1)). Other
# interleaved families (Llama 4, DeepSeek-V2: complex freqs_cis) have no such rows.
_INTERLEAVED_FAMILY_ROWS = {"deepseek_v3": "cat", "glm": "cat", "glm4": "cat",
                            "cohere": "repeat_interleave", "cohere2": "repeat_interleave"}


def _model_type(source):
    if isinstance(source, _posenc.HfModel):
        return source.model_type
    if isinstance(source, (str, bytes, _os.PathLike)):
        import json

        try:
            with open(source, "rb") as f:
                source = json.load(f)
        except (OSError, ValueError):
            return None
    if isinstance(source, dict):
        return source.get("model_type")
    return None


def hf_module_layout(rope, source):
    """The row layout transformers' rotary module of this model returns: "cat" (cat(freqs, freqs))
    for half-split models and for the interleaved families that still return rows (DeepSeek-V3,
    GLM, GLM-4), "repeat_interleave" for Cohere; posenc.Error naming the pairing and the model_type
    for the others (source: the config, for its model_type)."""
    interleaved = [g.name for g in rope.groups if str(g.spec.pairing).split(".")[-1] != "half_split"]
    if not interleaved:
        return "cat"
    model_type = _model_type(source)
    layout = _INTERLEAVED_FAMILY_ROWS.get(model_type)
    if layout is None:
        raise _error("pairing", "\"interleaved\"",
                     "is not served for model_type %s: transformers' rotary modules return cos/sin rows "
                     "for interleaved pairs only for %s; use posenc.apply_rope (group \"%s\")"
                     % (model_type, ", ".join(sorted(_INTERLEAVED_FAMILY_ROWS)), interleaved[0]))
    return layout


def rows_to_torch(array, dtype):
    """A row table from the C++ module (float32 / float64, or float16 / bfloat16 as uint16 storage
    bits) as a torch tensor of `dtype`, without copying."""
    import numpy
    import torch

    if array.dtype == numpy.uint16:
        return torch.from_numpy(array.view(numpy.int16)).view(dtype)
    return torch.from_numpy(array)


def group_of(rope, layer_type):
    """The RopeGroup named `layer_type`, or the only group when layer_type is None."""
    if layer_type is not None:
        return rope.group(layer_type)
    if rope.num_groups != 1:
        names = ", ".join(g.name for g in rope.groups)
        raise _error("layer_type", "None", "must name one of this model's RoPE groups (%s)" % names)
    return rope.groups[0]
