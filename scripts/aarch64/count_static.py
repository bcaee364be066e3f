# SPDX-License-Identifier: MIT
"""Static size of the decode steps in a probe binary (scripts/aarch64/decode_probe.cpp).

Reads `objdump -d -C --no-show-raw-insn` output. For each decode step of the probe's arch
(float32 half-split, float32 interleaved, bfloat16 and float16 half-split, cached table) it
follows every call and jump to another function, transitively, and prints the instructions of
all the code reached and the call sites in it (bl/blr on AArch64, call on x86), split into calls
to posenc's own kernel functions (once per token or per block of registers), to memcpy (the
copy of a partial register at the end of a row, never reached when the row is a multiple of the
register; the execution count of scripts/aarch64/count_trace.py shows it is not) and to anything
else (a library or xsimd function: what must not happen). Exit status 1 when any decode step
reaches a call of the last kind.
"""
import re
import sys

HEADER = re.compile(r"^[0-9a-f]+ <(.+)>:$")
TARGET = re.compile(r"\s[0-9a-f]+ <(.*?)(\+0x[0-9a-f]+)?>\s*$")
STEP = re.compile(r"decode_step<([^,]+), \(posenc::Pairing\)(\d), (float|posenc::bfloat16|posenc::float16), "
                  r"posenc::kernels::CosSinCache>")
CALL = re.compile(r"^\s*[0-9a-f]+:\s+(bl|blr|call|callq)\b")
BRANCH = re.compile(r"^\s*[0-9a-f]+:\s+(b|jmp|jmpq|bl|call|callq)\s")


def functions(lines):
    table, name = {}, None
    for line in lines:
        m = HEADER.match(line)
        if m:
            name = m.group(1)
            table[name] = []
        elif name and re.match(r"^\s*[0-9a-f]+:\s", line) and not re.search(r":\s+(nop|xchg\s+%ax,%ax|data16|cs nopw)", line):
            table[name].append(line.rstrip("\n"))  # alignment padding (nop) not counted
    return table


def reach(table, entry):
    seen, todo = [], [entry]
    while todo:
        f = todo.pop()
        if f in seen or f not in table:
            continue
        seen.append(f)
        for line in table[f]:
            if BRANCH.match(line):
                m = TARGET.search(line)
                if m and m.group(1) != f and "posenc::kernels::" in m.group(1):
                    todo.append(m.group(1))
    return seen


def main():
    table = functions(sys.stdin)
    names = {"0float": "float32 half_split", "1float": "float32 interleaved",
             "0posenc::bfloat16": "bfloat16 half_split", "0posenc::float16": "float16 half_split"}
    failed = False
    print(f"{'decode step (32 x 128)':<26}{'arch':<40}{'instructions':>13}{'functions':>10}{'kernel calls':>13}"
          f"{'tail memcpy':>12}{'other calls':>12}")
    for f in table:
        m = STEP.search(f)
        if not m or (m.group(2) + m.group(3)) not in names:
            continue
        code = reach(table, f)
        instructions = sum(len(table[g]) for g in code)
        kernel_calls = other_calls = tail_copies = 0
        others = set()
        for g in code:
            for line in table[g]:
                if CALL.match(line):
                    t = TARGET.search(line)
                    if t and "posenc::kernels::" in t.group(1):
                        kernel_calls += 1
                    elif t and t.group(1).startswith("memcpy@"):
                        tail_copies += 1
                    else:
                        other_calls += 1
                        others.add(t.group(1) if t else line.split()[-1])
        print(f"{names[m.group(2) + m.group(3)]:<26}{m.group(1):<40}{instructions:>13}{len(code):>10}{kernel_calls:>13}"
              f"{tail_copies:>12}{other_calls:>12}")
        if other_calls:
            failed = True
            print("  FAIL: calls out of line to " + ", ".join(sorted(others)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
