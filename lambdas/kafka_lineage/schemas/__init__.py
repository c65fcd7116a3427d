"""Schema definitions (Glue Schema Registry: AVRO, JSON, PROTOBUF) -> columns; the rows a CDC topic carries.

`parse_definition(data_format, definition)` never raises on bad input: a definition it cannot read gives a
`ParsedSchema` with no columns and a `warning` (the caller still creates the asset); a partial result (nesting
deeper than MAX_DEPTH, more than MAX_COLUMNS columns) has columns and a warning. Column naming and type
rendering are described in `model`; per-format rules in `avro`, `json_schema` and `protobuf`.

`row_fields(columns)` maps the fields of one CDC row to the columns that carry them, for lineage:
  - a Debezium envelope (a top-level record column `after`, next to a top-level record `before` or a top-level
    `op`): the row fields are the direct children of `after` ("after.id" -> "id"). `before` holds the same
    fields and `source`, `op`, `ts_ms`, `transaction` describe the change, not the row;
  - anything else, e.g. a record already unwrapped by Debezium's ExtractNewRecordState SMT: the top-level
    columns are the row fields (including any `__op` / `__deleted` the SMT adds).
Keys are the field names as written (original case); values are column paths.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka_lineage.observability import logger
from kafka_lineage.schemas import avro, json_schema, protobuf
from kafka_lineage.schemas.model import (
    MAX_COLUMNS,
    MAX_DEPTH,
    Column,
    ParsedSchema,
    failed,
    is_container,
    quote,
)

__all__ = ["MAX_COLUMNS", "MAX_DEPTH", "Column", "ParsedSchema", "parse_definition", "row_fields"]

_PARSERS = {"AVRO": avro.parse, "JSON": json_schema.parse, "PROTOBUF": protobuf.parse}


def parse_definition(data_format: str, definition: str) -> ParsedSchema:
    """Columns of a schema definition in the given Glue data format (AVRO | JSON | PROTOBUF)."""
    parser = _PARSERS.get(data_format.strip().upper()) if isinstance(data_format, str) else None
    if parser is None:
        return failed(f"data format {quote(str(data_format))} is not supported (AVRO, JSON or PROTOBUF)")
    if not isinstance(definition, str) or not definition.strip():
        return failed(f"{data_format} definition is empty")
    try:
        return parser(definition)
    except Exception as exc:
        # Each parser turns malformed input into a warning itself; reaching here is a bug in this package,
        # and a schema must still become an asset, so log it loudly and degrade to "no columns".
        logger.exception("schema parser failed", extra={"data_format": data_format})
        return failed(f"{data_format} definition could not be read: {type(exc).__name__}: {exc}")


def row_fields(columns: Iterable[Column]) -> dict[str, str]:
    """Row field name -> column path, by the rule in the module docstring."""
    columns = tuple(columns)
    top = _children(columns, None)
    after = top.get("after")
    before = top.get("before")
    if (
        after is not None
        and _is_record(after)
        and ((before is not None and _is_record(before)) or "op" in top)
    ):
        return {name: column.name for name, column in _children(columns, "after").items()}
    return {name: column.name for name, column in top.items()}


def _is_record(column: Column) -> bool:
    return column.data_type == "record" or column.data_type.startswith("record (")


def _children(columns: tuple[Column, ...], parent: str | None) -> dict[str, Column]:
    """Direct children of `parent` (None: top level), by each column's place in the depth-first order.

    Names are not split on dots, because JSON property names may contain dots: a column is the child of the
    nearest preceding container whose path prefixes it.
    """
    found: dict[str, Column] = {}
    open_containers: list[str] = []
    for column in columns:
        while open_containers and not column.name.startswith(open_containers[-1] + "."):
            open_containers.pop()
        owner = open_containers[-1] if open_containers else None
        if owner == parent:
            found.setdefault(column.name if owner is None else column.name[len(owner) + 1 :], column)
        if is_container(column.data_type):
            open_containers.append(column.name)
    return found
