#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes include/posenc/models/hf_class_defaults.hpp: the attention sizes each configuration class
of transformers fills in when a config.json leaves them out (num_hidden_layers, hidden_size,
num_attention_heads, num_key_value_heads, rms_norm_eps), for every model_type the config reader has
a row for (include/posenc/models/hf_families.hpp).

For maintainers, not run by the build or the tests. It reads the configuration files as text (the
Python syntax tree of their class bodies: `name: type = literal` fields, `attribute_map` aliases and
base classes defined in the same tree); it imports nothing from transformers.

    scripts/extract-class-defaults.py TRANSFORMERS_SRC [COMMIT]

TRANSFORMERS_SRC is the `src/transformers` folder of a transformers checkout; COMMIT (optional) is
written into the header's comment.
"""
import ast
import pathlib
import re
import sys

FIELDS = ["num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "rms_norm_eps"]


def literal(node):
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
    for field in FIELDS:
        key = attribute_map.get(field, field)
        value = fields.get(key)
        if field == "rms_norm_eps":
            out[field] = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
        else:
            out[field] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
    return out


def known_model_types(header):
    text = header.read_text(encoding="utf-8")
    table = text[text.index("known_families[] = {"):text.index("};", text.index("known_families[] = {"))]
    return re.findall(r'^\s*(?:FamilyRules)?\{"([a-z0-9_]+)", Pairing::', table, flags=re.M)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = pathlib.Path(sys.argv[1])
    commit = sys.argv[2] if len(sys.argv) == 3 else "(not given)"
    repo = pathlib.Path(__file__).resolve().parent.parent
    classes = parse_classes(src / "models")
    by_type = {}
    for name, (model_type, *_rest) in classes.items():
        if isinstance(model_type, str):
            by_type.setdefault(model_type, name)
    rows, missing = [], []
    for model_type in known_model_types(repo / "include/posenc/models/hf_families.hpp"):
        name = by_type.get(model_type)
        if name is None:
            missing.append(model_type)
            continue
        text_class = resolved(classes, name)[0].get("@text_config")
        if text_class in classes:  # a wrapper read flat (Qwen2-VL's legacy layout): its text config's defaults
            name = text_class
        s = sizes(classes, name)
        rows.append((model_type, s, classes[name][4]))
    if missing:
        print("no configuration class at this commit (no row written): " + ", ".join(missing), file=sys.stderr)
    width = max(len(r[0]) for r in rows) + 4
    lines = []
    for model_type, s, path in rows:
        eps = repr(s["rms_norm_eps"]) if s["rms_norm_eps"] else "0.0"
        lines.append(f'    {{{(chr(34) + model_type + chr(34) + ",").ljust(width)} {s["num_hidden_layers"]:>4}, '
                     f'{s["hidden_size"]:>6}, {s["num_attention_heads"]:>4}, {s["num_key_value_heads"]:>4}, {eps:>8}, "{path}"}},')
    header = HEADER.replace("@COMMIT@", commit).replace("@ROWS@", "\n".join(lines))
    (repo / "include/posenc/models/hf_class_defaults.hpp").write_text(header, encoding="utf-8")
    print(f"{len(rows)} rows written")


HEADER = """// SPDX-License-Identifier: MIT
// posenc/models/hf_class_defaults.hpp: the attention sizes a configuration class of transformers
// fills in when a config.json leaves them out, per model_type.
//
// GENERATED by scripts/extract-class-defaults.py from transformers' configuration files (commit
// @COMMIT@); edit the script, not this table. One row per model_type of hf_families.hpp. A value of
// 0 means the class declares no literal default for the field (num_key_value_heads 0: the class
// sets it to num_attention_heads; rms_norm_eps 0: the model has no RMS norm default here).
//
// The config reader (hf_config.hpp) uses num_hidden_layers when a config gives neither it nor
// layer_types (the layer count is then the class's, with a note), and reports the other sizes in
// HfModel for engines. They do not enter the RoPE tables except through head_dim = hidden_size //
// num_attention_heads when a config gives none of the three.
#pragma once

#include <string_view>

namespace posenc::hf {

/// The sizes the configuration class of `model_type` defaults to (0: no default).
struct ClassDefaults {
    std::string_view model_type;
    int num_hidden_layers;
    int hidden_size;
    int num_attention_heads;
    int num_key_value_heads;  ///< 0: num_attention_heads
    double rms_norm_eps;      ///< 0: none
    std::string_view source;  ///< the configuration file, relative to src/transformers/models/
};

/// The table (generated; see the file comment).
inline constexpr ClassDefaults class_defaults_table[] = {
    // model_type            layers  hidden heads  kv    rms_norm_eps
@ROWS@
};

/// The class defaults of `model_type`, or nullptr.
inline const ClassDefaults* find_class_defaults(std::string_view model_type) noexcept
{
    for (const ClassDefaults& d : class_defaults_table)
        if (d.model_type == model_type) return &d;
    return nullptr;
}

}  // namespace posenc::hf
"""

if __name__ == "__main__":
    main()
