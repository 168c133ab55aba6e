"""wikiwit.spark in local[2]: the audit's findings equal, as a multiset, those of the
single-machine audit of the same rows, with the rows spread over several partitions
(so duplicate keys and table-level counts cross partition boundaries)."""

import json
from collections import Counter

import pytest

from conftest import REPO

pyspark = pytest.importorskip("pyspark")

from wikiwit import spark as wspark  # noqa: E402


@pytest.fixture(scope="module")
def session():
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2]")
        .appName("wikiwit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    yield s
    s.stop()


def key(f):
    return tuple((k, json.dumps(f.get(k))) for k in (
        "check", "name", "category", "severity", "row", "line", "key", "locator", "evidence", "message"))


def test_spark_audit_equals_the_single_machine_audit(session, rivers, tmp_path):
    ix, _ = rivers
    contract = REPO / "tests/data/rivers/transboundary-contract.json"
    rows_file = REPO / "tests/data/rivers/transboundary-rows.jsonl"
    lines = [l for l in rows_file.read_text().splitlines() if l.strip()]
    # The rows three times over: every key repeats in other partitions.
    staged = tmp_path / "rows.jsonl"
    staged.write_text("\n".join(lines * 3) + "\n")
    want = ix.audit(contract, staged)["findings"]
    assert any(f["check"] == 5 for f in want), "duplicate keys expected"

    rows_df = session.read.text(str(staged))
    # Five partitions in file order.
    parts = session.sparkContext.parallelize(rows_df.collect(), 5)
    rows_df = session.createDataFrame(parts, rows_df.schema)
    assert rows_df.rdd.getNumPartitions() == 5

    out = tmp_path / "findings.parquet"
    got_df = wspark.audit(rows_df, contract, ix.path, output=str(out))
    got = [r.asDict() for r in got_df.collect()]
    assert Counter(map(key, got)) == Counter(map(key, want))
    assert out.is_dir()

    # Re-serialized JSON text in four partitions: the same findings.
    texts = [(json.dumps(json.loads(l)),) for l in lines * 3]
    col_df = session.createDataFrame(session.sparkContext.parallelize(texts, 4), "value string")
    got2 = [r.asDict() for r in wspark.audit(col_df, contract, ix.path).collect()]
    assert Counter(map(key, got2)) == Counter(map(key, want))


def test_spark_check_citations_equals_the_bindings(session, enwiki):
    ix, _ = enwiki
    report = (REPO / "tests/data/reports/enwiki-2016.md").read_text(encoding="utf-8")
    df = session.createDataFrame([("r1", report), ("r2", report)], ["id", "markdown"]).repartition(2)
    got = wspark.check_citations(df, ix.path).collect()
    want = json.loads(json.dumps(ix.check_citations(report)["citations"]))
    assert len(got) == 2 * len(want) > 0
    by_report = {}
    for r in got:
        by_report.setdefault(r["report"], []).append(json.loads(r["check"]))
    for rid in ("r1", "r2"):
        assert sorted(by_report[rid], key=json.dumps) == sorted(want, key=json.dumps)
