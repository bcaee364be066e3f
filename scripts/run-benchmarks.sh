#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the kernel benchmarks (benchmarks/bench_kernels.cpp) and writes a report: the table of
# medians with bytes/s and ratios to the in-process streaming loop, the kernels' performance
# targets checked against them, the machine (lscpu model and flags), the compiler and flags,
# the commit, and whether the run can be judged at all (a loaded machine, a short run).
#
#   scripts/run-benchmarks.sh                  # Release build in build/bench, 7 repetitions,
#                                              # report in build/benchmarks/benchmarks.md
#   scripts/run-benchmarks.sh --update-docs    # the same, written into docs/benchmarks.md
#   BUILD_DIR=/tmp/b MIN_TIME=0.2 scripts/run-benchmarks.sh --benchmark_filter=prefill_f32
#
# Other arguments go to the benchmark binary. Environment: BUILD_DIR, CXX (compiler), MIN_TIME
# (seconds per repetition, default 0.5), REPETITIONS (default 7), OUT_DIR (default
# build/benchmarks: the report, the raw console output without colour codes, the JSON), OUT (the
# report's path, overriding both defaults).
#
# What it prints: the ordered table and the targets, plain text, after the run (the raw console
# output, whose rows come in random order because repetitions are interleaved, goes to
# OUT_DIR/bench_kernels.txt). A run is marked NOT JUDGEABLE, and every target it misses says so,
# when the load average exceeded half the CPUs at its start or end, when a streaming baseline's
# repetitions varied by more than 10 % (coefficient of variation), or when it was too short to
# measure (MIN_TIME < 0.1 s or REPETITIONS < 5): then a "NOT met" is noise until a quiet run
# repeats it.
#
# Google Benchmark's "***WARNING*** Library was built as DEBUG. Timings may be affected." comes
# from Debian's libbenchmark (1.7.1-1): its shared library is compiled without -DNDEBUG (the
# string is in libbenchmark.so only under #ifndef NDEBUG), so the library's own assertions run.
# It concerns the library's bookkeeping around each timed loop, not posenc's code, which this
# script compiles with -O3 -DNDEBUG (the flags line of the report); that overhead is the same for
# a kernel and its streaming baseline, and the ratios are what the report judges.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh  # includes Debian's python3 (used below as /usr/bin/python3)

update_docs=0
bench_args=()
for arg in "$@"; do
  if [ "$arg" = "--update-docs" ]; then update_docs=1; else bench_args+=("$arg"); fi
done
build="${BUILD_DIR:-build/bench}"
out_dir="${OUT_DIR:-build/benchmarks}"
mkdir -p "$out_dir"
if [ -n "${OUT:-}" ]; then out="$OUT"
elif [ "$update_docs" = 1 ]; then out=docs/benchmarks.md
else out="$out_dir/benchmarks.md"
fi
min_time="${MIN_TIME:-0.5}"
repetitions="${REPETITIONS:-7}"
compiler_arg=()
[ -n "${CXX:-}" ] && compiler_arg=(-DCMAKE_CXX_COMPILER="$CXX")

# The `bench` preset (CMakePresets.json), in BUILD_DIR.
cmake --preset bench -B "$build" "${compiler_arg[@]}" >/dev/null
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt"; then
  echo "run-benchmarks: $build is not a Release build (a changed compiler resets the cache); run again" >&2
  cmake --preset bench -B "$build" >/dev/null
fi
cmake --build "$build" --target bench_kernels -j "$(nproc)"
echo "run-benchmarks: running bench_kernels ($repetitions repetitions of >= $min_time s each); raw output: $out_dir/bench_kernels.txt"

raw="$out_dir/bench_kernels.txt"
json="$out_dir/bench_kernels.json"
load_start="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
# Repetitions of all benchmarks are interleaved in random order, so that a burst of load from
# another process spreads over every row instead of inflating one row (or its baseline).
"$build/benchmarks/bench_kernels" --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_enable_random_interleaving=true --benchmark_min_time="$min_time" \
  --benchmark_color=false --benchmark_out="$json" --benchmark_out_format=json ${bench_args[@]+"${bench_args[@]}"} >"$raw" 2>&1 ||
  { echo "run-benchmarks: bench_kernels failed; its output: $raw" >&2; tail -20 "$raw" >&2; exit 1; }
