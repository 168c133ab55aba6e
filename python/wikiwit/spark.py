"""Batch verification on Apache Spark: staged-table audits and citation checks spread
over executors, each opening the index read-only and memory-mapped.

The index directory must be readable at the same path on every executor (a shared
filesystem), or shipped with ``SparkContext.addArchive("ix.tar.gz#ix")`` and named by
the archive's alias (``index="ix"``), which resolves through ``SparkFiles``.

Audits run in two stages (docs/python.md):

1. **row-level checks** (schema, locators, values, claims, dates, filters): every
   partition is checked where it lies, in parallel; each row yields its findings and a
   compact summary (key identity, first key, source page);
2. **key integrity, partitioned by key**: the summaries are shuffled by their key
   group (a hash of the key identity, so equal keys meet in one partition) into
   ``table_partitions`` tasks; each sorts its rows by row number and reports its
   duplicates, exactly as a single-machine ``wikiwit audit`` does, and leaves a small
   part (the source pages cited, and the first keys when a count source needs them);
3. **whole-table checks** (cardinality, coverage, provenance, exhaustiveness): the
   parts are merged in one small task.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Optional

from . import Index, PreparedAudit

#: The findings DataFrame's columns (the findings log's fields).
FINDING_FIELDS = (
    ("audit", "string"),
    ("check", "int"),
    ("name", "string"),
    ("category", "string"),
    ("severity", "string"),
    ("row", "long"),
    ("line", "long"),
    ("key", "string"),
    ("locator", "string"),
    ("evidence", "string"),
    ("message", "string"),
)

_OPEN: dict = {}


def _index(path: str) -> Index:
    """The executor's open index (one per Python worker, memory-mapped)."""
    ix = _OPEN.get(path)
    if ix is None:
        local = path
        if not os.path.isabs(path) and not os.path.exists(path):
            from pyspark import SparkFiles

            local = SparkFiles.get(path)
        ix = _OPEN[path] = Index(local)
    return ix


