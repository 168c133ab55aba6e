#!/usr/bin/env bash
# Build benchmark: `wikiwit build` against `lbzip2 -d -n THREADS` on the same dump, in the
# same invocation, alternating runs so both see the same machine state.
#
#   tools/bench-build.sh [DUMP] [INDEX_FILE] [RUNS] [THREADS] [-- extra build args]
#
# Defaults: ../shared/data/ottqa-wiki-183k-multistream.xml.bz2 with its index, 3 runs,
# 2 threads; WIKIWIT_BIN=PATH measures that binary instead of building one. Prints each run,
# the median wall-clock ratio and peak RSS, and the best run's ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${WIKIWIT_SHARED:-../shared}
dump=${1:-$shared/data/ottqa-wiki-183k-multistream.xml.bz2}
idx=${2:-$shared/data/ottqa-wiki-183k-multistream-index.txt.bz2}
runs=${3:-3}
threads=${4:-2}
shift $(( $# < 4 ? $# : 4 )) || true
[ "${1:-}" = "--" ] && shift
extra=("$@")

command -v lbzip2 >/dev/null || { echo "lbzip2 is needed (apt-get install lbzip2)" >&2; exit 2; }
# WIKIWIT_BIN: a binary to measure instead of building target/release/wikiwit.
. tools/bench-common.sh
idx_args=()
[ -n "$idx" ] && [ "$idx" != "-" ] && idx_args=(--multistream-index "$idx")

echo "dump: $dump ($(stat -c %s "$dump") bytes), threads: $threads, runs: $runs, extra: ${extra[*]:-none}"
ratios=(); rss=(); ww=(); lb=()
for i in $(seq 1 "$runs"); do
  /usr/bin/time -f "%e %M %U %S" -o "$out/lb" lbzip2 -d -n "$threads" -c "$dump" > /dev/null
  /usr/bin/time -f "%e %M %U %S" -o "$out/ww" "$bin" build "$dump" "${idx_args[@]}" --index "$out/ix" -j "$threads" -q "${extra[@]}" > "$out/summary"
  read -r lbt _ lbu lbs < "$out/lb"; read -r wwt wwm wwu wws < "$out/ww"
  r=$(awk -v a="$wwt" -v b="$lbt" 'BEGIN { printf "%.2f", a / b }')
  # CPU time (user + sys) too: on a machine shared with other jobs the wall-clock
  # ratio also measures how the scheduler shares the cores; the CPU ratio does not.
  c=$(awk -v a="$wwu" -v b="$wws" -v c="$lbu" -v d="$lbs" 'BEGIN { printf "%.1fs / %.1fs = %.2f", a + b, c + d, (a + b) / (c + d) }')
  echo "run $i: wikiwit ${wwt}s, lbzip2 ${lbt}s, ratio $r, wikiwit peak RSS $((wwm / 1024)) MiB, CPU $c"
  ratios+=("$r"); rss+=("$wwm"); ww+=("$wwt"); lb+=("$lbt")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "median: wikiwit $(median "${ww[@]}")s, lbzip2 $(median "${lb[@]}")s, ratio $(median "${ratios[@]}"), peak RSS $(( $(median "${rss[@]}") / 1024 )) MiB"
# The acceptance figure of issue 38: the best run's ratio (each against lbzip2 in that run).
echo "best: ratio $(printf '%s\n' "${ratios[@]}" | sort -g | head -1) of $runs runs"
# Bytes, printed in MB (10^6) as the dump's sizes are; `du -sk` / 1024 gave MiB.
du -sb "$out/ix" | awk '{ printf "index size: %.1f MB (%d bytes)\n", $1 / 1e6, $1 }'
