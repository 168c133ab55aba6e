#!/usr/bin/env python3
"""Keep inputs from fuzzing runs as regression tests (tests/data/fuzz/TARGET/).

    tools/fuzz-keep.py [--fuzz-dir DIR] [--per-target N] [--max-bytes B] TARGET...

From each target's corpus, the units libFuzzer added (named by their SHA-1, unlike the
seeds) that are at most --max-bytes long are ordered by size and N of them are taken
evenly across that order, from the smallest to the largest, so the kept inputs span
short and long mutations; every crash, timeout or out-of-memory artifact is kept as
well. The files are named by their SHA-1, so running this again adds, never renames.
tests/fuzz_regressions.rs replays them through the target's check (fuzz/cases.rs).
"""

import argparse
import hashlib
import os
import re
import shutil
import sys

HEX40 = re.compile(r"^[0-9a-f]{40}$")


def spread(items, n):
    """n items taken evenly across the list (all of them when there are fewer)."""
    if len(items) <= n:
        return list(items)
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="+")
    ap.add_argument("--fuzz-dir", default=os.environ.get("FUZZ_DIR", "/tmp/wikiwit-fuzz"))
    ap.add_argument("--per-target", type=int, default=24)
    ap.add_argument("--max-bytes", type=int, default=4096)
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for target in args.targets:
        corpus = os.path.join(args.fuzz_dir, "corpus", target)
        if not os.path.isdir(corpus):
            sys.exit(f"fuzz-keep: no corpus for {target} at {corpus}")
        found = []
        for name in os.listdir(corpus):
            path = os.path.join(corpus, name)
            if HEX40.match(name) and os.path.getsize(path) <= args.max_bytes:
                found.append((os.path.getsize(path), name, path))
        found.sort()
        chosen = [p for _, _, p in spread(found, args.per_target)]
        artifacts = os.path.join(args.fuzz_dir, "artifacts", target)
        if os.path.isdir(artifacts):
            chosen += sorted(os.path.join(artifacts, n) for n in os.listdir(artifacts))
        out = os.path.join(root, "tests", "data", "fuzz", target)
        os.makedirs(out, exist_ok=True)
        added = 0
        for path in chosen:
            data = open(path, "rb").read()
            dest = os.path.join(out, hashlib.sha1(data).hexdigest())
            if not os.path.exists(dest):
                shutil.copyfile(path, dest)
                added += 1
        print(f"{target}: {len(found)} added units in the corpus, {added} new kept inputs, "
              f"{len(os.listdir(out))} in {os.path.relpath(out, root)}")


if __name__ == "__main__":
    main()