load_end="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"

cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
compiler_version="$("$cxx" --version | head -1)"
# the flags bench_kernels.cpp was really compiled with (includes and dependency options dropped)
flags="$(/usr/bin/python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith("bench_kernels.cpp"):
        words = e["command"].split()[1:]
        keep, skip = [], False
        for w in words:
            if skip: skip = False; continue
            if w in ("-o", "-c", "-MF", "-MT", "-isystem", "-I"): skip = True; continue
            if w.startswith(("-I", "-MD", "/")): continue
            keep.append(w)
        print(" ".join(keep))
' "$build/compile_commands.json")"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with uncommitted changes)"
model="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
cpus="$(nproc)"
cpu_flags="$(lscpu | sed -n 's/^Flags: *//p' | tr ' ' '\n' | grep -E '^(sse4_2|avx|avx2|fma|f16c|avx512[a-z_0-9]*)$' | tr '\n' ' ')"
load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

/usr/bin/python3 - "$json" "$out" "$compiler_version" "$flags" "$commit" "$model" "$cpus" "$cpu_flags" "$load" "$min_time" "$repetitions" "$load_start" "$load_end" <<'PY'
import json, sys, datetime
path, out, compiler, flags, commit, model, cpus, cpu_flags, load, min_time, reps, load_start, load_end = sys.argv[1:14]
data = json.load(open(path))
rows = {}
keyed = []
cv = {}  # coefficient of variation of each benchmark's repetitions (Google Benchmark's "cv" aggregate)
for b in data["benchmarks"]:
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "cv":
        cv[b["run_name"].replace("/real_time", "")] = b["real_time"]
    if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
        continue
    name = b["run_name"].replace("/real_time", "")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    rows[name] = {"seconds": b["real_time"] * unit, "bytes_per_second": b.get("bytes_per_second", 0.0),
                  "counters": {k: v for k, v in b.items() if k.endswith("_vs_plain")}}
    keyed.append(((b.get("family_index", len(keyed)), b.get("per_family_instance_index", 0)), name))
order = [name for _, name in sorted(keyed)]  # registration order (repetitions ran interleaved)

# Can this run be judged? (see the script's header)
problems = []
busy = max(float(load_start or 0), float(load_end or 0))
if busy > 0.5 * int(cpus):
    problems.append(f"the machine was loaded: load average {busy:.2f} at the start or end, above half of {cpus} CPUs")
baselines = {n: v for n, v in cv.items() if "/stream/" in n or "/copy_kv/" in n}
noisy = {n: v for n, v in baselines.items() if v > 0.10}
if noisy:
    worst = max(noisy, key=noisy.get)
    problems.append(f"{len(noisy)} streaming baselines varied by more than 10 % between repetitions "
                    f"(worst `{worst}`: {100 * noisy[worst]:.0f} %)")
if float(min_time) < 0.1 or int(reps) < 5:
    problems.append(f"the run was too short to measure: {reps} repetitions of {min_time} s "
                    "(judge with at least 5 repetitions of 0.1 s; the defaults are 7 of 0.5 s)")
judgeable = not problems

def group_shape(name):
    parts = name.split("/")
    return parts[0], parts[1], "/".join(parts[2:])

def stream_of(name):
    g, _, shape = group_shape(name)
    return rows.get(f"{g}/stream/{shape}") or rows.get(f"{g}/copy_kv/{shape}")

def fmt_time(s):
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.3f} us"

lines = []
lines.append("# Kernel benchmarks")
lines.append("")
lines.append("Generated by `scripts/run-benchmarks.sh` from `benchmarks/bench_kernels.cpp` (Google Benchmark, "
             f"{reps} repetitions of at least {min_time} s each in random interleaved order, medians, real time). "
             "Every row is compared with the "
             "in-place streaming loop `x[i] *= c` over the same bytes, measured in the same process "
             "(`GROUP/stream/SHAPE`); see the source's header comment for what each variant does.")
