"""wikiwit.write_staged_parquet: staged rows written with the contract's schema, so a
column absent from the first row survives (pyarrow's from_pylist drops it), and an
audit of the rows read back from Parquet finds what an audit of the rows finds."""

import json

import pytest

from conftest import REPO

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

import wikiwit  # noqa: E402

CONTRACT = REPO / "tests/data/rivers/transboundary-contract.json"


def staged_rows():
    """The rivers rows, the first one without `continent` and without `as_of`, a later
    one with an `as_of` and per-cell locators, one with `countries` as a number."""
    lines = (REPO / "tests/data/rivers/transboundary-rows.jsonl").read_text().splitlines()
    rows = [json.loads(l) for l in lines if l.strip()]
    del rows[0]["continent"]
    rows[0].pop("as_of", None)
    rows[2]["as_of"] = "2024-12-31"
    rows[2]["cell_locators"] = {"length": "#Rivers|table:1|row:2|col:Length (km)"}
    rows[3]["length"] = 2850
    return rows


def test_a_column_missing_in_the_first_row_survives(rivers, tmp_path):
    rows = staged_rows()
    # What a user copying from_pylist would get: the column is gone for every row.
    assert "continent" not in pa.Table.from_pylist(rows[:3]).column_names

    out = tmp_path / "rows.parquet"
    assert wikiwit.write_staged_parquet(rows, CONTRACT, out, row_group_size=5) == len(rows)
    table = pq.read_table(out)
    names = table.column_names
    assert names[:4] == ["river", "length", "countries", "continent"], names
    for field in ("source_page", "locator", "as_of", "cell_locators"):
        assert field in names
    back = table.to_pylist()
    assert back[0]["continent"] is None and back[0]["cell_locators"] == []
    assert [r["continent"] for r in back[1:]] == [r["continent"] for r in rows[1:]]
    assert back[2]["as_of"] == "2024-12-31"
    assert dict(back[2]["cell_locators"]) == rows[2]["cell_locators"]
    assert back[3]["length"] == "2850", "numbers as the auditor reads them: their JSON text"
    assert table.schema == wikiwit.staged_schema(CONTRACT, rows)

    # The rows read back audit as the rows themselves do.
    ix, _ = rivers

    def as_json(r):
        """A row read back as it was staged: absent fields left out, maps as objects."""
        r = {k: (dict(v) if k in ("cell_locators", "claims") else v) for k, v in r.items()}
        return {k: v for k, v in r.items() if v is not None}

    key = lambda f: json.dumps({k: f.get(k) for k in ("check", "row", "key", "locator", "message")})
    want = sorted(map(key, ix.audit(CONTRACT, rows)["findings"]))
    got = sorted(map(key, ix.audit(CONTRACT, [as_json(r) for r in back])["findings"]))
    assert got == want
    assert any('"check": 6' in f and "continent" in f for f in want), "the missing value is found"


def test_bad_values_and_contracts_are_refused(tmp_path):
    rows = staged_rows()
    rows[1]["countries"] = ["Peru", "Brazil"]  # a list here, strings elsewhere
    with pytest.raises(ValueError, match="row 0, field 'countries'"):
        wikiwit.write_staged_parquet(rows, CONTRACT, tmp_path / "x.parquet")
    with pytest.raises(wikiwit.InvalidInputError):
        wikiwit.write_staged_parquet(staged_rows(), b"{", tmp_path / "y.parquet")
