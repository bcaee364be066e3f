#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Maintainers' sweep: the QK-norm of every model_type posenc knows, as transformers' own modules behave.

Usage (the environment of scripts/sweep-transformers.py, whose import shims it reuses):

    /usr/bin/python3 scripts/sweep-qk-norm.py TRANSFORMERS_SRC [--out tests/data/qk_norm_sweep.json] [--commit SHA]

For each model_type of include/posenc/models/detail/family_tables.hpp (known_families) that transformers registers, the
script builds the configuration class with its defaults, made small (hidden_size 64, 4 heads of
16, 2 key-value heads, 2 layers, small experts), builds the family's first decoder layer class
that accepts it (`*DecoderLayer`, not a vision or audio one) and looks at its attention module
(`self_attn`, `attention`, `attn`) for children named q_norm, k_norm, q_layernorm, k_layernorm,
qk_norm or query_norm / key_norm. For each norm found it records the class, the weight's shape,
and what the module computes, probed with its parameters set to zero:
  - output 0 for a random head: the weight multiplies (x/rms * w or LayerNorm); then, with the
    weight set to 1, a constant head gives 1 (RMSNorm: "rms_weight") or 0 (mean subtracted:
    "layer_norm");
  - output x / rms(x): the weight enters as 1 + w ("rms_one_plus_weight"), or there is no weight
    ("rms_no_weight");
  - anything else: "other";
