"""wikiwit.spark in local[2]: the audit's findings equal, as a multiset, those of the
single-machine audit of the same rows, with the rows spread over several partitions
(so duplicate keys and table-level counts cross partition boundaries) and key integrity
run in several tasks."""

import json
from collections import Counter

import pytest

import subprocess

from conftest import DATA, REPO, cli_binary

pyspark = pytest.importorskip("pyspark")

import wikiwit  # noqa: E402
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

    # Key integrity in three tasks: the rows' key groups fall into more than one.
    prepared = wikiwit.PreparedAudit(contract.read_bytes(), "contract", "")
    _, _, groups = prepared.check_rows(ix._ix, [(n, n + 1, l) for n, l in enumerate(lines * 3)])
    assert len({wspark.table_partition(g, 3) for g in groups}) >= 2

    out = tmp_path / "findings.parquet"
    got_df = wspark.audit(rows_df, contract, ix.path, output=str(out), table_partitions=3)
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


def test_the_spark_submit_job_audits_a_parquet_file_of_rows(rivers, tmp_path):
    """python/examples/audit_job.py under spark-submit in local[2]: the findings it writes
    equal those of the single-machine audit of the same rows."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pyarrow.parquet as pq

    ix, _ = rivers
    contract = REPO / "tests/data/rivers/transboundary-contract.json"
    lines = [l for l in (REPO / "tests/data/rivers/transboundary-rows.jsonl").read_text().splitlines() if l.strip()]
    rows = [json.loads(l) for l in lines * 2]
    # The first row without a column: the helper keeps it for the others.
    del rows[0]["continent"]
    wikiwit.write_staged_parquet(rows, contract, tmp_path / "rows.parquet", row_group_size=7)
    # The reference sees the rows as the job does: absent fields are nulls in Parquet,
    # maps are objects.
    staged = tmp_path / "rows.jsonl"
    read = pq.read_table(tmp_path / "rows.parquet").to_pylist()
    for r in read:
        r["cell_locators"], r["claims"] = dict(r["cell_locators"]), dict(r["claims"])
    staged.write_text("".join(json.dumps(r) + "\n" for r in read))
    want = ix.audit(contract, staged)["findings"]
    assert any("continent" in f["message"] for f in want), "the first row's missing value"

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    out = tmp_path / "findings.parquet"
    p = subprocess.run(
        [str(submit), "--master", "local[2]", "--driver-memory", "1g", "--conf", "spark.ui.enabled=false",
         str(REPO / "python/examples/audit_job.py"), str(tmp_path / "rows.parquet"), str(contract),
         str(ix.path), str(out), "--table-partitions", "2"],
        capture_output=True, text=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    assert p.returncode == 1, p.stderr[-3000:]
    blocking = sum(f["severity"] == "blocking" for f in want)
    assert f"{len(want)} findings ({blocking} blocking)" in p.stdout
    got = pq.read_table(out).to_pylist()
    assert Counter(map(key, got)) == Counter(map(key, want))

    # A contract that does not parse: exit code 2 and the reason, before any task.
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    p = subprocess.run(
        [str(submit), "--master", "local[1]", str(REPO / "python/examples/audit_job.py"),
         str(tmp_path / "rows.parquet"), str(bad), str(ix.path), str(tmp_path / "f2")],
        capture_output=True, text=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    # spark-submit's Python runner merges the driver's stderr into its own stdout.
    assert p.returncode == 2 and "audit_job:" in p.stdout + p.stderr, p.stderr[-3000:]


def test_spark_build_equals_the_one_machine_build(session, tmp_path):
    """wikiwit.spark.build in local[2] on ltgwiki, cut into 3 shards: every data file of
    the merged index equals the one-machine build's byte for byte, and so do the
    exports."""
    dump = DATA / "ltgwiki-2017-multistream.xml.bz2"
    idx = DATA / "ltgwiki-2017-multistream-index.txt.bz2"
    one = tmp_path / "one"
    wikiwit.build(dump, one, multistream_index=idx)
    merged = tmp_path / "spark"
    m = wspark.build(dump, idx, merged, shards=3, spark=session)
    assert m["counts"] == wikiwit.Index(one).info()["counts"]
    assert not (tmp_path / ".spark.shards").exists(), "the shards were left behind"
    files = sorted(p.name for p in one.iterdir() if p.is_file() and p.name != "manifest.json")
    assert len(files) >= 15
    assert files == sorted(p.name for p in merged.iterdir() if p.is_file() and p.name != "manifest.json")
    for f in files:
        assert (one / f).read_bytes() == (merged / f).read_bytes(), f
    for table in wikiwit.TABLES:
        out = [
            subprocess.run([cli_binary(), "export", table, "--index", str(d)], capture_output=True, check=True).stdout
            for d in (one, merged)
        ]
        assert out[0] == out[1], table


def test_spark_build_shares_one_first_pass(session, tmp_path):
    """The shards of wikiwit.spark.build take one first pass (`build --sources-only`, run
    as one task) instead of each decoding the template and module streams: every shard
    holds that pass's files. The bindings refuse another dump's first pass, publishing
    nothing."""
    dump = DATA / "ltgwiki-2017-multistream.xml.bz2"
    idx = DATA / "ltgwiki-2017-multistream-index.txt.bz2"
    work = tmp_path / "work"
    m = wspark.build(dump, idx, tmp_path / "ix", shards=2, spark=session, work_dir=work)
    sources = work / "sources"
    made = json.loads((sources / "manifest.json").read_text())
    assert made["format"] == "wikiwit-sources"
    assert made["sources"] == m["build"]["sources"] and made["sources"]["pages"] > 300
    for k in (1, 2):
        for f in ("sources.rec", "sources.fst"):
            assert (work / f"shard-{k}-of-2" / f).read_bytes() == (sources / f).read_bytes(), (k, f)
    other = DATA / "enwiki-2016-206pages-multistream.xml.bz2"
    with pytest.raises(wikiwit.BuildError, match="holds the first pass of another dump"):
        wikiwit._native.build_shard(
            other,
            tmp_path / "x",
            1,
            2,
            multistream_index=DATA / "enwiki-2016-206pages-multistream-index.txt.bz2",
            sources=sources,
        )
    assert not (tmp_path / "x").exists()
