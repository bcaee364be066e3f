#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Before and after: compares the kernel benchmarks (benchmarks/bench_kernels.cpp) of two
# revisions of this repository on this machine, in one session.
#
#   scripts/bench-alternate.sh BASE NEW [ROUNDS]     # e.g. scripts/bench-alternate.sh main HEAD
#   scripts/bench-alternate.sh fd9e788 a71e199 3 > before-after.md
#
# What it does: checks out BASE and NEW as detached worktrees in a temporary folder, builds each
# one's bench_kernels in Release with the same compiler and the same flags (those of
# scripts/run-benchmarks.sh), then runs the two binaries alternately, BASE, NEW, BASE, NEW, ...
# for ROUNDS rounds (default 3). Each run: 5 repetitions of at least 0.1 s per row, in random
# interleaved order, of the rows the table below needs (--benchmark_filter). The worktrees are
# removed at the end, also on failure or Ctrl-C.
#
# What it prints (stdout; progress goes to stderr): a markdown table with one line per ratio and,
# for BASE and for NEW, each run's value, their median, and median(NEW) / median(BASE). A run's
# value is a ratio of medians measured in one process, so that load from other work cancels as
# far as it can: a `GROUP/VARIANT/SHAPE` row is divided by its group's `stream` row (`cache_f32`
# rows by `copy_kv`, `decode_step_f32/qwen3_8b` by the hand-written AVX-512 floor), a named ratio
# such as `decode: checked / plain_table_loop` divides the rows it names, and the
# `decode_pair_f32` lines are that benchmark's own counters (medians of per-round ratios).
#
# How to read it: NEW / BASE far from 1 means nothing by itself on a shared machine; compare it
# with the spread of the runs. The column "apart" says whether every NEW run lies above (+) or
# below (-) every BASE run. With 3 runs a side that happens by chance to 1 unchanged ratio in 10,
# so a ratio has moved when it is apart AND its NEW / BASE exceeds the runs' own spread; rerun
# with more rounds before believing a lone mark. The machine, compiler, flags and the load
# average at the start and the end (and before each run) are printed with the table.
#
# Environment: FILTER (a --benchmark_filter regex replacing the default one), CXX (compiler),
# REPETITIONS (default 5), MIN_TIME (default 0.1), JSON_DIR (keep each run's Google Benchmark
# JSON there), TMPDIR (where the worktrees and builds go; default /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/bench-alternate.sh BASE NEW [ROUNDS]   (two git revisions; ROUNDS default 3)" >&2
  exit 2
fi
rounds="${3:-3}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "bench-alternate: ROUNDS must be a positive whole number, got '$rounds'" >&2
  exit 2
fi
base_commit="$(git rev-parse --verify --quiet "$1^{commit}")" || { echo "bench-alternate: BASE '$1' is not a commit of this repository" >&2; exit 2; }
new_commit="$(git rev-parse --verify --quiet "$2^{commit}")" || { echo "bench-alternate: NEW '$2' is not a commit of this repository" >&2; exit 2; }
base_label="$(git rev-parse --short "$base_commit")"
new_label="$(git rev-parse --short "$new_commit")"
repetitions="${REPETITIONS:-5}"
min_time="${MIN_TIME:-0.1}"

scripts/install-deps.sh  # cmake, Ninja, Google Benchmark, Debian's python3 (used as /usr/bin/python3)

# The rows the table needs (a regex over GROUP/VARIANT/...; the other rows are not run).
default_filter='^(prefill_f32|prefill_bf16|prefill_f16|prefill_f32_2t|partial_f32)/(stream|cache_half_pos0|cache_inter_pos0|otf_half_pos1M|otf_inter_pos1M)/'
default_filter+='|^decode_f32/(stream|plain_table_loop|cache_half|cache_half_unchecked|dispatch_cache_half|cache_inter)/'
default_filter+='|^decode_pair_f32/|^fused_f32/(stream|norm_rope|norm_then_rope)/|^cache_f32/(copy_kv|rope_cache|rope_then_copy)/'
default_filter+='|^decode_step_f32/(qwen3_8b|hand_avx512_floor)/|^mrope_f32/(stream|1d_cache_half|mrope_image_cache_half|1d_otf_half|mrope_image_otf_half)/'
filter="${FILTER:-$default_filter}"

