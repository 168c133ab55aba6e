import os
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from ._native import (
    AuditError as AuditError,
    BuildError as BuildError,
    IndexDataError as IndexDataError,
    InvalidInputError as InvalidInputError,
    NotFoundError as NotFoundError,
    PreparedAudit as PreparedAudit,
    WikiwitError as WikiwitError,
)

from .staged import (
    staged_schema as staged_schema,
    write_staged_parquet as write_staged_parquet,
)

PathLike = Union[str, os.PathLike[str]]
TABLES: tuple[str, ...]

def build(
    dump: PathLike,
    index: PathLike,
    *,
    threads: int = ...,
    text: bool = ...,
    pages_only: bool = ...,
    expand: bool = ...,
    multistream_index: Optional[PathLike] = ...,
    memory_budget: Optional[int] = ...,
    progress: Optional[Callable[[str, int, int], None]] = ...,
) -> dict[str, Any]: ...

class Index:
    def __init__(self, path: PathLike) -> None: ...
    @property
    def path(self) -> str: ...
    def info(self) -> dict[str, Any]: ...
    def resolve(self, title: str) -> dict[str, Any]: ...
    def page(self, title: str) -> dict[str, Any]: ...
    def links(
        self,
        title: str,
        *,
        incoming: bool = ...,
        context: Optional[str] = ...,
        direct: bool = ...,
        origin: Optional[str] = ...,
    ) -> list[dict[str, Any]]: ...
    def sections(self, title: str) -> dict[str, Any]: ...
    def table(self, title: str, n: int, row: Optional[int] = ...) -> dict[str, Any]: ...
    def infobox(self, title: str, field: Optional[str] = ...) -> Union[list[dict[str, Any]], dict[str, Any]]: ...
    def text(self, title: str, section: Optional[str] = ...) -> dict[str, Any]: ...
    def search(
        self, query: str, *, page: Optional[str] = ..., section: Optional[str] = ..., limit: int = ...
    ) -> list[dict[str, Any]]: ...
    def locate(self, locator: str) -> dict[str, Any]: ...
    def siblings(self, title: str, limit: int = ...) -> dict[str, Any]: ...
    def frontier(
        self,
        seed: str,
        query: str,
        *,
        table: Optional[int] = ...,
        ops: Optional[Sequence[str]] = ...,
        limit: int = ...,
        row_ratio: Optional[float] = ...,
    ) -> dict[str, Any]: ...
    def check_citations(self, markdown: str) -> dict[str, Any]: ...
    def audit(
        self,
        contract: Union[PathLike, Mapping[str, Any]],
        rows: Union[PathLike, Iterable[Mapping[str, Any]]],
        *,
        findings: Optional[PathLike] = ...,
        threads: int = ...,
    ) -> dict[str, Any]: ...
    def record_batches(self, table: str) -> list[Any]: ...
    def arrow(self, table: str) -> Any: ...
    def write_parquet(self, table: str, path: PathLike) -> int: ...
