#!/usr/bin/env bash
# Batch audits at 1 M, 5 M and 10 M rows: wall, CPU, peak RSS, summaries spilled.
#
#   tools/bench-audit-batch.sh [INDEX] [THREADS] [ROWS...]
#
# INDEX defaults to an index of ../shared/data/ottqa-wiki-183k (built into the work
# directory if not given); THREADS to 2; ROWS to 1000000 5000000 10000000. The rows come
# from `wikiwit-auditgen generate --rows` (every data row of the index's real tables,
# correct and with labelled faults, the tables gone over again with new random picks
# until there are enough); each smaller size is the beginning of the largest file. Each
# size is audited once, with the default memory budget, under /usr/bin/time; its findings
# log is removed after the run (10 M rows write about 7 GB). The work directory is
# $WIKIWIT_BENCH_DIR or a temporary one, removed at the end.
#
# Wall time also measures the machine's other load: CPU seconds are printed beside it,
# and the peak RSS ratio between the largest and the smallest size is the memory check
# (issue 40: at most 1.3, and at most 600 MB at 10 M rows).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${WIKIWIT_SHARED:-../shared}
ix=${1:-}
threads=${2:-2}
shift $(( $# < 2 ? $# : 2 ))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 5000000 10000000)
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
cargo build --release --quiet
bin=target/release
[ -n "${CARGO_TARGET_DIR:-}" ] && bin=$CARGO_TARGET_DIR/release
if [ -n "${WIKIWIT_BENCH_DIR:-}" ]; then
  work=$WIKIWIT_BENCH_DIR
  mkdir -p "$work"
  # Everything but an index built there, which the next run can use again.
  trap 'rm -rf "$work"/rows-*.jsonl "$work"/gen "$work"/findings.jsonl* "$work"/contract.json "$work"/time "$work"/err' EXIT
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
if [ -z "$ix" ]; then
  ix=$work/ix
  [ -d "$ix" ] || "$bin/wikiwit" build "$shared/data/ottqa-wiki-183k-multistream.xml.bz2" \
    --multistream-index "$shared/data/ottqa-wiki-183k-multistream-index.txt.bz2" --index "$ix" -q >/dev/null
fi

largest=$(printf '%s\n' "${sizes[@]}" | sort -n | tail -1)
"$bin/wikiwit-auditgen" generate --index "$ix" --out "$work/gen" --rows "$largest" 2>&1 | head -1
mv "$work/gen/rows.jsonl" "$work/rows-$largest.jsonl"
contract=$work/contract.json
mv "$work/gen/contract.json" "$contract"
rm -rf "$work/gen"

# Every size's file is written before any is timed, and flushed, so that no run shares
# the disk with their writing.
for n in "${sizes[@]}"; do
  [ -f "$work/rows-$n.jsonl" ] || head -n "$n" "$work/rows-$largest.jsonl" > "$work/rows-$n.jsonl"
done
sync

echo "| rows | rows file | wall s | rows/s (wall) | user s | sys s | CPU rows/s | peak RSS MB | runs spilled | findings |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A rss
for n in $(printf '%s\n' "${sizes[@]}" | sort -n); do
  rows=$work/rows-$n.jsonl
  mb=$(( $(stat -c %s "$rows") / 1048576 ))
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin/wikiwit" audit "$contract" "$rows" \
    --index "$ix" --findings "$work/findings.jsonl" -j "$threads" > /dev/null 2> "$work/err" \
    || [ $? -eq 1 ] || { cat "$work/err" >&2; exit 2; }
  read -r wall user sys kb < <(tail -n 1 "$work/time")
  spilled=$(sed -n 's/.*spilled to \([0-9]*\) run.*/\1/p' "$work/err")
  found=$(grep -c '"check":' "$work/findings.jsonl" || true)
  rss[$n]=$kb
  awk -v n="$n" -v mb="$mb" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kb" -v sp="$spilled" -v f="$found" 'BEGIN {
    printf "| %d | %d MB | %.1f | %.0f | %.1f | %.1f | %.0f | %.0f | %s | %d |\n",
      n, mb, w, n / w, u, s, n / (u + s), k / 1024, sp, f }'
  rm -f "$work/findings.jsonl"
  [ "$n" = "$largest" ] || rm -f "$rows"
done
smallest=$(printf '%s\n' "${sizes[@]}" | sort -n | head -1)
awk -v a="${rss[$largest]}" -v b="${rss[$smallest]}" -v l="$largest" -v s="$smallest" 'BEGIN {
  printf "peak RSS at %d rows / at %d rows: %.2f\n", l, s, a / b }'