and its scope: a weight of head_dim values "per_head", of num_heads * head_dim values in one
vector "per_projection", one per head (a 2-D weight or a list of norms) "per_head_own_weight".
Families whose rule has a switch key (posenc's qk_norm_rules) are also built with the key set to
the opposite of its class default. Where the norm sits against RoPE (before or after) is not
probed: it is read from the forward. The output holds facts only; no transformers code is
copied.
"""
import argparse
import importlib
import importlib.util
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NORM_NAMES = re.compile(r"^(q|k|qk|query|key)_?(norm|layernorm)$")
SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
         "intermediate_size": 64, "moe_intermediate_size": 32, "num_hidden_layers": 2, "vocab_size": 128,
         "num_experts": 4, "n_routed_experts": 4, "num_local_experts": 4, "num_experts_per_tok": 2,
         "shared_expert_intermediate_size": 32}
SWITCHES = {"glm4_moe": ("use_qk_norm", False), "llama4_text": ("use_qk_norm", True),
            "phi": ("qk_layernorm", False), "persimmon": ("qk_layernorm", True),
            "stablelm": ("qk_layernorm", False), "cohere": ("use_qk_norm", False)}


def known_model_types():
    text = open(os.path.join(ROOT, "include", "posenc", "models", "detail", "family_tables.hpp")).read()
    return sorted(set(re.findall(r'\{"([A-Za-z0-9_.-]+)", Pairing::', text)))


def load_sweep():
    spec = importlib.util.spec_from_file_location("sweep_transformers", os.path.join(ROOT, "scripts", "sweep-transformers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_config(config_cls, overrides):
    config = config_cls()
    for key, value in {**SMALL, **overrides}.items():
        try:
            present = key in overrides or hasattr(config, key)
        except Exception:  # noqa: BLE001 - a per-layer attribute (Gemma 4's head_dim) refuses global access
            present = False
        if present:
            try:
                setattr(config, key, value)
            except Exception:  # noqa: BLE001 - a derived attribute refuses assignment
                pass
    config._attn_implementation = "eager"
    return config


def attention_of(module, config):
    """The attention module of the family's first layer class (decoder layers first) that accepts
    the config at some layer index and has one (hybrid models: the first attention layer)."""
    classes = [(name, cls) for name, cls in sorted(vars(module).items())
               if isinstance(cls, type) and cls.__module__ == module.__name__ and re.search(r"(Layer|Block)$", name)
               and not re.search(r"Vision|Audio|Visual|Code2Wav|Speech|Patch|Norm|Embed|Mlp|MLP|Expert", name)]
    classes.sort(key=lambda c: (not c[0].endswith("DecoderLayer"), c[0]))
    for name, cls in classes:
        for args in [(config, i) for i in range(4)] + [(config,)]:
            try:
                layer = cls(*args)
            except Exception:  # noqa: BLE001
                continue
            for attr in ("self_attn", "attention", "attn", "self_attention"):
                attn = getattr(layer, attr, None)
                if attn is not None and isinstance(attn, __import__("torch").nn.Module):
                    return name, attn
    return None, None


def probe(torch, norm, head_dim, heads):
    params = list(norm.parameters())
    weights = [p for n, p in norm.named_parameters() if n.endswith("weight")]
    numel = sum(w.numel() for w in weights)
    shape = [list(w.shape) for w in weights]
    scope = ("per_head" if numel in (0, head_dim) else
             "per_head_own_weight" if len(weights) > 1 or (weights and weights[0].dim() == 2) else "per_projection")
    n = head_dim if scope == "per_head" else numel
    x = torch.randn(1, 1, n, dtype=torch.float32)

    def call(v):
        for shaped in (v, v.view(1, 1, -1, head_dim), v.view(1, -1, 1, head_dim)):
            try:
                return norm(shaped).reshape(-1)
            except Exception:  # noqa: BLE001 - the module wants another layout
                continue
        raise RuntimeError("no layout accepted")

    with torch.no_grad():
        for p in params:
            p.zero_()
        try:
            out = call(x)
        except Exception as e:  # noqa: BLE001
            return {"class": type(norm).__name__, "weight_shape": shape, "kind": "other", "scope": scope,
                    "error": str(e)[:200]}
        heads_x = x.view(-1, head_dim) if scope != "per_projection" else x.view(1, -1)
        rms = heads_x / torch.sqrt(heads_x.pow(2).mean(-1, keepdim=True) + 1e-6)
        if torch.allclose(out, torch.zeros_like(out), atol=1e-6):
            for w in weights:
                w.fill_(1.0)
            constant = call(torch.full_like(x, 3.0))
            kind = "rms_weight" if torch.allclose(constant, torch.ones_like(constant), atol=1e-3) else (
                "layer_norm" if torch.allclose(constant, torch.zeros_like(constant), atol=1e-3) else "other")
        elif torch.allclose(out, rms.reshape(-1), atol=1e-3):
            kind = "rms_one_plus_weight" if weights else "rms_no_weight"
        else:
            kind = "other"
    return {"class": type(norm).__name__, "weight_shape": shape, "kind": kind, "scope": scope}


def sweep_one(torch, auto, model_type, overrides):
    folder = auto.model_type_to_module_name(model_type)
    config = small_config(auto.CONFIG_MAPPING[model_type], overrides)
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    layer, attn = attention_of(module, config)
    if attn is None:
        return {"error": "no decoder layer class accepted the config"}
    def get(obj, name):
        try:
            return getattr(obj, name, None)
        except Exception:  # noqa: BLE001 - per-layer attributes refuse global access
            return None
    head_dim = get(attn, "head_dim") or get(config, "head_dim") or 16
    heads = get(config, "num_attention_heads") or 4
    norms = {name: probe(torch, child, int(head_dim), heads) for name, child in attn.named_children()
             if NORM_NAMES.match(name)}
    return {"layer": layer, "attention": type(attn).__name__, "head_dim": int(head_dim), "norms": norms}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", help="the src folder of a transformers checkout")
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "qk_norm_sweep.json"))
    parser.add_argument("--commit", default="")
    args = parser.parse_args()
    sweep = load_sweep()
    torch = sweep.prepare_environment(os.path.abspath(args.src))
    torch.manual_seed(0)
    from transformers.models.auto import configuration_auto as auto
    result = {"transformers_commit": args.commit, "model_types": {}}
    for model_type in known_model_types():
        if model_type not in auto.CONFIG_MAPPING_NAMES:
            continue
        entries = {"default": {}}
        if model_type in SWITCHES:
            key, default = SWITCHES[model_type]
            entries[f"{key}={not default}"] = {key: not default}
        facts = {}
        for label, overrides in entries.items():
            try:
                facts[label] = sweep_one(torch, auto, model_type, overrides)
            except Exception as e:  # noqa: BLE001
                facts[label] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        result["model_types"][model_type] = facts
        d = facts["default"]
        print(f"{model_type}: " + (d["error"][:80] if "error" in d else
                                   ", ".join(f"{n} {v['kind']} {v['scope']}" for n, v in d["norms"].items()) or "none"),
              file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
