#!/usr/bin/env bash
# Auditor acceptance and throughput on the real tables of an index.
#
#   tools/bench-audit.sh [INDEX] [THREADS]
#
# INDEX defaults to an index of ../shared/data/ottqa-wiki-183k (built into a temporary
# directory if not given). Steps:
#  1. `wikiwit-auditgen generate`: every data row of every table as a correct staged row
#     plus labelled faulty variants; `wikiwit audit` them; `wikiwit-auditgen score` prints
#     the confusion table (row evidence: correct rows passing, each fault kind caught).
#  2. Throughput: the same rows twice over (≥ 1M rows), audited on THREADS (default 2)
#     threads under /usr/bin/time: wall seconds, rows/s, peak RSS. CPU seconds are shown
#     too: on a shared machine wall time also measures the neighbours.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${WIKIWIT_SHARED:-../shared}
threads=${2:-2}
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
cargo build --release --quiet
bin=target/release
[ -n "${CARGO_TARGET_DIR:-}" ] && bin=$CARGO_TARGET_DIR/release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ix=${1:-}
if [ -z "$ix" ]; then
  ix=$out/ix
  "$bin/wikiwit" build "$shared/data/ottqa-wiki-183k-multistream.xml.bz2" \
    --multistream-index "$shared/data/ottqa-wiki-183k-multistream-index.txt.bz2" --index "$ix" -q >/dev/null
fi

echo "== acceptance: row evidence on every table row of $ix =="
"$bin/wikiwit-auditgen" generate --index "$ix" --out "$out/gen"
"$bin/wikiwit" audit "$out/gen/contract.json" "$out/gen/rows.jsonl" --index "$ix" \
  --findings "$out/gen/findings.jsonl" -j "$threads" || [ $? -eq 1 ]
"$bin/wikiwit-auditgen" score "$out/gen/labels.tsv" "$out/gen/findings.jsonl"
rm -rf "$out/gen"

echo "== throughput: the rows twice over, $threads threads =="
"$bin/wikiwit-auditgen" generate --index "$ix" --out "$out/bench" --repeat 2 2>&1 | head -1
ls -l "$out/bench/rows.jsonl" | awk '{ printf "rows file: %.0f MB\n", $5 / 1048576 }'
/usr/bin/time -f "%e %U %S %M" -o "$out/time" "$bin/wikiwit" audit "$out/bench/contract.json" \
  "$out/bench/rows.jsonl" --index "$ix" --findings "$out/bench/findings.jsonl" -j "$threads" \
  > "$out/summary" || [ $? -eq 1 ]
# With exit code 1 (blocking findings) /usr/bin/time writes a status line first.
read -r wall user sys rss < <(tail -n 1 "$out/time")
rows=$(awk '/row\(s\) of/ { print $3 }' "$out/summary")
awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v n="$rows" 'BEGIN {
  printf "%d rows in %.1f s wall (%.0f rows/s), CPU %.1f s user + %.1f s sys, peak RSS %.0f MB\n",
    n, w, n / w, u, s, m / 1024 }'