work="$(mktemp -d "${TMPDIR:-/tmp}/posenc-bench-alternate.XXXXXX")"
cleanup() {
  for side in base new; do
    if [ -d "$work/$side" ]; then git worktree remove --force "$work/$side" 2>/dev/null || true; fi
  done
  git worktree prune 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

compiler_arg=()
[ -n "${CXX:-}" ] && compiler_arg=(-DCMAKE_CXX_COMPILER="$CXX")
started=$(date +%s)
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

# build SIDE COMMIT: worktree $work/SIDE at COMMIT, bench_kernels in $work/SIDE/build.
build() {
  local side="$1" commit="$2" dir="$work/$1"
  echo "bench-alternate: building $side ($(git rev-parse --short "$commit")) in $dir" >&2
  git worktree add --detach --quiet "$dir" "$commit"
  # ccache keyed on paths relative to the worktree, so that a rerun of the same commit hits
  export CCACHE_BASEDIR="$dir" CCACHE_NOHASHDIR=true
  # (its own configure line, not a preset: an older commit may predate CMakePresets.json)
  if ! { cmake -S "$dir" -B "$dir/build" -G Ninja "${compiler_arg[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
           -DPOSENC_BUILD_TESTS=OFF -DPOSENC_BUILD_EXAMPLES=OFF -DPOSENC_BUILD_BENCHMARKS=ON \
         && cmake --build "$dir/build" --target bench_kernels -j "$(nproc)"; } >"$work/build-$side.log" 2>&1; then
    tail -40 "$work/build-$side.log" >&2
    echo "bench-alternate: the build of $side failed (log above)" >&2
    exit 1
  fi
  [ -x "$dir/build/benchmarks/bench_kernels" ] || { echo "bench-alternate: $side has no bench_kernels (Google Benchmark missing?)" >&2; exit 1; }
  sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/build/CMakeCache.txt" >"$work/compiler-$side"
}
build base "$base_commit"
build new "$new_commit"
built=$(date +%s)

runs=()  # side:json:load, in the order run
for ((round = 1; round <= rounds; ++round)); do
  for side in base new; do
    json="$work/$side-$round.json"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    echo "bench-alternate: round $round of $rounds, $side (load average $load)" >&2
    "$work/$side/build/benchmarks/bench_kernels" --benchmark_filter="$filter" \
      --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
      --benchmark_enable_random_interleaving=true --benchmark_min_time="$min_time" \
      --benchmark_out="$json" --benchmark_out_format=json >"$work/$side-$round.txt" 2>&1 ||
      { tail -20 "$work/$side-$round.txt" >&2; echo "bench-alternate: the $side run failed" >&2; exit 1; }
    runs+=("$side:$json:$load")
  done
done
finished=$(date +%s)
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${JSON_DIR:-}" ]; then
  mkdir -p "$JSON_DIR" && cp "$work"/base-*.json "$work"/new-*.json "$JSON_DIR"/
fi

cxx_base="$(cat "$work/compiler-base")"
cxx_new="$(cat "$work/compiler-new")"
[ "$cxx_base" = "$cxx_new" ] || { echo "bench-alternate: the two builds used different compilers ($cxx_base, $cxx_new)" >&2; exit 1; }
compiler="$("$cxx_base" --version | head -1)"
model="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
times="build $((built - started)) s, runs $((finished - built)) s"

/usr/bin/python3 - "$base_label" "$new_label" "$rounds" "$repetitions" "$min_time" "$model" "$(nproc)" \
  "$compiler" "$work/base/build/compile_commands.json" "$work/new/build/compile_commands.json" "$load_start" "$load_end" "$times" "$filter" "${runs[@]}" <<'PY'
import json, math, statistics, sys

(base_label, new_label, rounds, reps, min_time, model, cpus, compiler, base_commands, new_commands,
 load_start, load_end, times, filt) = sys.argv[1:15]
# each run as side:json path:load average at its start (the path may hold a colon, side and load do not)
runs = [(a.split(":", 1)[0], *a.split(":", 1)[1].rsplit(":", 1)) for a in sys.argv[15:]]

def flags(commands):
    """The flags bench_kernels.cpp was compiled with (paths, outputs and dependency options dropped)."""
    for e in json.load(open(commands)):
        if e["file"].endswith("bench_kernels.cpp"):
            keep, skip = [], False
            for w in e["command"].split()[1:]:
                if skip:
                    skip = False
                elif w in ("-o", "-c", "-MF", "-MT", "-isystem", "-I"):
                    skip = True
                elif not w.startswith(("-I", "-MD", "/")):
                    keep.append(w)
            return " ".join(keep)
    return "unknown"

def medians(path):
    """Row name (without /real_time) -> median real time in seconds, and the median's counters."""
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    rows, counters = {}, {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median" and not b.get("error_occurred"):
            name = b["run_name"].replace("/real_time", "")
            rows[name] = b["real_time"] * unit[b["time_unit"]]
            counters[name] = {k: v for k, v in b.items() if k.endswith("_vs_plain")}
    return rows, counters

# Each ratio: (label, function of (rows, counters) -> value or None when a row is missing).
def over(num, den):
    return lambda rows, _: rows[num] / rows[den] if num in rows and den in rows and rows[den] > 0 else None

def counter(row, key):
    return lambda _, counters: counters.get(row, {}).get(key)

S, PS, DS, FS, CS, QS = "4096x32x128", "4096x32x128_r64", "1x32x128", "4096x(32+8)x128", "4096x(8+8)x128", "1x(32+8+8)x128"
ratios = []
def row(group, variant, shape, base="stream"):
    ratios.append((f"`{group}/{variant}/{shape}`", over(f"{group}/{variant}/{shape}", f"{group}/{base}/{shape}")))
def named(label, num, den):
    ratios.append((f"`{label}`", over(num, den)))

for g in ("prefill_f32", "prefill_bf16", "prefill_f16"):  # prefill / stream
    for v in ("cache_half_pos0", "cache_inter_pos0", "otf_half_pos1M", "otf_inter_pos1M"):
        row(g, v, S)
for p in ("half", "inter"):  # on the fly / cached
    named(f"prefill: on-the-fly 1M / cache, {p}", f"prefill_f32/otf_{p}_pos1M/{S}", f"prefill_f32/cache_{p}_pos0/{S}")
for g, name in (("prefill_bf16", "bfloat16"), ("prefill_f16", "float16")):
    named(f"prefill: {name} / float, cache half", f"{g}/cache_half_pos0/{S}", f"prefill_f32/cache_half_pos0/{S}")
row("partial_f32", "cache_half_pos0", PS)
for v in ("cache_half_pos0", "cache_inter_pos0", "otf_half_pos1M"):
    row("prefill_f32_2t", v, S)
named("prefill: 2 threads / 1, cache half", f"prefill_f32_2t/cache_half_pos0/{S}", f"prefill_f32/cache_half_pos0/{S}")
for v in ("plain_table_loop", "cache_half", "cache_half_unchecked", "dispatch_cache_half", "cache_inter"):
    row("decode_f32", v, DS)
for label, v in (("checked", "cache_half"), ("unchecked", "cache_half_unchecked"), ("dispatched", "dispatch_cache_half")):
    named(f"decode: {label} / plain_table_loop", f"decode_f32/{v}/{DS}", f"decode_f32/plain_table_loop/{DS}")
named("decode: checked / unchecked", f"decode_f32/cache_half/{DS}", f"decode_f32/cache_half_unchecked/{DS}")
for key, label in (("checked_vs_plain", "checked"), ("unchecked_vs_plain", "unchecked"), ("dispatch_vs_plain", "dispatched")):
    ratios.append((f"`decode_pair_f32: {label} / plain loop`", counter(f"decode_pair_f32/plain_and_posenc/{DS}", key)))
row("fused_f32", "norm_rope", FS)
named("fused: norm_then_rope / norm_rope", f"fused_f32/norm_then_rope/{FS}", f"fused_f32/norm_rope/{FS}")
row("cache_f32", "rope_cache", CS, "copy_kv")
named("cache: rope_then_copy / rope_cache", f"cache_f32/rope_then_copy/{CS}", f"cache_f32/rope_cache/{CS}")
row("decode_step_f32", "qwen3_8b", QS, "hand_avx512_floor")
for v in ("1d_cache_half", "mrope_image_cache_half"):
    row("mrope_f32", v, S)
for src in ("cache", "otf"):
    named(f"multi-axis image / 1-D, {src}", f"mrope_f32/mrope_image_{src}_half/{S}", f"mrope_f32/1d_{src}_half/{S}")

measured = [(side, medians(path), load) for side, path, load in runs]
def values(side, f):
    return [f(rows, counters) for s, (rows, counters), _ in measured if s == side]
def fmt(x):
    return "-" if x is None else f"{x:.3f}"

lines = [f"## Before and after: {base_label} (base) against {new_label} (new)", "",
         f"- Machine: {model}, {cpus} CPUs; compiler: {compiler}",
         f"- Flags of bench_kernels.cpp: `{flags(base_commands)}`" + (" (both builds)" if flags(base_commands) == flags(new_commands)
                                                                    else f" (base); `{flags(new_commands)}` (new)"),
         f"- Runs: base, new, base, new, ... ({rounds} rounds); each run {reps} repetitions of at least {min_time} s "
         "per row in random interleaved order; a cell is one run's ratio of medians",
         f"- Load average (1, 5, 15 min) at the start: {load_start}; at the end: {load_end}; over the last minute "
         "before each run: " + ", ".join(f"{s} {l}" for s, _, l in measured),
         f"- Time: {times}; filter: `{filt}`", "",
         f"| ratio | base ({base_label}), runs | median | new ({new_label}), runs | median | new / base | apart |",
         "|---|---|---:|---|---:|---:|:-:|"]
missing = []
for label, f in ratios:
    b, n = values("base", f), values("new", f)
    if all(x is None for x in b + n):
        missing.append(label)
        continue
    bm = statistics.median([x for x in b if x is not None]) if any(x is not None for x in b) else None
    nm = statistics.median([x for x in n if x is not None]) if any(x is not None for x in n) else None
    change = nm / bm if bm and nm else None
    apart = ""
    if None not in b + n and len(b) > 1 and len(n) > 1:
        apart = "+" if min(n) > max(b) else "-" if max(n) < min(b) else ""
    lines.append(f"| {label} | {', '.join(map(fmt, b))} | {fmt(bm)} | {', '.join(map(fmt, n))} | {fmt(nm)} | {fmt(change)} | {apart} |")
lines.append("")
nb, nn = sum(s == "base" for s, _, _ in measured), sum(s == "new" for s, _, _ in measured)
if nb > 1 and nn > 1:
    lines.append(f"\"apart\": + when every new run is above every base run, - when below; for a ratio that did not change "
                 f"this happens by chance with probability 2 / C({nb + nn}, {nb}) = {2 / math.comb(nb + nn, nb):.3f}.")
if missing:
    lines.append("")
    lines.append("Not measured (rows absent from both builds or outside the filter): " + ", ".join(missing) + ".")
print("\n".join(lines))
PY
