#!/usr/bin/env bash
# bz2 decoders for the dump reader, side by side on one core, against `lbzip2 -d -n 1` run
# in the same invocation (docs/performance.md, "Choosing the bz2 decoder").
#
#   tools/bench-bz2.sh [ROUNDS] [DUMP...]
#
# Defaults: 3 rounds over ottqa-wiki-183k-multistream, ltgwiki-2017-multistream and
# enwiki-2016-206pages (one stream) and its multistream copy. Each round decodes every
# stream of the dump with every decoder (tools/bz2-bench: the C libbz2, libbz2-rs-sys,
# pbz2, the lbzip2 crate, parallel_bzip2_decoder, and wikiwit's own src/dump/bz2_decode.rs),
# checks that all produce the same bytes, then times `lbzip2 -d -n 1 -c DUMP`. The last
# lines give each decoder's best CPU time and its ratio to lbzip2's best. Then
# `checks` shows how each treats concatenated streams, truncation, damage and bad CRCs.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${WIKIWIT_SHARED:-../shared}
rounds=${1:-3}
shift || true
dumps=("$@")
[ ${#dumps[@]} -gt 0 ] || dumps=(
  "$shared/data/ottqa-wiki-183k-multistream.xml.bz2"
  "$shared/data/ltgwiki-2017-multistream.xml.bz2"
  "$shared/data/enwiki-2016-206pages.xml.bz2"
  "$shared/data/enwiki-2016-206pages-multistream.xml.bz2"
)
command -v lbzip2 >/dev/null || { echo "lbzip2 is needed (apt-get install lbzip2)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
(cd tools/bz2-bench && cargo build --release --quiet)
bench=tools/bz2-bench/target/release/wikiwit-bz2-bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for dump in "${dumps[@]}"; do
  echo "== $dump"
  : > "$out/runs"
  for i in $(seq 1 "$rounds"); do
    "$bench" speed "$dump" 1 | tee -a "$out/runs" | sed -n '2,$p'
    /usr/bin/time -f "%U %S %e" -o "$out/lb" lbzip2 -d -n 1 -c "$dump" > /dev/null
    read -r u s e < "$out/lb"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    echo "round 1	lbzip2 -d -n 1	wall ${e} s	cpu ${cpu} s" | tee -a "$out/runs" | sed "s/round 1/round $i/"
  done
  # Best CPU time of each decoder over the rounds, and its ratio to lbzip2's best.
  awk -F'\t' '$1 ~ /^round/ { split($4, c, " "); t = c[2];
      if (!($2 in best) || t < best[$2]) best[$2] = t; if (!($2 in order)) { order[$2] = n++ ; names[n-1] = $2 }
      if ($0 ~ /FAILED|DIFFERENT/) bad[$2] = 1 }
    END { ref = best["lbzip2 -d -n 1"];
      for (i = 0; i < n; i++) { d = names[i];
        printf "best\t%-28s\t%5.2f s CPU\t%.2f x lbzip2 -n 1%s\n", d, best[d], best[d] / ref, (d in bad) ? "\tFAILED or different output" : "" } }' "$out/runs"
done
echo "== checks on the streams of ${dumps[0]}"
"$bench" checks "${dumps[0]}"
