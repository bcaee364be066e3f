#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Per-ISA isolation check for runtime dispatch (include/posenc/kernels/dispatch.hpp).
#
# The dispatch units (posenc_add_dispatch) are compiled with -msse4.2, -mavx2 or -mavx512*.
# Every inline function they instantiate is emitted as a weak symbol; if a baseline unit emits
# the same symbol, the linker keeps ONE copy, possibly the AVX-512 one, and baseline code then
# runs AVX-512 instructions on a CPU without them. At -O0 nothing is inlined, so a Debug build
# is where this shows. This script:
#   1. proves the detector below fails on a planted shared helper (two tiny units);
#   2. configures a Debug build (POSENC_ASSERT active) of the kernel tests that drive every
#      dispatch path and every checked refusal (dispatch, threads, kernel_errors, bounded_views;
#      the accuracy sweeps stay in the optimised suite), whose executable links the build's
#      per-ISA objects (posenc_kernels_<isa>, cmake/posencKernelObjects.cmake: the same source
#      per ISA as posenc_add_dispatch generates for a consumer's target), builds and runs it;
#   3. disassembles every symbol defined in the per-ISA objects that executable links (read from
#      its link command, so they are the ones the tests ran) and requires that a symbol holds
#      only instructions its name allows:
#        named for an AVX-512 arch (xsimd::avx512*, simd::avx512_bf16)  anything
#        named for an AVX/AVX2/FMA arch                                 no EVEX (AVX-512)
#        named for an SSE3..SSE4.2 arch                                 no VEX/EVEX
#        anything else (shared with baseline code)                     no VEX/EVEX, no SSE3+
#      "Named for" means the arch appears in the symbol (a template argument, or the per-ISA
#      entry run_<isa>), which no baseline unit instantiates with weaker flags.
# Quiet on success; on failure prints the offending symbols (or the failing log) and exits 1.
#   scripts/check-isa-symbols.sh            (CXX=clang++ scripts/check-isa-symbols.sh for clang)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cxx="${CXX:-c++}"
build="$root/build/isa-check-$(basename "$cxx")"
jobs="${POSENC_JOBS:-2}"
python="python3"
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
log="$build/check.log"
: >"$log"

fail() {
  echo "check-isa-symbols: $1" >&2
  [ -s "$log" ] && tail -40 "$log" >&2
  exit 1
}

# The detector: reads `objdump -d -C` output of each object given, prints one line per symbol
# holding instructions beyond what its name allows.
detector='
import re, subprocess, sys
LEVEL_NAMES = [
    (3, re.compile(r"xsimd::avx512|avx512_bf16|run_avx512")),
    (2, re.compile(r"xsimd::(avx2?|fma3)\b|run_avx2\b")),
    (1, re.compile(r"xsimd::(sse3|ssse3|sse4_1|sse4_2)\b|run_sse4_2\b")),
]
EVEX = re.compile(r"%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2[0-9]|3[01])\b|\{1to")
VEX = re.compile(r"^v[a-z0-9]+$")
SSE3_PLUS = re.compile(r"^(addsubp[sd]|hadd[sp][sd]|hsubp[sd]|lddqu|movddup|movs[hl]dup|pabs[bwd]|palignr|"
                       r"phadd|phsub|pmaddubsw|pmulhrsw|pshufb|psign|blendv?p[sd]|dpp[sd]|extractps|insertps|"
                       r"movntdqa|mpsadbw|packusdw|pblend|pcmpeqq|pextr[bdq]|phminposuw|pinsr[bdq]|pmax[su][bwd]|"
                       r"pmin[su][bwd]|pmov[sz]x|pmuldq|pmulld|ptest|round[ps][sd]|pcmp[ei]str|pcmpgtq|crc32)")
def level_of(name):
    for level, pattern in LEVEL_NAMES:
        if pattern.search(name):
            return level
    return 0
def too_strong(level, mnemonic, operands):
    if level >= 3: return False
    if EVEX.search(operands) or mnemonic.startswith("k"): return True
    if level >= 2: return False
    if VEX.match(mnemonic): return True
    return level == 0 and bool(SSE3_PLUS.match(mnemonic))
bad = 0
for obj in sys.argv[1:]:
    text = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", obj], capture_output=True, text=True, check=True).stdout
    name = None
    reported = set()
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            name = m.group(1)
            continue
        parts = line.split("\t")
        if name is None or len(parts) < 2 or name in reported:
            continue
        insn = parts[-1].strip().split(None, 1)
        if not insn: continue
        mnemonic, operands = insn[0], (insn[1] if len(insn) > 1 else "")
        if too_strong(level_of(name), mnemonic, operands):
            reported.add(name)
            bad += 1
            print(obj.split("/")[-1] + ": " + name + ": " + mnemonic + " " + operands)
sys.exit(1 if bad else 0)
'

# 1. The detector must catch a non-template helper shared by a baseline and an AVX2 unit.
selftest="$build/selftest"
mkdir -p "$selftest"
cat >"$selftest/shared.hpp" <<'EOF'
inline float shared_helper(float x) { return x * 0.5f + 1.0f; }
EOF
printf '#include "shared.hpp"\nfloat avx2_entry(float x) { return shared_helper(x); }\n' >"$selftest/avx2_unit.cpp"
"$cxx" -O0 -mavx2 -mfma -c "$selftest/avx2_unit.cpp" -o "$selftest/posenc_kernels_avx2.o" >>"$log" 2>&1 ||
  fail "cannot compile the self-test unit with $cxx"
if "$python" -c "$detector" "$selftest/posenc_kernels_avx2.o" >"$selftest/report" 2>&1 ||
  ! grep -q '^posenc_kernels_avx2.o: shared_helper(float): v' "$selftest/report"; then
  cat "$selftest/report" >>"$log"
  fail "self-test: the detector did not flag shared_helper compiled with -mavx2"
fi
: >"$log"

# 2. Debug build of the kernel tests; run them.
cmake --preset isa -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >>"$log" 2>&1 ||
  fail "configure failed"
cmake --build "$build" -j "$jobs" --target posenc_tests_kernels >>"$log" 2>&1 || fail "build failed"
"$build/tests/posenc_tests_kernels" --no-intro=true >>"$log" 2>&1 ||
  fail "kernel tests failed (Debug, POSENC_ASSERT active)"

# 3. The per-ISA objects the kernel tests link: the object files named posenc_kernels_<isa>.cpp.o
#    on the executable's link command (Ninja's; its paths are relative to the build folder).
mapfile -t objects < <(ninja -C "$build" -t commands posenc_tests_kernels | tail -n 1 | tr ' ' '\n' |
  grep -E '(^|/)posenc_kernels_[a-z0-9_]+\.cpp\.o$' | sed "s|^|$build/|" | sort)
[ "${#objects[@]}" -ge 4 ] || fail "expected 4 per-ISA objects on posenc_tests_kernels' link command, found ${#objects[@]}"
: >"$log"
"$python" -c "$detector" "${objects[@]}" >>"$log" 2>&1 ||
  fail "symbols of per-ISA units hold instructions beyond their arch (a shared non-arch helper?):"
