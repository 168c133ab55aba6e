"""The bindings answer as the CLI's --json does, on the 206-page enwiki dump and the
rivers sample; bad input raises the documented exceptions."""

import json
from pathlib import Path

import pytest

import wikiwit
from conftest import REPO

ENWIKI_TITLES = ["Anarchism", "Albedo", "Alabama", "Achilles"]


def norm(v):
    """Tuples (pairs in the library's answers) as JSON has them: lists; scores (f32 in
    the library) to the 6 significant digits JSON prints of them."""
    def walk(x):
        if isinstance(x, float):
            return float(f"{x:.6g}")
        if isinstance(x, (list, tuple)):
            return [walk(y) for y in x]
        if isinstance(x, dict):
            return {k: walk(y) for k, y in x.items()}
        return x

    return walk(json.loads(json.dumps(v)))


def test_resolve_matches_cli(enwiki, rivers):
    for ix, cli in (enwiki, rivers):
        for t in ["Anarchism", "ural river", "River Ural", "Danube#Delta", "Nope nope", "a[b", "fr:Paris"]:
            assert norm(ix.resolve(t)) == norm(cli.json("resolve", t)), t


def test_page_queries_match_cli(enwiki):
    ix, cli = enwiki
    for t in ENWIKI_TITLES:
        assert norm(ix.page(t)) == norm(cli.json("page", t)), t
        assert norm(ix.sections(t)) == norm(cli.json("sections", t)), t
        assert norm(ix.links(t)) == norm(cli.json_lines("links", t)), t
        assert norm(ix.links(t, incoming=True)) == norm(cli.json_lines("links", t, "--in")), t
        assert norm(ix.links(t, context="prose")) == norm(cli.json_lines("links", t, "--context", "prose")), t
        assert norm(ix.text(t)) == norm(cli.json("text", t)), t
        assert norm(ix.siblings(t)) == norm(cli.json("siblings", t)), t
    assert norm(ix.infobox("Alabama")) == norm(cli.json_lines("infobox", "Alabama"))
    assert norm(ix.infobox("Alabama", "capital")) == norm(cli.json("infobox", "Alabama", "capital"))
    assert norm(ix.search("anarchist philosophy")) == norm(cli.json_lines("search", "anarchist philosophy"))
    hits = ix.search("state", page="Anarchism", limit=3)
    assert norm(hits) == norm(cli.json_lines("search", "state", "--page", "Anarchism", "--limit", "3"))
    assert hits and all(h["page"] == "Anarchism" for h in hits)


def test_tables_locators_frontier_match_cli(rivers):
    ix, cli = rivers
    t = "List of transboundary rivers"
    assert norm(ix.table(t, 1)) == norm(cli.json("table", t, "1"))
    assert norm(ix.table(t, 1, row=0)) == norm(cli.json("table", t, "1", "--row", "0"))
    for loc in [
        "Danube#Course",
        "Danube infobox:length",
        f"{t} table:1 row:2",
        "Danube quote:\"no such words here at all\"",
    ]:
        assert norm(ix.locate(loc)) == norm(cli.json("locate", loc)), loc
    assert ix.locate("Danube#")["status"] == "found"
    f = ix.frontier(t, "Which transboundary rivers flow through Germany?")
    assert norm(f) == norm(cli.json("frontier", "--seed", t, "--query", "Which transboundary rivers flow through Germany?"))


def test_audit_matches_cli(rivers, tmp_path):
    ix, cli = rivers
    contract = REPO / "tests/data/rivers/transboundary-contract.json"
    rows = REPO / "tests/data/rivers/transboundary-rows.jsonl"
    log = tmp_path / "cli.jsonl"
    p = cli.run("audit", str(contract), str(rows), "--findings", str(log), "--json")
    want_summary = json.loads(p.stdout)
    want = [json.loads(l) for l in log.read_text().splitlines() if '"check"' in l]
    got = ix.audit(contract, rows)
    assert norm(got["findings"]) == want
    want_summary.pop("findings_log")
    assert norm(got["summary"]) == want_summary
    assert got["findings"], "the rivers rows have findings"
    # Rows and contract as Python objects give the same findings.
    objs = [json.loads(l) for l in rows.read_text().splitlines() if l.strip()]
    again = ix.audit(json.loads(contract.read_text()), objs)
    strip = lambda fs: [{k: v for k, v in f.items() if k != "audit"} for f in fs]
    assert strip(again["findings"]) == strip(want)


def test_check_citations_matches_cli(enwiki, tmp_path):
    ix, cli = enwiki
    report = REPO / "tests/data/reports/enwiki-2016.md"
    got = ix.check_citations(report.read_text(encoding="utf-8"))
    assert norm(got) == norm(cli.json("cite", "check", str(report)))
    assert got["citations"]


def test_arrow_batches_equal_the_parquet_export(enwiki, tmp_path):
    import pyarrow.parquet as pq

    ix, cli = enwiki
    for table in wikiwit.TABLES:
        out = tmp_path / f"{table}.parquet"
        cli.run("export", table, "--format", "parquet", "--output", str(out), ok=(0,))
        t = ix.arrow(table)
        assert t.equals(pq.read_table(out)), table
        assert ix.write_parquet(table, tmp_path / "again.parquet") == t.num_rows
    pages = ix.arrow("pages").to_pandas()
    assert len(pages) == 206 and pages["is_redirect"].dtype == bool


def test_bad_input_raises_the_documented_exceptions(enwiki, tmp_path):
    ix, _ = enwiki
    with pytest.raises(wikiwit.IndexDataError):
        wikiwit.Index(tmp_path)
    with pytest.raises(wikiwit.NotFoundError):
        ix.page("No such page at all")
    with pytest.raises(wikiwit.NotFoundError):
        ix.table("Anarchism", 99)
    with pytest.raises(wikiwit.InvalidInputError):
        ix.links("Anarchism", context="nowhere")
    with pytest.raises(wikiwit.InvalidInputError):
        ix.locate("sentence:abc")
    with pytest.raises(wikiwit.InvalidInputError):
        ix.record_batches("nope")
    with pytest.raises(wikiwit.InvalidInputError):
        ix.audit({"columns": []}, [])
    with pytest.raises(wikiwit.AuditError):
        ix.audit(REPO / "tests/data/rivers/transboundary-contract.json", tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b"<mediawiki><page><title>x</title>\x00\xff")
    with pytest.raises(wikiwit.BuildError) as e:
        wikiwit.build(bad, tmp_path / "ix")
    assert "bad.xml" in str(e.value)
    assert issubclass(wikiwit.NotFoundError, wikiwit.WikiwitError)
    # A pages-only index refuses page queries with the reason.
    po = tmp_path / "po"
    wikiwit.build(REPO / "tests/data/rivers/rivers-wiki.xml", po, pages_only=True)
    with pytest.raises(wikiwit.IndexDataError, match="pages-only"):
        wikiwit.Index(po).page("Danube")
    assert wikiwit.Index(po).resolve("Danube")["status"] == "page"


def test_threads_query_one_index_in_parallel(enwiki):
    from concurrent.futures import ThreadPoolExecutor

    ix, _ = enwiki
    want = [ix.text(t) for t in ENWIKI_TITLES]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(ix.text, ENWIKI_TITLES * 4))
    assert got == want * 4
