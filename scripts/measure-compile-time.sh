#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Measures what a header-only user pays per translation unit: compiles small programs (one TU
# each, -O2 -std=c++17, -fsyntax-only is NOT used: code generation for the instantiations counts)
# RUNS times, interleaved, and prints the median CPU time (user + system) of each, as a Markdown
# table, with its ratio to <Eigen/Dense> alone and the resulting estimate for an idle machine.
#
#   scripts/measure-compile-time.sh            # g++, 5 runs each
#   CXX=clang++ RUNS=3 scripts/measure-compile-time.sh
#
# CPU time rather than wall time: on a shared machine another process stretches the wall time of
# a single-threaded compile far more than its CPU time; on an idle machine the two agree within a
# few percent. Under heavy load CPU time is inflated too (shared caches and cores), by the same
# factor for every case, so the limits are checked on the idle estimate. The "limit" column is
# the budget docs/benchmarks.md states.
set -euo pipefail
cd "$(dirname "$0")/.."
cxx="${CXX:-g++}"
runs="${RUNS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O2 -c -I include -isystem /usr/include/eigen3)

# name | limit (s, or -) | source
cases=(
"Eigen/Core alone|-|#include <Eigen/Core>
int main() { return 0; }"
"Eigen/Dense alone|-|#include <Eigen/Dense>
int main() { return 0; }"
"frequency tables: <posenc/frequencies.hpp>|0.5|#include <posenc/frequencies.hpp>
int main() { return posenc::two_pi > 6 ? 0 : 1; }"
"<posenc/frequencies.hpp> and one table built|-|#include <posenc/frequencies.hpp>
int main() {
    const posenc::RopeSpec spec(128, 128, 1e6, posenc::Pairing::half_split);
    return posenc::FrequencyTable::from_spec(spec).count_without_full_turn(32768);
}"
"umbrella: <posenc/posenc.hpp>|1.6|#include <posenc/posenc.hpp>
int main() { return POSENC_VERSION > 0 ? 0 : 1; }"
"kernels + one float apply_rope|1.5|#include <posenc/kernels.hpp>
#include <vector>
int main() {
    namespace k = posenc::kernels;
    const posenc::RopeSpec spec(128, 128, 1e6, posenc::Pairing::half_split);
    const k::CosSinCache cache(posenc::FrequencyTable::from_spec(spec), 16);
    std::vector<float> q(16 * 8 * 128);
    const k::HeadsView<float> view(q.data(), q.size(), k::HeadsShape {16, 8, 128});
    k::apply_rope(spec, cache, k::PositionIds::contiguous(0), k::QKViews<float>::in_place(view));
    return static_cast<int>(q[0]);
}"
)

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

names=(); limits=()
i=0
for c in "${cases[@]}"; do
  name="${c%%|*}"; rest="${c#*|}"; limit="${rest%%|*}"; src="${rest#*|}"
  names+=("$name"); limits+=("$limit")
  printf '%s\n' "$src" > "$work/tu$i.cpp"
  if ! "$cxx" "${flags[@]}" "$work/tu$i.cpp" -o "$work/tu$i.o" 2>"$work/err$i.txt"; then
    echo "measure-compile-time: '$name' does not compile:" >&2; cat "$work/err$i.txt" >&2; exit 1
  fi
  i=$((i + 1))
done
# Rounds interleave the cases, so that a change of load on a shared machine hits every case alike.
for _ in $(seq "$runs"); do
  for i in "${!names[@]}"; do
    /usr/bin/time -f '%U %S' -o "$work/time" "$cxx" "${flags[@]}" "$work/tu$i.cpp" -o "$work/tu$i.o"
    awk '{ printf "%.3f\n", $1 + $2 }' "$work/time" >> "$work/times$i"
  done
done

dense_index=1  # "Eigen/Dense alone": the reference the targets are stated against
dense="$(median < "$work/times$dense_index")"
echo "Compiler: $("$cxx" --version | head -1); flags: ${flags[*]}"
echo "Median of $runs interleaved runs, CPU seconds (user + sys); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "\"idle estimate\" = median x ${DENSE_IDLE:-1.35} / median(Eigen/Dense): the time on this machine when idle, where"
echo "Eigen/Dense alone takes ${DENSE_IDLE:-1.35} s (DENSE_IDLE); on a loaded machine CPU time itself is inflated."
echo
echo "| translation unit | median CPU s | / Eigen/Dense | idle estimate s | limit s | |"
echo "|---|---:|---:|---:|---:|---|"
status=0
for i in "${!names[@]}"; do
  t="$(median < "$work/times$i")"
  ratio="$(awk -v t="$t" -v d="$dense" 'BEGIN { printf "%.2f", t / d }')"
  idle="$(awk -v t="$t" -v d="$dense" -v r="${DENSE_IDLE:-1.35}" 'BEGIN { printf "%.2f", t / d * r }')"
  limit="${limits[$i]}"
  verdict=""
  if [ "$limit" != "-" ]; then
    if awk -v t="$idle" -v l="$limit" 'BEGIN { exit !(t <= l) }'; then verdict="met"; else verdict="NOT met"; status=1; fi
  fi
  echo "| ${names[$i]} | $t | $ratio | $idle | $limit | $verdict |"
done
exit "$status"
