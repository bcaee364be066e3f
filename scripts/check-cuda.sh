#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nvcc check of the CUDA kernels (include/posenc/cuda/): compiles tests/cuda/all_kernels.cu, the
# unit that instantiates every kernel, and benchmarks/cuda/bench_cuda.cu, for sm_80, sm_90 and
# every newer real architecture `nvcc --list-gpu-arch` offers, with warnings as errors
# (-Werror all-warnings; the host compiler's -Wall -Wextra -Werror) and ptxas's report (-Xptxas -v),
# one nvcc per target, POSENC_JOBS (default: the CPU count) at a time (sm_90 compiles the host
# code too; the other targets device code only, -cubin, which is all ptxas sees). Prints registers, stack
# and spills per kernel and target (scripts/check-cuda.sh --markdown: the table of
# docs/kernels.md's GPU section). Exits 1 on any error or warning.
# Where nvcc is absent (not in $NVCC, on PATH or in /usr/local/cuda/bin) it prints
# "check-cuda.sh: skipped: nvcc not found" and exits 0.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
nvcc="${NVCC:-$(command -v nvcc || true)}"
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; } || true
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "check-cuda.sh: skipped: nvcc not found (set NVCC, or put nvcc on PATH)"
  exit 0
fi
markdown=0
[ "${1:-}" = "--markdown" ] && markdown=1
jobs="${POSENC_JOBS:-$(nproc)}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# sm_80, sm_90 and every real architecture above 90 that this nvcc knows
archs="80 90"
for a in $("$nvcc" --list-gpu-arch | sed -n 's/^compute_\([0-9]*\)$/\1/p' | sort -n -u); do
  [ "$a" -gt 90 ] && archs="$archs $a"
done

flags=(-std=c++17 --expt-relaxed-constexpr -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
       -I"$root/include" -Xptxas -v)
compile() {  # compile ARCH SOURCE TAG: device code only (-cubin), except sm_90's full compile (host code too)
  local mode=(-cubin -o "$out/$3-$1.cubin")
  [ "$1" = 90 ] && mode=(-c -o "$out/$3-$1.o")
  "$nvcc" "${flags[@]}" -arch="sm_$1" "${mode[@]}" "$2" > "$out/$3-$1.log" 2>&1 \
    && echo ok > "$out/$3-$1.status" || echo failed > "$out/$3-$1.status"
}
running=0
for a in $archs; do
  compile "$a" "$root/tests/cuda/all_kernels.cu" kernels &
  running=$((running + 1)); [ "$running" -ge "$jobs" ] && { wait -n; running=$((running - 1)); }
done
compile 90 "$root/benchmarks/cuda/bench_cuda.cu" bench &
wait

status=0
for log in "$out"/*.log; do
  tag="$(basename "$log" .log)"
  if [ "$(cat "$out/$tag.status")" != ok ] || grep -qi "warning" "$log"; then
    echo "check-cuda.sh: $tag: nvcc failed or warned:"; grep -v "^ptxas info" "$log" | head -40; status=1
  fi
done
[ "$status" -eq 0 ] || exit 1

# ptxas's report of each kernel: "Compiling entry function 'NAME' for 'sm_XX'", then stack and
# spills, then "Used N registers".
python3 - "$markdown" "$out" $archs <<'PY'
import glob, re, subprocess, sys
markdown, folder, archs = sys.argv[1] == "1", sys.argv[2], sys.argv[3:]
rows = []
for arch in archs:
    name = None
    for line in open(f"{folder}/kernels-{arch}.log"):
        m = re.search(r"Compiling entry function '(\w+)' for 'sm_(\d+)'", line)
        if m: name, stack, stores, loads = m.group(1), 0, 0, 0; continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name: stack, stores, loads = map(int, m.groups()); continue
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            rows.append((arch, name, int(m.group(1)), stack, stores, loads)); name = None
names = sorted({r[1] for r in rows})
demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
def short(n):
    d = demangled[names.index(n)]
    m = re.search(r"RopeKernel<([^,]+), posenc::cuda::(\w+), \(posenc::cuda::KernelMode\)(\d)>", d)
    if not m: return d
    t = {"float": "float", "posenc::bfloat16": "bfloat16", "posenc::float16": "float16"}.get(m.group(1), m.group(1))
    return f"{['rope', 'norm_rope', 'multi_axis'][int(m.group(3))]} {t} {m.group(2)}"
kernels = sorted({short(r[1]) for r in rows})
if markdown:
    print("| kernel | " + " | ".join(f"sm_{a}" for a in archs) + " |")
    print("|---|" + "---|" * len(archs))
    for k in kernels:
        cells = []
        for a in archs:
            r = [x for x in rows if x[0] == a and short(x[1]) == k][0]
            cells.append(f"{r[2]} / {r[3]} / {r[4]}+{r[5]}")
        print(f"| {k} | " + " | ".join(cells) + " |")
else:
    print(f"{'arch':8} {'kernel':32} {'registers':>9} {'stack':>6} {'spill st':>9} {'spill ld':>9}")
    for r in sorted(rows, key=lambda r: (int(r[0]), short(r[1]))):
        print(f"sm_{r[0]:5} {short(r[1]):32} {r[2]:9} {r[3]:6} {r[4]:9} {r[5]:9}")
spills = sum(r[4] + r[5] for r in rows)
print(f"check-cuda.sh: {len(kernels)} kernels x {len(archs)} targets compiled clean; spill bytes in all: {spills}",
      file=sys.stderr)
PY
