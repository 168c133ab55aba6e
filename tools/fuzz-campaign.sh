#!/usr/bin/env bash
# Seeds and runs the fuzz targets, one after another, each for a fixed time, and prints one
# summary line per target (runs, runs/s, corpus size, failures) for docs/faults.md.
#
#   tools/fuzz-campaign.sh SECONDS TARGET...
#
# Environment: FUZZ_DIR (corpora, artifacts and logs; default /tmp/wikiwit-fuzz),
# CARGO_TARGET_DIR (the instrumented build), NICE (default 19).
# Builds without a sanitizer (`-s none`): the targets look for panics, hangs and runaway
# memory, which safe Rust reports without ASan, and the build is several times faster.
set -euo pipefail

secs=${1:?seconds per target}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz_dir=${FUZZ_DIR:-/tmp/wikiwit-fuzz}
nice_level=${NICE:-19}
data=$root/tests/data
shared=$data/shared/data
mkdir -p "$fuzz_dir"

toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  toolchain=(+nightly)
else
  export RUSTC_BOOTSTRAP=1
fi

# One seed file per line of a text file (titles, locators).
seed_lines() {
  local out=$1 src=$2 n=${3:-300}
  head -n "$n" "$src" | awk -v d="$out" 'length($0) > 0 { f = sprintf("%s/line-%05d", d, NR); printf "%s", $0 > f; close(f) }'
}

# The wikitext of the first pages of a dump, one file per page.
seed_pages() {
  local out=$1 src=$2 n=${3:-150}
  python3 - "$out" "$src" "$n" <<'EOF'
import bz2, re, sys, html, os
out, src, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = (bz2.open if src.endswith(".bz2") else open)(src, "rb").read().decode("utf-8", "replace")
for i, m in enumerate(re.finditer(r"<text[^>]*>(.*?)</text>", raw, re.S)):
    if i >= n:
        break
    with open(os.path.join(out, f"page-{i:04d}"), "w") as f:
        f.write(html.unescape(m.group(1))[:20000])
EOF
}

seed() {
  local target=$1 dir=$fuzz_dir/corpus/$1
  [ -d "$dir" ] && return
  mkdir -p "$dir"
  case $target in
    title)
      cut -f2,4 --output-delimiter=$'\n' "$data/shared/oracle/enwiki-2016-206pages/redirects.tsv" 2>/dev/null > "$dir/.titles" || true
      seed_lines "$dir" "$dir/.titles"; rm -f "$dir/.titles" ;;
    wikitext | expand)
      seed_pages "$dir" "$shared/enwiki-2016-206pages.xml.bz2" 80
      seed_pages "$dir" "$shared/ltgwiki-2017-complete.xml.bz2" 80 ;;
    cite_parse)
      find "$data/cite" "$data/reports" -name '*.md' -exec cp -t "$dir" {} + ;;
    locator)
      grep -rhoE '(section|infobox|table|row|cell|list|sentence|para)[:=][^" ]{1,60}' \
        "$root/tests" "$root/docs" 2>/dev/null | sort -u > "$dir/.loc" || true
      seed_lines "$dir" "$dir/.loc" 400; rm -f "$dir/.loc" ;;
    contract)
      find "$data" -name '*contract*.json' -exec cp -t "$dir" {} + ;;
    rows)
      find "$data/rivers" "$data/values" \( -name '*rows*.jsonl' -o -name '*rows*.csv' \) -exec cp -t "$dir" {} + ;;
    multistream_index)
      { bzcat "$shared/enwiki-2016-206pages-multistream-index.txt.bz2" | head -c 3000 || true; } > "$dir/enwiki-index.txt"
      cp "$shared/ltgwiki-2017-multistream-index.txt.bz2" "$dir/" ;;
    siteinfo)
      for f in "$shared"/*.xml.bz2; do
        # bzcat stops on SIGPIPE once head has its bytes: not an error here.
        { bzcat "$f" | head -c 200000 || true; } | python3 -c 'import re,sys; m=re.search(r"<siteinfo>(.*?)</siteinfo>", sys.stdin.read(), re.S); print(m.group(1) if m else "", end="")' \
          > "$dir/$(basename "$f" .xml.bz2)"
      done ;;
    dump)
      cp "$shared/bgwiki-shortened.xml.bz2" "$shared/enwiki-table-markup-5pages.xml.bz2" "$dir/"
      head -c 60000 "$data/rivers/rivers-wiki.xml" > "$dir/rivers-head.xml"
      # Small multistream dumps (header, pages, closing tag: one bz2 stream each) for the
      # stream walk of src/dump/bz2_decode.rs; one at level 1 with a page of two blocks.
      python3 - "$shared/ltgwiki-2017-multistream.xml.bz2" "$dir" <<'PY'
import bz2, re, sys
raw = bz2.decompress(open(sys.argv[1], "rb").read()).decode()
head = raw[:raw.index("<page>")]
pages = re.findall(r"  <page>.*?</page>\n", raw, re.S)
big = max(pages, key=len)
for name, chosen, level in (("multistream-3", pages[:3], 9), ("multistream-big", [big], 1)):
    parts = [head, "".join(chosen), "</mediawiki>\n"]
    with open(f"{sys.argv[2]}/{name}.xml.bz2", "wb") as f:
        f.write(b"".join(bz2.compress(p.encode(), level) for p in parts))
PY
      ;;
    lua_module)
      # Choices for fuzz/lua_gen.rs's grammar: the kept regression inputs.
      cp "$data/fuzz/lua_module/"* "$dir/" ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
}

target_dir=()
[ -n "${CARGO_TARGET_DIR:-}" ] && target_dir=(--target-dir "$CARGO_TARGET_DIR")
cd "$root/fuzz"
# All targets in one build: they share the instrumented library.
nice -n "$nice_level" cargo "${toolchain[@]}" fuzz build -s none -O "${target_dir[@]}"
for target in "$@"; do
  seed "$target"
  mkdir -p "$fuzz_dir/artifacts/$target"
  log=$fuzz_dir/$target.log
  started=$(date +%s)
  set +e
  nice -n "$nice_level" cargo "${toolchain[@]}" fuzz run -s none -O "${target_dir[@]}" "$target" "$fuzz_dir/corpus/$target" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$fuzz_dir/artifacts/$target/" > "$log" 2>&1
  status=$?
  set -e
  wall=$(( $(date +%s) - started ))
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  units=$(find "$fuzz_dir/corpus/$target" -type f | wc -l)
  failures=$(find "$fuzz_dir/artifacts/$target" -type f | wc -l)
  echo "$target wall=${wall}s runs=$runs corpus=$units failures=$failures exit=$status"
done
