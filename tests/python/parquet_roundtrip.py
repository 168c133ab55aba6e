"""Reads `wikiwit export --format parquet` files back with pyarrow and DuckDB and compares
them with the TSV / JSON lines exports of the same index, row by row.

    python parquet_roundtrip.py DIR TABLE...

DIR holds TABLE.parquet and TABLE.tsv for each TABLE. Prints one line per table,
`TABLE rows=N`, and exits non-zero (with the first difference) on any mismatch.
"""

import json
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq


def tsv_field(v):
    """A Parquet value as the TSV export writes it."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    return v.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def expected_rows(table, path):
    """The text export's rows, as the tuples the Parquet file must hold."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if table == "sections":
        out = []
        for line in lines:
            obj = json.loads(line)
            for s in obj["sections"]:
                out.append((obj["title"], int(s["index"]), s["toclevel"], int(s["level"]),
                            s["line"], s["number"], s["anchor"], s["byteoffset"]))
        return out
    if table == "text":
        cols = ["title", "section", "anchor", "sentence", "kind", "start", "end", "text"]
        return [tuple(json.loads(line)[c] for c in cols) for line in lines]
    return [tuple(line.split("\t")) for line in lines]


def as_tsv(table, rows):
    if table in ("sections", "text"):
        return rows
    return [tuple(tsv_field(v) for v in r) for r in rows]


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"row {i}: {x!r} != {y!r}"
    return f"lengths {len(a)} != {len(b)}"


def main():
    d = Path(sys.argv[1])
    failed = False
    for table in sys.argv[2:]:
        pq_path = d / f"{table}.parquet"
        want = expected_rows(table, d / f"{table}.tsv")
        # pyarrow: the file's own schema, every row in order.
        t = pq.read_table(pq_path)
        cols = [t.column(i).to_pylist() for i in range(t.num_columns)]
        got = as_tsv(table, list(zip(*cols)) if cols else [])
        if t.num_rows != len(want) or got != want:
            print(f"{table}: pyarrow differs from the text export: {first_difference(got, want)}")
            failed = True
        # DuckDB: its own Parquet reader; compared as a multiset (scan order is DuckDB's).
        con = duckdb.connect()
        n = con.execute("SELECT count(*) FROM read_parquet(?)", [str(pq_path)]).fetchone()[0]
        rows = con.execute("SELECT * FROM read_parquet(?)", [str(pq_path)]).fetchall()
        got_db = as_tsv(table, [tuple(r) for r in rows])
        if n != len(want) or sorted(got_db, key=repr) != sorted(want, key=repr):
            print(f"{table}: DuckDB differs from the text export ({n} rows, want {len(want)})")
            failed = True
        print(f"{table} rows={len(want)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
