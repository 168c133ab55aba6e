#!/usr/bin/env bash
# Shard and merge costs: a one-machine build, then for each N the N shard builds
# (`build --shard K/N`, one after another) and their merge, each under /usr/bin/time.
# Checks that every merged index equals the one-machine build file by file (all but
# manifest.json and text/) and prints CPU seconds (user + sys) and peak RSS.
#
#   tools/bench-shards.sh [DUMP] [INDEX_FILE] [THREADS] [N…]
#
# Defaults: ../shared/data/ottqa-wiki-183k-multistream.xml.bz2 with its index, 1 thread
# per shard and per merge (a shard is one core's task on a cluster), N = 1 2 4 8.
# WIKIWIT_BIN=PATH measures that binary instead of building target/release/wikiwit.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${WIKIWIT_SHARED:-../shared}
dump=${1:-$shared/data/ottqa-wiki-183k-multistream.xml.bz2}
idx=${2:-$shared/data/ottqa-wiki-183k-multistream-index.txt.bz2}
threads=${3:-1}
shift $(( $# < 3 ? $# : 3 )) || true
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1 2 4 8)
# WIKIWIT_BIN: a binary to measure instead of building target/release/wikiwit.
. tools/bench-common.sh

# Runs a command under /usr/bin/time; prints "CPU_SECONDS PEAK_MB".
measure() {
  /usr/bin/time -f "%U %S %M" -o "$out/time" "$@" >/dev/null
  awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$out/time"
}

read -r one_cpu one_mb < <(measure "$bin" build "$dump" --multistream-index "$idx" --index "$out/one" -j "$threads" -q)
echo "one machine: ${one_cpu} s CPU, ${one_mb} MB peak"
echo "| N | shard CPU s (each) | shards CPU s (sum) | largest shard s | shard peak MB | merge CPU s | merge peak MB | shards + merge / one machine |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in "${ns[@]}"; do
  each=() sum=0 most=0 peak=0 shards=()
  for k in $(seq 1 "$n"); do
    read -r cpu mb < <(measure "$bin" build "$dump" --multistream-index "$idx" --index "$out/s$k" --shard "$k/$n" -j "$threads" -q)
    each+=("$cpu"); shards+=("$out/s$k")
    sum=$(echo "$sum + $cpu" | bc)
    most=$(echo "if ($cpu > $most) $cpu else $most" | bc)
    peak=$(( mb > peak ? mb : peak ))
  done
  read -r mcpu mmb < <(measure "$bin" merge "${shards[@]}" --index "$out/merged" -j "$threads" -q)
  for f in "$out"/one/*; do
    name=$(basename "$f")
    [ "$name" = manifest.json ] || [ -d "$f" ] || cmp -s "$f" "$out/merged/$name" \
      || { echo "N = $n: $name differs from the one-machine build" >&2; exit 1; }
  done
  ratio=$(echo "scale=2; ($sum + $mcpu) / $one_cpu" | bc)
  echo "| $n | ${each[*]} | $sum | $most | $peak | $mcpu | $mmb | $ratio |"
  rm -rf "${shards[@]}" "$out/merged"
done