lines.append("")
lines.append(f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; commit {commit}")
lines.append(f"- Machine: {model}, {cpus} CPUs; SIMD flags: {cpu_flags.strip()}; load average at the start: {load}")
lines.append(f"- Compiler: {compiler}; flags: `{flags.strip()}`")
lines.append("- The machine is shared with other work; repetitions are interleaved at random so that load spreads "
             "over all rows, and the ratios are the meaningful numbers.")
if problems:
    lines.append("- **NOT JUDGEABLE**: " + "; ".join(problems) + ". A target this run misses is noise until a quiet run "
                 "repeats it.")
else:
    lines.append(f"- Judgeable: load average {busy:.2f} at most at the start and end, every streaming baseline within "
                 "10 % between repetitions.")
lines.append("")
lines.append("| benchmark | median | GB/s (read + write) | ratio to stream (cache groups: to copy_kv) |")
lines.append("|---|---:|---:|---:|")
for name in order:
    r = rows[name]
    s = stream_of(name)
    ratio = f"{r['seconds'] / s['seconds']:.3f}" if s else "-"
    lines.append(f"| `{name}` | {fmt_time(r['seconds'])} | {r['bytes_per_second'] / 1e9:.1f} | {ratio} |")
lines.append("")

def t(name):
    r = rows.get(name)
    return r["seconds"] if r else None

checks = []
def verdict(met):
    return "met" if met else ("NOT met" if judgeable else "NOT met (run not judgeable: noise until a quiet run repeats it)")
def check(label, value, limit, text):
    if value is None:
        checks.append(f"| {label} | not measured | {text} | - |")
    else:
        checks.append(f"| {label} | {value:.3f} | {text} | {verdict(value <= limit)} |")
def check_at_least(label, value, limit, text):
    if value is None:
        checks.append(f"| {label} | not measured | {text} | - |")
    else:
        checks.append(f"| {label} | {value:.3f} | {text} | {verdict(value >= limit)} |")
def ratio(a, b):
    x, y = t(a), t(b)
    return x / y if x and y else None

S = "4096x32x128"
for pairing in ("half", "inter"):
    for pos in ("pos0", "pos1M"):
        v = t(f"prefill_f32/cache_{pairing}_{pos}/{S}")
        st = t(f"prefill_f32/stream/{S}")
        check(f"float prefill, cached, {pairing}, {pos}: time / stream", v / st if v and st else None, 1.15, "<= 1.15")
for pairing in ("half", "inter"):
    for pos in ("pos0",):
        o, c = t(f"prefill_f32/otf_{pairing}_{pos}/{S}"), t(f"prefill_f32/cache_{pairing}_{pos}/{S}")
        check(f"on-the-fly / cached, float {pairing}, {pos}", o / c if o and c else None, 1.3, "<= 1.3")
    for g in ("prefill_f32", "prefill_bf16", "prefill_f16"):
        lo, hi = t(f"{g}/otf_{pairing}_pos0/{S}"), t(f"{g}/otf_{pairing}_pos1M/{S}")
        check(f"on-the-fly long / short positions, {g} {pairing}", hi / lo if lo and hi else None, 1.05, "<= 1.05")
for pairing in ("half", "inter"):
    b, f = t(f"prefill_bf16/cache_{pairing}_pos0/{S}"), t(f"prefill_f32/cache_{pairing}_pos0/{S}")
    check(f"bfloat16 / float prefill time, cached {pairing}", b / f if b and f else None, 0.6, "<= 0.6")
for v in ("cache_half", "cache_half_unchecked", "dispatch_cache_half", "otf_half_pos1M", "cache_inter", "otf_inter_pos1M"):
    d = t(f"decode_f32/{v}/1x32x128")
    check(f"decode 32 x 128 float, {v}: microseconds per call", d * 1e6 if d else None, 0.25, "<= 0.25")
F, C = "4096x(32+8)x128", "4096x(8+8)x128"
check("fused QK-norm + RoPE: norm_rope / stream", ratio(f"fused_f32/norm_rope/{F}", f"fused_f32/stream/{F}"), 1.15, "<= 1.15")
check_at_least("unfused / fused: norm_then_rope / norm_rope", ratio(f"fused_f32/norm_then_rope/{F}", f"fused_f32/norm_rope/{F}"), 1.6, ">= 1.6")
check("RoPE into the paged cache: rope_cache / copy_kv", ratio(f"cache_f32/rope_cache/{C}", f"cache_f32/copy_kv/{C}"), 1.15, "<= 1.15")
check_at_least("unfused / fused: rope_then_copy / rope_cache", ratio(f"cache_f32/rope_then_copy/{C}", f"cache_f32/rope_cache/{C}"), 1.5, ">= 1.5")
for v in ("cache_half", "cache_half_unchecked", "dispatch_cache_half"):
    check(f"decode 32 x 128 float: {v} / plain_table_loop", ratio(f"decode_f32/{v}/1x32x128", "decode_f32/plain_table_loop/1x32x128"), 1.1, "<= 1.1")
paired = rows.get("decode_pair_f32/plain_and_posenc/1x32x128", {}).get("counters", {})
for v in ("checked", "unchecked", "dispatch"):
    check(f"decode 32 x 128 float, paired blocks: {v} / plain loop (median of per-round ratios)",
          paired.get(f"{v}_vs_plain"), 1.1, "<= 1.1")
d = t("decode_step_f32/qwen3_8b/1x(32+8+8)x128")
check("decode step (norm + RoPE + paged cache write), Qwen3-8B layer: microseconds", d * 1e6 if d else None, 0.5, "<= 0.5")
for src in ("cache", "otf"):
    m, one = t(f"mrope_f32/mrope_image_{src}_half/{S}"), t(f"mrope_f32/1d_{src}_half/{S}")
    check(f"M-RoPE prefill (Qwen2-VL sections, image prompt) / 1-D kernel, {src}", m / one if m and one else None, 1.15, "<= 1.15")
groups = []
for n in order:
    g, _, shape = group_shape(n)
    if (g, shape) not in groups:
        groups.append((g, shape))
for g, shape in groups:
    for pairing in ("half", "inter"):
        ours = [rows[n]["seconds"] for n in order if group_shape(n)[0] == g and group_shape(n)[2] == shape
                and group_shape(n)[1].split("_")[0] in ("cache", "otf", "dispatch") and f"_{pairing}" in group_shape(n)[1]
                and "misaligned" not in group_shape(n)[1]]  # baselines run on aligned tensors
        for kind in ("scalar", "hf"):
            b = t(f"{g}/{kind}_{pairing}/{shape}")
            if b is None or not ours:
                continue
            check(f"{g}: slowest posenc {pairing} variant / {kind}_{pairing}", max(ours) / b, 0.999999, "< 1 (posenc faster)")
lines.append("## Targets")
lines.append("")
lines.append("| target | measured | required | |")
lines.append("|---|---:|---|---|")
lines.extend(checks)
lines.append("")
# Sections that other tools write (from "## Compile time" on, scripts/measure-compile-time.sh) are kept.
kept = ""
try:
    previous = open(out).read()
    if "\n## Compile time" in previous:
        kept = "\n" + previous[previous.index("\n## Compile time") + 1:]
except FileNotFoundError:
    pass
open(out, "w").write("\n".join(lines) + "\n" + kept)

# The same report on the terminal, plain text, in registration order.
width = max(len(n) for n in order) if order else 10
print(f"{'benchmark (median)':<{width}}  {'median':>12}  {'GB/s':>7}  ratio to stream")
for name in order:
    r = rows[name]
    st = stream_of(name)
    print(f"{name:<{width}}  {fmt_time(r['seconds']):>12}  {r['bytes_per_second'] / 1e9:7.1f}  "
          + (f"{r['seconds'] / st['seconds']:.3f}" if st else "-"))
print()
missed = measured = 0
for c in checks:
    cells = [x.strip() for x in c.strip("|").split("|")]
    missed += cells[3].startswith("NOT met")
    measured += cells[1] != "not measured"
    if cells[1] == "not measured":
        continue  # counted below; the report lists them
    print(f"{cells[3] or '-':<8} {cells[0]}: {cells[1]} ({cells[2]})".replace(" (run not judgeable: noise until a quiet run repeats it)", "?"))
print()
print(f"{measured - missed} of {measured} measured targets met ({len(checks) - measured} not measured)" + ("" if judgeable else f"; {missed} missed, but the run is NOT JUDGEABLE:"))
for p in problems:
    print("  - " + p)
print(f"wrote {out}" + ("" if out.endswith("docs/benchmarks.md") else " (docs/benchmarks.md untouched: --update-docs writes it)"))
PY
