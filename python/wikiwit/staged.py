"""Staged rows as Parquet with the contract's schema.

``pyarrow.Table.from_pylist(rows)`` takes its schema from the first row and silently
drops every column that row lacks: a staged table whose first row has no ``as_of`` or
no ``continent`` loses that column for every row. :func:`write_staged_parquet` writes
the columns the contract declares, then the reserved fields (``source_page``,
``locator``, ``as_of``, ``cell_locators``, ``claims``), then any other field some row
has, whichever rows hold them; a row without a field has a null there (an empty map
for ``cell_locators`` and ``claims``).

Values are written as the auditor reads them: a number or boolean as its JSON text
(the auditor compares text), a list as a list of strings, ``cell_locators`` and
``claims`` as string maps. So ``wikiwit.spark.audit`` on the Parquet file (read with
``spark.read.parquet``) finds what ``Index.audit`` finds on the rows themselves.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, List, Mapping, Union

#: Row fields that are not columns (as the auditor reads them), in the order written.
RESERVED = ("source_page", "locator", "as_of", "cell_locators", "claims")
_MAPS = ("cell_locators", "claims")


def _contract_dict(contract: Union[str, "os.PathLike[str]", bytes, Mapping[str, Any]]) -> dict:
    """The contract as a dict, checked by the auditor's own parser."""
    from ._native import PreparedAudit

    if isinstance(contract, Mapping):
        raw, name = json.dumps(contract).encode(), "<contract>"
    elif isinstance(contract, (bytes, bytearray)):
        raw, name = bytes(contract), "<contract>"
    else:
        with open(contract, "rb") as f:
            raw, name = f.read(), os.fspath(contract)
    PreparedAudit(raw, name, "")  # raises InvalidInputError on a bad contract
    return json.loads(raw)


def _text(v: Any) -> Any:
    """A scalar as the auditor reads it from JSON: strings as they are, numbers and
    booleans as their JSON text, null as null."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bool, int, float)):
        return json.dumps(v)
    raise ValueError(f"{v!r} is not a cell value (a string, number, boolean, list or null)")


def staged_schema(contract, rows: Iterable[Mapping[str, Any]] = ()):
    """The ``pyarrow.Schema`` :func:`write_staged_parquet` writes ``rows`` with: the
    contract's columns, the reserved fields, then the other fields of ``rows``; strings,
    except lists of strings for a column some row gives as a list and string maps for
    ``cell_locators`` and ``claims``."""
    import pyarrow as pa

    c = _contract_dict(contract)
    names: List[str] = [col["name"] for col in c.get("columns", [])]
    names += [r for r in RESERVED if r not in names]
    listed = set()
    for row in rows:
        for k, v in row.items():
            if k not in names:
                names.append(k)
            if isinstance(v, (list, tuple)):
                listed.add(k)
    fields = []
    for n in names:
        if n in _MAPS:
            t = pa.map_(pa.string(), pa.string())
        elif n in listed:
            t = pa.list_(pa.string())
        else:
            t = pa.string()
        fields.append(pa.field(n, t, nullable=True))
    return pa.schema(fields)


def write_staged_parquet(rows: Iterable[Mapping[str, Any]], contract, path, *, row_group_size=None) -> int:
    """Writes staged rows (dicts, as in a JSON lines rows file) to the Parquet file
    ``path`` with :func:`staged_schema`; returns the number of rows. ``contract`` is a
    contract file, its bytes or a dict (checked as ``wikiwit audit`` checks it).
    A field given as a list in one row and as a string in another, or a value that is
    no cell value (an object), raises ``ValueError`` naming the row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(rows)
    schema = staged_schema(contract, rows)
    columns = {f.name: [] for f in schema}
    for i, row in enumerate(rows):
        for f in schema:
            v = row.get(f.name)
            try:
                columns[f.name].append(_cell(f, v))
            except ValueError as e:
                raise ValueError(f"row {i}, field {f.name!r}: {e}") from None
    table = pa.table({n: pa.array(vs, type=schema.field(n).type) for n, vs in columns.items()}, schema=schema)
    pq.write_table(table, os.fspath(path), row_group_size=row_group_size)
    return len(rows)


def _cell(field, v: Any) -> Any:
    import pyarrow as pa

    if v is None and not pa.types.is_map(field.type):
        return None
    if pa.types.is_map(field.type):
        # Empty, not null: the auditor reads a null map as a malformed field.
        if v is None:
            return []
        if not isinstance(v, Mapping):
            raise ValueError(f"{v!r} is not an object of column → string")
        return [(str(k), _text(x)) for k, x in v.items()]
    if pa.types.is_list(field.type):
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"{v!r} is not a list, as other rows give this field")
        return [_text(x) for x in v]
    if isinstance(v, (list, tuple, Mapping)):
        raise ValueError(f"{v!r} is not a cell value")
    return _text(v)
