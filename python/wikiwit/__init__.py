"""wikiwit for Python: an offline, deterministic Wikipedia dump index.

    import wikiwit
    ix = wikiwit.Index("index/enwiki")
    ix.resolve("ural river")            # normalization, redirects, final page
    ix.infobox("Danube", "length")      # one infobox field
    ix.arrow("links")                   # a pyarrow.Table of the links export
    wikiwit.write_staged_parquet(rows, "contract.json", "rows.parquet")  # for Spark

Every answer is made of plain dicts, lists, strings and numbers with the fields of the
CLI's ``--json`` output. Errors are subclasses of :class:`WikiwitError`. The library
releases the GIL while it works, so threads query one index in parallel.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from .staged import staged_schema, write_staged_parquet
from ._native import (
    AuditError,
    BuildError,
    IndexDataError,
    InvalidInputError,
    NotFoundError,
    PreparedAudit,
    WikiwitError,
)

__all__ = [
    "Index",
    "build",
    "WikiwitError",
    "NotFoundError",
    "IndexDataError",
    "InvalidInputError",
    "BuildError",
    "AuditError",
    "PreparedAudit",
    "TABLES",
    "staged_schema",
    "write_staged_parquet",
]

PathLike = Union[str, "os.PathLike[str]"]

#: The export tables, as ``wikiwit export`` names them (schema: docs/parquet.md).
TABLES = ("pages", "redirects", "links", "categories", "templates", "sections", "text")


def build(
    dump: PathLike,
    index: PathLike,
    *,
    threads: int = 0,
    text: bool = True,
    pages_only: bool = False,
    expand: bool = True,
    multistream_index: Optional[PathLike] = None,
    memory_budget: Optional[int] = None,
    progress: Optional[Callable[[str, int, int], None]] = None,
) -> dict:
    """Builds an index from a dump into the directory ``index``; returns its manifest.

    ``progress(phase, done, total)`` is called as phases start and advance (bytes of the
    dump). Raises :class:`BuildError` on a bad dump; the previous index is untouched.
    """
    return _native.build(
        os.fspath(dump),
        os.fspath(index),
        threads=threads,
        text=text,
        pages_only=pages_only,
        expand=expand,
        multistream_index=None if multistream_index is None else os.fspath(multistream_index),
        memory_budget=memory_budget,
        progress=progress,
    )


class Index:
    """An index directory, opened read-only and memory-mapped.

    Raises :class:`IndexDataError` when ``path`` holds no index (or one of another
    format version).
    """

    def __init__(self, path: PathLike):
        self._ix = _native.Index(os.fspath(path))

    @property
    def path(self) -> str:
        return self._ix.path

    def __repr__(self) -> str:
        return f"wikiwit.Index({self.path!r})"

    def info(self) -> dict:
        """The manifest: source dump, build parameters, counts."""
        return self._ix.info()

    def resolve(self, title: str) -> dict:
        """What a title resolves to: ``status`` (page, redirect, missing, invalid,
        interwiki, broken-redirect, redirect-loop), page, redirect chain, target."""
        return self._ix.resolve(title)

    def page(self, title: str) -> dict:
        """A page's summary: sections, infobox, tables, categories, link counts."""
        return self._ix.page(title)

    def links(
        self,
        title: str,
        *,
        incoming: bool = False,
        context: Optional[str] = None,
        direct: bool = False,
        origin: Optional[str] = None,
    ) -> list:
        """Links of a page with context and section; ``incoming=True``: pages linking
        to it (``direct=True``: not through redirects)."""
        return self._ix.links(title, incoming=incoming, context=context, direct=direct, origin=origin)

    def sections(self, title: str) -> dict:
        """``{"title", "sections": [...]}`` with MediaWiki's anchors and numbering."""
        return self._ix.sections(title)

    def table(self, title: str, n: int, row: Optional[int] = None) -> dict:
        """Table ``n`` (1-based) of a page; with ``row``, one data row (0-based)."""
        return self._ix.table(title, n, row)

    def infobox(self, title: str, field: Optional[str] = None) -> Union[list, dict]:
        """The page's infoboxes, or one field's ``{"page", "field", "text", "raw", "links"}``."""
        return self._ix.infobox(title, field)

    def text(self, title: str, section: Optional[str] = None) -> dict:
        """Plain text of a page (or of the section with anchor ``section``), by sentence."""
        return self._ix.text(title, section)

    def search(
        self, query: str, *, page: Optional[str] = None, section: Optional[str] = None, limit: int = 10
    ) -> list:
        """Full-text search (BM25) with each hit's best sentence."""
        return self._ix.search(query, page=page, section=section, limit=limit)

    def locate(self, locator: str) -> dict:
        """What a locator points at; ``status`` is ``found`` or ``unresolved`` (with a
        reason). A locator that does not parse raises :class:`InvalidInputError`."""
        return self._ix.locate(locator)

    def siblings(self, title: str, limit: int = 50) -> dict:
        """Pages listed next to a page (same table column, list or navigation template)."""
        return self._ix.siblings(title, limit)

    def frontier(
        self,
        seed: str,
        query: str,
        *,
        table: Optional[int] = None,
        ops: Optional[Sequence[str]] = None,
        limit: int = 10,
        row_ratio: Optional[float] = None,
    ) -> dict:
        """The source frontier of a question over a seed page."""
        return self._ix.frontier(
            seed, query, table=table, ops=None if ops is None else list(ops), limit=limit, row_ratio=row_ratio
        )

    def check_citations(self, markdown: str) -> dict:
        """Checks the citations of a markdown report (its text); as ``wikiwit cite check --json``."""
        return self._ix.check_citations(markdown)

    def audit(
        self,
        contract: Union[PathLike, Mapping[str, Any]],
        rows: Union[PathLike, Iterable[Mapping[str, Any]]],
        *,
        findings: Optional[PathLike] = None,
        threads: int = 0,
    ) -> dict:
        """Audits staged rows against a contract; returns ``{"summary", "findings"}``.

        ``contract`` is a contract file or the contract as a dict; ``rows`` a rows file
        (CSV or JSON lines) or an iterable of row dicts (written as JSON lines). Findings
        are appended to ``findings`` when given (the findings log), else kept only in the
        answer. Bad rows are findings; an unreadable input raises :class:`AuditError`, a
        bad contract :class:`InvalidInputError`.
        """
        with tempfile.TemporaryDirectory(prefix="wikiwit-audit-") as tmp:
            if isinstance(contract, Mapping):
                path = Path(tmp, "contract.json")
                path.write_text(json.dumps(contract), encoding="utf-8")
                contract = path
            if not isinstance(rows, (str, os.PathLike)):
                path = Path(tmp, "rows.jsonl")
                with path.open("w", encoding="utf-8") as f:
                    for r in rows:
                        f.write(json.dumps(r, ensure_ascii=False))
                        f.write("\n")
                rows = path
            log = Path(findings) if findings is not None else Path(tmp, "findings.jsonl")
            start = log.stat().st_size if log.exists() else 0
            summary = self._ix.audit_files(os.fspath(contract), os.fspath(rows), os.fspath(log), threads)
            with log.open("rb") as f:
                f.seek(start)
                found = [json.loads(line) for line in f if line.strip()]
            found = [r for r in found if "check" in r]
            if findings is None:
                summary.pop("findings_log", None)
            return {"summary": summary, "findings": found}

    def record_batches(self, table: str) -> list:
        """An export table as a list of ``pyarrow.RecordBatch`` (Arrow C data interface,
        no copy of the buffers)."""
        return self._ix.record_batches(table)

    def arrow(self, table: str):
        """An export table as a ``pyarrow.Table`` (schema: docs/parquet.md)."""
        import pyarrow as pa

        return pa.Table.from_batches(self._ix.record_batches(table), schema=self._ix.schema(table))

    def write_parquet(self, table: str, path: PathLike) -> int:
        """Writes an export table as Parquet (as ``wikiwit export --format parquet``);
        returns the number of rows."""
        return self._ix.write_parquet(table, os.fspath(path))
