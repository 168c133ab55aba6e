# Sourced by the benchmark scripts (tools/bench-build.sh, tools/bench-shards.sh): the
# checks and binary choice every one of them makes, kept in one place.
#
# Sets `bin` (WIKIWIT_BIN, or target/release/wikiwit built now) and `out` (a scratch
# directory removed on exit); exits 2 when /usr/bin/time is missing.

[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
if [ -n "${WIKIWIT_BIN:-}" ]; then
  bin=$WIKIWIT_BIN
else
  cargo build --release --quiet
  bin=target/release/wikiwit
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
