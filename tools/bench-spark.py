#!/usr/bin/env python3
"""Spark acceptance bench: `wikiwit audit` on one machine against `wikiwit.spark.audit`
in Spark's local mode, on staged rows generated from the real tables of an index.

    $(tools/python-env) -m pip install './python[spark]'
    $(tools/python-env) tools/bench-spark.py [--index IX] [--rows N] [--master local[2]] [--bin DIR]
    $(tools/python-env) tools/bench-spark.py --build SHARDS [--master local[2]] [--threads T] [--bin DIR]

Steps (docs/python.md, "Spark bench"):
 1. `cargo build --release`; the index of ../shared/data/ottqa-wiki-183k is built into a
    temporary directory unless --index names one;
 2. `wikiwit-auditgen generate` stages every data row of every table (correct rows and
    labelled faulty variants); the first N rows (default 250,000) are kept;
 3. (a) `wikiwit audit` on THREADS threads (default 2), (b) `wikiwit.spark.audit` in
    MASTER (default local[2]) on the rows file read as text, findings written as Parquet;
 4. the findings are compared as a multiset (all fields but the audit id, which hashes
    different inputs) and rows/s, wall and CPU seconds of both are printed, with the
    load average (on a shared machine wall time also measures the neighbours).

With `--build SHARDS` it measures the build instead (docs/scale.md, "Shards and merge"):
`wikiwit build -j THREADS` of ottqa-wiki-183k with its multistream index on one machine
against `wikiwit.spark.build(…, shards=SHARDS)` in MASTER (the shards as Spark tasks,
the merge on the driver), wall and CPU seconds of both, and requires every data file of
the two indexes to be equal (all but `manifest.json` and the full-text index's files,
whose segment names differ; `tests/shards.rs` compares their search answers).

Exit code 1 when the findings (or the built indexes) differ, 2 on bad input.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIELDS = ("check", "name", "category", "severity", "row", "line", "key", "locator", "evidence", "message")


def cargo_bin() -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bins"], cwd=REPO, check=True)
    return Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "release"


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tree_cpu(root: int) -> float:
    """CPU seconds of `root`'s live descendants (the Spark JVM and its Python workers),
    including the children they have reaped; read before the session stops."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        cpu[int(d)] = sum(int(x) for x in fields[11:15]) / tick
    total, stack = 0.0, [root]
    while stack:
        p = stack.pop()
        for c, pp in parent.items():
            if pp == p:
                total += cpu[c]
                stack.append(c)
    return total


def key(f: dict) -> tuple:
    return tuple(json.dumps(f.get(k)) for k in FIELDS)


def stage_rows(bin_dir: Path, ix: Path, out: Path, limit: int) -> tuple[Path, Path, int]:
    gen = out / "gen"
    subprocess.run([bin_dir / "wikiwit-auditgen", "generate", "--index", ix, "--out", gen], check=True)
    rows = out / "rows.jsonl"
    n = 0
    with open(gen / "rows.jsonl", "rb") as src, open(rows, "wb") as dst:
        for line in src:
            if n == limit:
                break
            dst.write(line)
            n += 1
    (gen / "rows.jsonl").unlink()
    return gen / "contract.json", rows, n


def single_machine(bin_dir, ix, contract, rows, out, threads) -> tuple[Counter, float, float]:
    log = out / "findings.jsonl"
    cpu0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(
        [bin_dir / "wikiwit", "audit", contract, rows, "--index", ix, "--findings", log, "-j", str(threads)],
        capture_output=True,
        text=True,
    )
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if p.returncode not in (0, 1):
        sys.exit(f"wikiwit audit failed (exit {p.returncode}): {p.stderr}")
    with open(log, encoding="utf-8") as f:
        found = Counter(key(v) for v in map(json.loads, f) if "check" in v)
    return found, wall, cpu


def spark_session(master: str, memory: str):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    return (
        SparkSession.builder.master(master)
        .appName("wikiwit-bench-spark")
        .config("spark.ui.enabled", "false")
        # In local mode the driver is the executor: its heap holds Spark's blocks (the
        # cached row results); the index is memory-mapped by the Python workers, in the
        # page cache outside it.
        .config("spark.driver.memory", memory)
        .config("spark.sql.files.maxPartitionBytes", str(16 << 20))
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )


def on_spark(ix, contract, rows, out, master, memory) -> tuple[Counter, float, float, int]:
    import pyarrow.parquet as pq

    from wikiwit import spark as wspark

    session = spark_session(master, memory)
    try:
        cpu0, t0 = tree_cpu(os.getpid()), time.perf_counter()
        rows_df = session.read.text(str(rows))
        parts = rows_df.rdd.getNumPartitions()
        wspark.audit(rows_df, str(contract), str(ix), output=str(out / "findings.parquet"))
        wall = time.perf_counter() - t0
        cpu = tree_cpu(os.getpid()) - cpu0
    finally:
        session.stop()
    table = pq.read_table(out / "findings.parquet")
    found = Counter(key(f) for f in table.to_pylist())
    return found, wall, cpu, parts


