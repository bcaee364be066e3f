#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes include/posenc/models/detail/family_class_defaults.hpp: what each configuration class of transformers
fills in when a config.json leaves it out (num_hidden_layers, hidden_size, num_attention_heads,
num_key_value_heads, rms_norm_eps, head_dim, max_position_embeddings, original_max_position_embeddings,
and the RoPE base: the class's default_theta, its "global" entry
when it is a dict, else a rope_theta field; and the dict's "local" entry, the sliding-window layers' base), for every model_type the config reader has a row for
(known_families in include/posenc/models/detail/family_tables.hpp); and the keys a wrapper merges into its text_config before
building it (`_default_text_config_kwargs`: GLM-ASR, Voxtral, the PE audio / video models), with
the text model type it falls back to.

For maintainers, not run by the build or the tests. It reads the configuration files as text (the
Python syntax tree of their class bodies: `name: type = literal` fields, `attribute_map` aliases and
base classes defined in the same tree); it imports nothing from transformers.

    scripts/extract-class-defaults.py TRANSFORMERS_SRC [COMMIT [NEWER_SRC NEWER_LABEL]]

TRANSFORMERS_SRC is the `src/transformers` folder of a transformers checkout; COMMIT (optional) is
written into the header's comment. NEWER_SRC (optional) is the `transformers` folder of a newer
release (the unpacked wheel: families added after COMMIT); a model_type with no configuration class
at COMMIT takes its row from there, its source marked with NEWER_LABEL ("transformers 5.25.0").
"""
import ast
import json
import pathlib
import re
import sys

FIELDS = ["num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "rms_norm_eps", "head_dim",
          "max_position_embeddings", "original_max_position_embeddings"]


def literal(node):
    """The value of a literal, or of arithmetic on numeric literals (`4096 * 32`); else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow)):
        left, right = literal(node.left), literal(node.right)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                   ast.Pow: lambda a, b: a ** b}
            return ops[type(node.op)](left, right)
        return None
    if isinstance(node, ast.Call):
        # a validated field: `positive_int_field(default=1024)`, `interval(min=0.0)(default=1e-5)`
        return next((literal(k.value) for k in node.keywords if k.arg == "default"), None)
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def parse_classes(models_dir):
    """{class name: (model_type, {field: value}, attribute_map, [base names], path)} of every configuration
    file; a wrapper's sub_configs["text_config"] class is kept as the field "@text_config"."""
    classes = {}
    for path in sorted(models_dir.glob("*/configuration_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            model_type, fields, attribute_map = None, {}, {}
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    name = stmt.targets[0].id
                    if name == "model_type":
                        model_type = literal(stmt.value)
                    elif name == "attribute_map":
                        attribute_map = literal(stmt.value) or {}
                    elif name == "sub_configs" and isinstance(stmt.value, ast.Dict):
                        for k, v in zip(stmt.value.keys, stmt.value.values):
                            if literal(k) == "text_config" and isinstance(v, ast.Name):
                                fields["@text_config"] = v.id
                    else:
                        fields[name] = literal(stmt.value)
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    fields[stmt.target.id] = literal(stmt.value)
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            rel = path.relative_to(models_dir).as_posix()
            classes[node.name] = (model_type, fields, attribute_map, bases, rel)
    return classes


def resolved(classes, name, seen=()):
    """The class's fields and attribute_map, its bases' first (later definitions win)."""
    model_type, fields, attribute_map, bases, _ = classes[name]
    out_fields, out_map = {}, {}
    for base in bases:
        if base in classes and base not in seen:
            f, m = resolved(classes, base, seen + (name,))
            out_fields.update(f)
            out_map.update(m)
    out_fields.update(fields)
    out_map.update(attribute_map)
    return out_fields, out_map


def sizes(classes, name):
    fields, attribute_map = resolved(classes, name)
    out = {}
    theta = fields.get("default_theta", fields.get("rope_theta"))
    local = theta.get("local") if isinstance(theta, dict) else None
    if isinstance(theta, dict):
        theta = theta.get("global")
    out["rope_theta"] = float(theta) if isinstance(theta, (int, float)) and not isinstance(theta, bool) else 0.0
    out["local_rope_theta"] = float(local) if isinstance(local, (int, float)) and not isinstance(local, bool) else 0.0
    for field in FIELDS:
        key = attribute_map.get(field, field)
        value = fields.get(key)
        if field == "rms_norm_eps":
            out[field] = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
        else:
            out[field] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
    return out


def wrapper_text_defaults(models_dir):
    """[(wrapper model_type, fallback text model_type, defaults as JSON, path)] of the configuration
    classes that merge `_default_text_config_kwargs` into their text_config."""
    out = []
    for path in sorted(models_dir.glob("*/configuration_*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            model_type, defaults = None, None
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    if stmt.targets[0].id == "model_type":
                        model_type = literal(stmt.value)
                    elif stmt.targets[0].id == "_default_text_config_kwargs":
                        defaults = literal(stmt.value)
            if not (isinstance(model_type, str) and isinstance(defaults, dict)):
                continue
            segment = ast.get_source_segment(source, node) or ""
            fallback = re.search(r'self\.text_config\.get\("model_type", "([a-z0-9_]+)"\)', segment)
            if not fallback:
                sys.exit(f"{path}: {node.name} merges _default_text_config_kwargs without a fallback text model_type")
            out.append((model_type, fallback.group(1), json.dumps(defaults, separators=(", ", ": ")),
                        path.relative_to(models_dir).as_posix()))
    return out


def extra_config_names(models_dir):
    """{model_type: configuration class name} that configuration_auto.py adds by hand
    (CONFIG_MAPPING_NAMES.update({...}): model types no class declares, such as EvollaModel)."""
    tree = ast.parse((models_dir / "auto" / "configuration_auto.py").read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "CONFIG_MAPPING_NAMES" and node.args):
            value = literal(node.args[0])
            if isinstance(value, dict):
                out.update(value)
    return out


def known_model_types(header):
    text = header.read_text(encoding="utf-8")
    table = text[text.index("known_families[] = {"):text.index("};", text.index("known_families[] = {"))]
    return re.findall(r'^\s*(?:FamilyRules)?\{"([A-Za-z0-9_-]+)", Pairing::', table, flags=re.M)


def class_index(models):
    """(the parsed configuration classes, {model_type: class name}) of a transformers models folder."""
    classes = parse_classes(models)
    by_type = {}
    for name, (model_type, *_rest) in classes.items():
        if isinstance(model_type, str):
            by_type.setdefault(model_type, name)
    for model_type, name in extra_config_names(models).items():
        by_type.setdefault(model_type, name)
    return classes, by_type


def main():
    if len(sys.argv) not in (2, 3, 5):
        sys.exit(__doc__)
    src = pathlib.Path(sys.argv[1])
    commit = sys.argv[2] if len(sys.argv) >= 3 else "(not given)"
    repo = pathlib.Path(__file__).resolve().parent.parent
    trees = [(class_index(src / "models"), "")]
    if len(sys.argv) == 5:
        trees.append((class_index(pathlib.Path(sys.argv[3]) / "models"), f" ({sys.argv[4]})"))
    rows, missing = [], []
    for model_type in known_model_types(repo / "include/posenc/models/detail/family_tables.hpp"):
        found = next(((classes, by_type[model_type], label) for (classes, by_type), label in trees
                      if model_type in by_type), None)
        if found is None:
            missing.append(model_type)
            continue
        classes, name, label = found
        text_class = resolved(classes, name)[0].get("@text_config")
        if text_class in classes:  # a wrapper read flat (Qwen2-VL's legacy layout): its text config's defaults
            name = text_class
        s = sizes(classes, name)
        rows.append((model_type, s, classes[name][4] + label))
    if missing:
        print("no configuration class at this commit (no row written): " + ", ".join(missing), file=sys.stderr)
    width = max(len(r[0]) for r in rows) + 4
    lines = []
    for model_type, s, path in rows:
        eps = repr(s["rms_norm_eps"]) if s["rms_norm_eps"] else "0.0"
        theta = repr(s["rope_theta"]) if s["rope_theta"] else "0.0"
        local = repr(s["local_rope_theta"]) if s["local_rope_theta"] else "0.0"
        lines.append(f'    {{{(chr(34) + model_type + chr(34) + ",").ljust(width)} {s["num_hidden_layers"]:>4}, '
                     f'{s["hidden_size"]:>6}, {s["num_attention_heads"]:>4}, {s["num_key_value_heads"]:>4}, {eps:>8}, '
                     f'{theta:>11}, {local:>8}, {s["head_dim"]:>5}, {s["max_position_embeddings"]:>8}, '
                     f'{s["original_max_position_embeddings"]:>6}, "{path}"}},')
    wrappers = []
    for model_type, fallback, defaults, path in wrapper_text_defaults(src / "models"):
        escaped = defaults.replace("\\", "\\\\").replace('"', '\\"')
        wrappers.append(f'    {{"{model_type}", "{fallback}",\n     "{escaped}",\n     "{path}"}},')
    header = HEADER.replace("@COMMIT@", commit).replace("@ROWS@", "\n".join(lines)).replace("@WRAPPERS@", "\n".join(wrappers))
    (repo / "include/posenc/models/detail/family_class_defaults.hpp").write_text(header, encoding="utf-8")
    print(f"{len(rows)} rows written")


HEADER = """// SPDX-License-Identifier: MIT
// posenc/models/detail/family_class_defaults.hpp: what a configuration class of transformers fills
// in when a config.json leaves it out, per model_type (the attention sizes and the RoPE base), and
// the keys a wrapper merges into its text_config. The row types, what each column means and the
// look-ups are in posenc/models/hf_class_defaults.hpp, which includes this file after them.
//
// GENERATED by scripts/extract-class-defaults.py from transformers' configuration files (commit
// @COMMIT@); edit the script, not this table. One row per model_type of known_families
// (family_tables.hpp). A value of 0 means the class declares no literal default for the field.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/family_class_defaults.hpp is internal to the config reader: include <posenc/models/hf_class_defaults.hpp> instead"
#endif

namespace posenc::hf {

/// The table (generated; see the file comment).
inline constexpr ClassDefaults class_defaults_table[] = {
    // model_type            layers  hidden heads  kv    rms_norm_eps  rope_theta  local_rope_theta  head_dim  max_position_embeddings  original
@ROWS@
};

/// The wrappers (generated; see the file comment).
inline constexpr WrapperTextDefaults wrapper_text_defaults_table[] = {
@WRAPPERS@
};

}  // namespace posenc::hf
"""

if __name__ == "__main__":
    main()
