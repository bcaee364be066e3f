#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two disassemblies of one translation unit function by function.

    scripts/compare-disassembly.py BEFORE.dis AFTER.dis [--rename OLD=NEW ...] [--list]

BEFORE.dis and AFTER.dis are `objdump -d --no-show-raw-insn UNIT.o` of the same unit built from
two trees (docs/benchmarks.md, "Before and after: one file per ISA", shows the compile line).
Addresses and the offsets of jump and call targets are dropped, so a function compares equal
when its instruction sequence is the same. --rename maps a mangled name piece of AFTER back to
BEFORE's (a renamed function, e.g. 17rope_decode_token=... written OLD=NEW as in the mangled
names: 18rope_one_row_token=17rope_decode_token). Prints the unit's totals, then one line per
group of functions named in GROUPS below (the kernels' hot paths), and with --list every
function that changed, was removed or was added.
"""
import re
import subprocess
import sys

GROUPS = ["rope_token_in_place", "rope_token_loop", "rotate_heads_in_place", "rotate_heads_at",
          "12rotate_headsI", "rope_one_row_token", "rope_decode_token", "11rope_tokensI",
          "rope_tokens_at_offset", "rotate_partial_group", "fused_tokens", "norm_rope_heads"]


def functions(path, renames=()):
    out, name = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            name = m.group(1)
            for old, new in renames:
                name = name.replace(new, old)
            out[name] = []
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
        if m and name is not None:
            ins = re.sub(r"\b[0-9a-f]+ <([^>+]*)(\+0x[0-9a-f]+)?>", r"<\1>", m.group(1))
            ins = re.sub(r"#.*", "", ins).strip()
            for old, new in renames:
                ins = ins.replace(new, old)
            out[name].append(ins)
    return out


def demangle(name):
    return subprocess.run(["c++filt"], input=name, capture_output=True, text=True).stdout.strip()


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    renames = []
    for i, a in enumerate(argv):
        if a == "--rename":
            renames.append(tuple(argv[i + 1].split("=", 1)))
            args.remove(argv[i + 1])
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    before, after = functions(args[0]), functions(args[1], renames)
    same = [n for n in before if after.get(n) == before[n]]
    changed = [n for n in before if n in after and after[n] != before[n]]
    removed = [n for n in before if n not in after]
    added = [n for n in after if n not in before]
    total = lambda fs: sum(len(v) for v in fs.values())
    print(f"instructions {total(before)} -> {total(after)}; functions {len(before)} -> {len(after)}: "
          f"{len(same)} identical, {len(changed)} changed, {len(removed)} removed, {len(added)} added")
    for key in GROUPS:
        b = [n for n in before if key in n]
        a = [n for n in after if key in n]
        if b or a:
            print(f"  {key:24s} {len(b):3d} -> {len(a):3d} functions, {sum(len(before[n]) for n in b):6d} -> "
                  f"{sum(len(after[n]) for n in a):6d} instructions, {sum(1 for n in b if n in same):3d} identical")
    if "--list" in argv:
        for label, names, side in (("changed", changed, after), ("removed", removed, before), ("added", added, after)):
            for n in names:
                print(f"  {label} {len(before.get(n, []))} -> {len(side[n]) if label != 'removed' else 0} {demangle(n)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
