# SPDX-License-Identifier: MIT
"""Counts what decode_probe.cpp ran between its markers, from qemu-aarch64's trace.

Reads the log of `qemu-aarch64 -singlestep -d in_asm,exec,nochain` (one instruction per
translation block: "IN:" blocks give each address's instruction, "Trace" lines the executed
addresses in order, each with its function's symbol). For each region between probe_begin and
probe_end, in the order the probe runs them (names given on the command line), it prints the
executed instructions, per element, the calls (bl/blr) executed inside the measured function
and the scalar element operations (16-bit or single-float loads and stores, scalar float
arithmetic and conversions: what a per-element loop runs), and returns 1 when a region other
than the reference breaks the rules below.

Rules (a region named stream_* is the reference and only counted):
  - every function executed is one of posenc's kernel functions, and they call each other at
    most --max-calls times per step (once per token or block of registers, never per register:
    a call out of line per register spills and reloads it);
  - scalar element operations at most --max-scalar (a vector path has none per element);
  - instructions per element at most --max-per-element.
"""
import argparse
import re
import sys

SCALAR = re.compile(r"^(ldrh|strh|ldr\s+[hs]\d|str\s+[hs]\d|ldur\s+[hs]\d|stur\s+[hs]\d|"
                    r"fmadd|fmsub|fnmadd|fnmsub|fmul\s+s\d|fadd\s+s\d|fsub\s+s\d|fcvt\s+[hs]\d|bfcvt\s+h\d)")
MARKERS = ("probe_begin", "probe_end")


def parse(path):
    text = {}  # address -> instruction
    regions = []  # list of [(address, symbol)]
    current = None
    pending_in = False
    with open(path, errors="replace") as log:
        for line in log:
            if line.startswith("IN:"):
                pending_in = True
                continue
            if pending_in and line.startswith("0x"):
                address, rest = line.split(":", 1)
                fields = rest.split(None, 1)  # encoding, instruction
                text[int(address, 16)] = fields[1].strip() if len(fields) > 1 else ""
                pending_in = False
                continue
            if not line.startswith("Trace"):
                continue
            m = re.search(r"\[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\]\s*(\S*)", line)
            if not m:
                continue
            address, symbol = int(m.group(1), 16), m.group(2)
            if symbol == "probe_begin":
                current = []
                continue
            if symbol == "probe_end":
                if current is not None:
                    regions.append(current)
                current = None
                continue
            if current is not None:
                current.append((address, symbol))
    return text, regions


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--elements", type=int, required=True)
    parser.add_argument("--max-scalar", type=int, default=0)
    parser.add_argument("--max-per-element", type=float, default=4.0)
    parser.add_argument("--max-calls", type=int, default=4)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    text, regions = parse(args.log)
    if len(regions) != len(args.names):
        print(f"count_trace: {len(regions)} marked regions in the trace, {len(args.names)} expected")
        return 1
    failed = False
    print(f"{'region':<24}{'instructions':>14}{'per element':>13}{'calls':>7}{'scalar ops':>12}  functions")
    for name, region in zip(args.names, regions):
        # the probe's own glue (run_step: argument set-up and the indirect call) is not measured
        measured = [(a, s) for a, s in region if not s.startswith("_Z8run_step") and s not in MARKERS and s != "main"]
        instructions = [text.get(a, "?") for a, _ in measured]
        calls = sum(1 for i in instructions if re.match(r"^bl(r)?\s", i))
        scalar = sum(1 for i in instructions if SCALAR.match(i))
        functions = sorted({s for _, s in measured})
        per_element = len(measured) / args.elements
        print(f"{name:<24}{len(measured):>14}{per_element:>13.3f}{calls:>7}{scalar:>12}  {len(functions)}")
        if name.startswith("stream"):
            continue
        problems = []
        foreign = [f for f in functions if not f.startswith("_ZN6posenc7kernels")]
        if foreign:
            problems.append("executed outside posenc's kernels: " + " ".join(foreign))
        if calls > args.max_calls:
            problems.append(f"{calls} calls out of line (at most {args.max_calls})")
        if scalar > args.max_scalar:
            problems.append(f"{scalar} scalar element operations (a per-element loop)")
        if per_element > args.max_per_element:
            problems.append(f"{per_element:.3f} instructions per element > {args.max_per_element}")
        if problems:
            failed = True
            print(f"  FAIL {name}: " + "; ".join(problems))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
