"""Batch verification on Apache Spark: staged-table audits and citation checks spread
over executors, each opening the index read-only and memory-mapped.

The index directory must be readable at the same path on every executor (a shared
filesystem), or shipped with ``SparkContext.addArchive("ix.tar.gz#ix")`` and named by
the archive's alias (``index="ix"``), which resolves through ``SparkFiles``.

Audits run in two stages (docs/python.md):

1. **row-level checks** (schema, locators, values, claims, dates, filters): every
   partition is checked where it lies, in parallel; each row yields its findings and a
   compact summary (key identity, first key, source page);
2. **table-level checks** (key integrity, cardinality, coverage, provenance,
   exhaustiveness): the summaries are sorted by row number and folded in **one task**,
   so a duplicate key in another partition, or a cardinality over the whole table, is
   found exactly as a single-machine ``wikiwit audit`` finds it.
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
            findings, summaries = prepared.check_rows(ix._ix, batch)
            for f in findings:
                yield ("f", f.get("row") or 0, json.dumps(f))
            for (n, _, _), s in zip(batch, summaries):
                yield ("s", n, s)

        for row, n in items:
            batch.append((n, n + 1, _row_json(row, json_col)))
            if len(batch) == 4096:
                yield from flush()
                batch = []
        if batch:
            yield from flush()

    checked = rows_df.rdd.zipWithIndex().mapPartitions(check_partition).cache()
    try:
        rows = rows_df.count()

        def table_stage(items):
            summaries = [s for _, _, s in sorted(items, key=lambda x: x[1])]
            ix = _index(index)
            prepared = PreparedAudit(contract_bytes, name, audit_id)
            for f in prepared.table_findings(ix._ix, summaries, rows):
                yield ("f", f.get("row") or 0, json.dumps(f))

        summaries = checked.filter(lambda x: x[0] == "s").coalesce(1)
        table = summaries.mapPartitions(table_stage)
        found = checked.filter(lambda x: x[0] == "f").union(table)
        records = found.map(lambda x: _finding_row(json.loads(x[2])))
        df = spark.createDataFrame(records, findings_schema())
        if output is not None:
            df.write.mode("overwrite").parquet(output)
            df = spark.read.parquet(output)
        else:
            df = df.localCheckpoint(eager=True)
        return df
    finally:
        checked.unpersist()


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