def differing_files(a: Path, b: Path) -> list[str]:
    """Data files that differ between two index directories, or that only one has."""
    def files(root: Path) -> dict[str, Path]:
        return {
            str(f.relative_to(root)): f
            for f in root.rglob("*")
            if f.is_file() and f.name != "manifest.json" and f.relative_to(root).parts[0] != "text"
        }
    fa, fb = files(a), files(b)
    return sorted(
        n for n in fa.keys() | fb.keys()
        if n not in fa or n not in fb or not filecmp.cmp(fa[n], fb[n], shallow=False)
    )


def build_bench(bin_dir: Path, shared: Path, out: Path, shards: int, threads: int, master: str, memory: str) -> int:
    from wikiwit import spark as wspark

    dump = shared / "ottqa-wiki-183k-multistream.xml.bz2"
    idx = shared / "ottqa-wiki-183k-multistream-index.txt.bz2"
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    one = out / "one"
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(
        [bin_dir / "wikiwit", "build", dump, "--multistream-index", idx, "--index", one, "-j", str(threads), "-q"],
        check=True, stdout=subprocess.DEVNULL,
    )
    w1, c1 = time.perf_counter() - t0, children_cpu() - cpu0
    print(f"wikiwit build -j {threads}: {w1:.1f} s wall, CPU {c1:.1f} s")
    session = spark_session(master, memory)
    merged = out / "spark"
    try:
        own0 = resource.getrusage(resource.RUSAGE_SELF)
        cpu0, t0 = tree_cpu(os.getpid()), time.perf_counter()
        wspark.build(dump, idx, merged, shards=shards, spark=session)
        w2 = time.perf_counter() - t0
        own1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = tree_cpu(os.getpid()) - cpu0
        merge_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
    finally:
        session.stop()
    print(f"wikiwit.spark.build {master}, {shards} shards: {w2:.1f} s wall, CPU {cpu:.1f} s in the JVM and "
          f"its Python workers (the shards) + {merge_cpu:.1f} s in the driver (the merge)")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    diff = differing_files(one, merged)
    if diff:
        print(f"INDEXES DIFFER: {', '.join(diff[:10])}", file=sys.stderr)
        return 1
    print("indexes equal file by file (but manifest.json and text/): yes")
    return 0


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--index", type=Path, help="an index of the ottqa-wiki-183k dump (built if absent)")
    a.add_argument("--rows", type=int, default=250_000, help="staged rows to audit (≥ 200,000 for the acceptance)")
    a.add_argument("--bin", type=Path, help="directory of release builds of wikiwit and wikiwit-auditgen "
                   "(default: cargo build --release)")
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--master", default="local[2]")
    a.add_argument("--memory", default="6g", help="spark.driver.memory (local mode: driver and executor)")
    a.add_argument("--build", type=int, metavar="SHARDS", help="measure the build on Spark instead of the audit")
    args = a.parse_args()
    if args.build is not None and args.build < 1:
        print("bench-spark: --build needs at least 1 shard", file=sys.stderr)
        return 2
    shared = Path(os.environ.get("WIKIWIT_SHARED", REPO.parent / "shared")) / "data"
    bin_dir = args.bin or cargo_bin()
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        out = Path(tmp)
        if args.build is not None:
            return build_bench(bin_dir, shared, out, args.build, args.threads, args.master, args.memory)
        ix = args.index
        if ix is None:
            ix = out / "ix"
            dump = shared / "ottqa-wiki-183k-multistream.xml.bz2"
            subprocess.run(
                [bin_dir / "wikiwit", "build", dump, "--multistream-index",
                 shared / "ottqa-wiki-183k-multistream-index.txt.bz2", "--index", ix, "-q"],
                check=True, stdout=subprocess.DEVNULL,
            )
        elif not ix.is_dir():
            print(f"bench-spark: no index at {ix}", file=sys.stderr)
            return 2
        contract, rows, n = stage_rows(bin_dir, ix, out, args.rows)
        print(f"staged rows: {n:,} ({rows.stat().st_size / 1e6:.0f} MB) from the tables of {ix}")
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        want, w1, c1 = single_machine(bin_dir, ix, contract, rows, out, args.threads)
        print(f"wikiwit audit -j {args.threads}: {n:,} rows in {w1:.1f} s wall ({n / w1:,.0f} rows/s), "
              f"CPU {c1:.1f} s; {sum(want.values()):,} findings")
        got, w2, c2, parts = on_spark(ix, contract, rows, out, args.master, args.memory)
        print(f"wikiwit.spark.audit {args.master} ({parts} row partitions): {n:,} rows in {w2:.1f} s wall "
              f"({n / w2:,.0f} rows/s), CPU {c2:.1f} s (JVM and Python workers); "
              f"{sum(got.values()):,} findings")
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if got != want:
            print(f"FINDINGS DIFFER: {sum((want - got).values())} only in wikiwit audit, "
                  f"{sum((got - want).values())} only on Spark", file=sys.stderr)
            for k in list((want - got))[:3] + list((got - want))[:3]:
                print("  ", dict(zip(FIELDS, k)), file=sys.stderr)
            return 1
        print("findings equal as a multiset: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