def findings_schema():
    from pyspark.sql.types import (
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {"string": StringType(), "int": IntegerType(), "long": LongType()}
    return StructType([StructField(n, kinds[t], True) for n, t in FINDING_FIELDS])


def _finding_row(f: dict) -> tuple:
    return tuple(f.get(n) for n, _ in FINDING_FIELDS)


def _row_json(row, json_col: Optional[str]) -> str:
    if json_col is not None:
        return row[json_col]
    return json.dumps(row.asDict(recursive=True), ensure_ascii=False)


def audit(
    rows_df,
    contract,
    index: str,
    *,
    json_col: Optional[str] = "value",
    audit_id: Optional[str] = None,
    output: Optional[str] = None,
    table_partitions: Optional[int] = None,
):
    """Audits the staged rows of ``rows_df`` against ``contract``; returns the findings
    DataFrame (columns: :data:`FINDING_FIELDS`), also written as Parquet to ``output``
    when given.

    ``rows_df`` is either the rows file read as text (``spark.read.text("rows.jsonl")``:
    one JSON object per row in column ``json_col``, row numbers and lines as in the file)
    or, with ``json_col=None``, a DataFrame whose columns are the row's fields (each row
    sent as a JSON object). Row numbers follow the DataFrame's order (``zipWithIndex``);
    the line of row *n* is *n + 1*, as in a JSON lines file without blank lines.
    ``contract`` is a contract file path, its bytes or a dict. ``audit_id`` goes into
    every finding (default: a hash of the contract and the index).
    ``table_partitions`` is the number of key-integrity tasks (default: as many as the
    rows have partitions).
    """
    spark = rows_df.sparkSession
    if isinstance(contract, dict):
        contract_bytes = json.dumps(contract).encode()
        name = "<contract>"
    elif isinstance(contract, (bytes, bytearray)):
        contract_bytes, name = bytes(contract), "<contract>"
    else:
        with open(contract, "rb") as f:
            contract_bytes = f.read()
        name = os.fspath(contract)
    # Validate on the driver: a bad contract fails before any task starts.
    PreparedAudit(contract_bytes, name, "")
    if audit_id is None:
        h = hashlib.sha256(contract_bytes)
        h.update(_index(index).info()["source"]["sha256"].encode())
        audit_id = h.hexdigest()[:16]

    def check_partition(items):
        ix = _index(index)
        prepared = PreparedAudit(contract_bytes, name, audit_id)
        batch = []

        def flush():
            findings, summaries, groups = prepared.check_rows(ix._ix, batch)
            for f in findings:
                yield ("f", json.dumps(f))
            for (n, _, _), s, g in zip(batch, summaries, groups):
                yield ("s", (g, (n, s)))

        for row, n in items:
            batch.append((n, n + 1, _row_json(row, json_col)))
            if len(batch) == 4096:
                yield from flush()
                batch = []
        if batch:
            yield from flush()

    def key_stage(items):
        summaries = [s for _, s in sorted((v for _, v in items), key=lambda x: x[0])]
        ix = _index(index)
        prepared = PreparedAudit(contract_bytes, name, audit_id)
        findings, part = prepared.key_group(ix._ix, summaries)
        for f in findings:
            yield ("f", json.dumps(f))
        yield ("p", part)

    checked = rows_df.rdd.zipWithIndex().mapPartitions(check_partition).cache()
    keyed = None
    try:
        rows = rows_df.count()
        n = table_partitions or max(1, checked.getNumPartitions())

        def merge_stage(items):
            ix = _index(index)
            prepared = PreparedAudit(contract_bytes, name, audit_id)
            parts = [p for _, p in items]
            for f in prepared.merged_findings(ix._ix, parts, rows):
                yield json.dumps(f)

        summaries = checked.filter(lambda x: x[0] == "s").map(lambda x: x[1])
        keyed = summaries.partitionBy(n, lambda g: table_partition(g, n)).mapPartitions(key_stage).cache()
        parts = keyed.filter(lambda x: x[0] == "p").map(lambda x: (0, x[1]))
        merged = parts.partitionBy(1).mapPartitions(merge_stage)
        found = (
            checked.filter(lambda x: x[0] == "f")
            .map(lambda x: x[1])
            .union(keyed.filter(lambda x: x[0] == "f").map(lambda x: x[1]))
            .union(merged)
        )
        records = found.map(lambda x: _finding_row(json.loads(x)))
        df = spark.createDataFrame(records, findings_schema())
        if output is not None:
            df.write.mode("overwrite").parquet(output)
            df = spark.read.parquet(output)
        else:
            df = df.localCheckpoint(eager=True)
        return df
    finally:
        checked.unpersist()
        if keyed is not None:
            keyed.unpersist()


def table_partition(group: int, partitions: int) -> int:
    """The key-integrity task of a row's key group (``PreparedAudit.check_rows``)."""
    return group % partitions


def check_citations(reports_df, index: str, *, id_col: str = "id", text_col: str = "markdown", output: Optional[str] = None):
    """Checks the citations of every report in ``reports_df`` (columns ``id_col`` and
    ``text_col``, the markdown text); returns one row per citation: the report's id,
    the citation's id, marker, verdict and the whole check as JSON (``check``)."""
    from pyspark.sql.types import StringType, StructField, StructType

    spark = reports_df.sparkSession

    def check(rows):
        ix = _index(index)
        for r in rows:
            checked = ix.check_citations(r[text_col])
            for c in checked.get("citations", []):
                yield (
                    str(r[id_col]),
                    str(c.get("id")),
                    c.get("marker"),
                    json.dumps(c.get("verdict")),
                    json.dumps(c, ensure_ascii=False),
                )

    schema = StructType(
        [StructField(n, StringType(), True) for n in ("report", "citation", "marker", "verdict", "check")]
    )
    df = spark.createDataFrame(reports_df.rdd.mapPartitions(check), schema)
    if output is not None:
        df.write.mode("overwrite").parquet(output)
        df = spark.read.parquet(output)
    return df


def build(
    dump,
    index_file,
    out,
    *,
    shards: int,
    spark=None,
    work_dir=None,
    threads: int = 1,
    text: bool = True,
    expand: bool = True,
    memory_budget: Optional[int] = None,
    sources_threads: int = 0,
) -> dict:
    """Builds the index of a multistream ``dump`` (with its multistream ``index_file``)
    into ``out`` on Spark: when templates are expanded, one task first reads the dump's
    templates, modules and messages (``wikiwit build --sources-only``, with
    ``sources_threads`` worker threads) for every shard to take; then ``shards`` tasks
    each build one shard (``wikiwit build --shard K/N --sources DIR`` through the
    bindings, ``threads`` worker threads each), and the driver merges them (``wikiwit
    merge``) and returns the index's manifest. The index is the one a single machine
    builds (docs/scale.md, "Shards and merge").

    The dump, its index file and ``work_dir`` (where the shards go; default: a hidden
    directory beside ``out``, removed after the merge) must be at the same paths on the
    driver and every executor: a shared filesystem, or one machine in local mode.
    """
    from pyspark.sql import SparkSession

    from . import _native

    if shards < 1:
        raise ValueError("shards must be at least 1")
    spark = spark or SparkSession.builder.getOrCreate()
    dump, index_file, out = (os.path.abspath(os.fspath(p)) for p in (dump, index_file, out))
    parent, name = os.path.split(out.rstrip(os.sep))
    own_work = work_dir is None
    work = os.path.abspath(os.fspath(work_dir)) if work_dir else os.path.join(parent, f".{name}.shards")
    os.makedirs(work, exist_ok=True)

    sources = os.path.join(work, "sources") if expand else None

    def read_sources(_) -> str:
        from . import _native as native

        native.build_sources(dump, sources, multistream_index=index_file, threads=sources_threads)
        return sources

    def build_one(k: int) -> str:
        from . import _native as native

        shard_dir = os.path.join(work, f"shard-{k}-of-{shards}")
        native.build_shard(
            dump,
            shard_dir,
            k,
            shards,
            multistream_index=index_file,
            threads=threads,
            text=text,
            expand=expand,
            memory_budget=memory_budget,
            sources=sources,
        )
        return shard_dir

    sc = spark.sparkContext
    try:
        if sources is not None:
            sc.parallelize([0], 1).map(read_sources).collect()
        dirs = sc.parallelize(list(range(1, shards + 1)), shards).map(build_one).collect()
        return _native.merge(sorted(dirs), out, memory_budget=memory_budget)
    finally:
        if own_work:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
