"""What protoc's walk (`protobuf`) and the tolerant parser's walk (`protobuf_text`) share: how a field becomes
a column (protobuf's presence rules) and how a message-typed column is expanded. Each walker reads its own
tree (a FileDescriptorProto, or proto-schema-parser's AST) and says which message is the record."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Generic, Protocol, TypeVar

from kafka_lineage.schemas.model import Column, ColumnSink, ParsedSchema, failed


class Label(Enum):
    """A field's label as it bears on presence (a proto3 `optional` is OPTIONAL; a plain field is NONE)."""

    NONE = "none"
    OPTIONAL = "optional"
    REQUIRED = "required"
    REPEATED = "repeated"


@dataclass(frozen=True)
class Place:
    """Where the walk stands: the columns' path prefix, the nesting depth, the messages open on the path."""

    prefix: str
    depth: int
    open_messages: frozenset[str]

    def below(self, column: Column, message: str) -> Place:
        """The place of the fields of `message`, which `column` holds."""
        return Place(column.name + ".", self.depth + 1, self.open_messages | {message})


class _Named(Protocol):
    @property
    def full_name(self) -> str: ...


MessageT = TypeVar("MessageT", bound=_Named)


class ProtoWalker(Generic[MessageT]):
    """Walks the record message depth first into a ColumnSink; subclasses read their tree."""

    def __init__(self, explicit_presence: bool, proto3: bool) -> None:
        self._explicit_presence = explicit_presence
        self._proto3 = proto3
        self._sink = ColumnSink()

    def walk(self) -> ParsedSchema:
        root = self._root()
        if root is None:
            return failed("the PROTOBUF definition declares no message: no columns")
        self._fields(root, Place("", 1, frozenset({root.full_name})))
        return self._sink.result()

    def _root(self) -> MessageT | None:
        raise NotImplementedError

    def _fields(self, message: MessageT, place: Place) -> None:
        raise NotImplementedError

    def _field_column(
        self,
        path: str,
        element_type: str,
        label: Label,
        oneof: str | None,
        is_value: bool,
        description: str | None,
    ) -> Column:
        """A field's column. `is_value`: a scalar or enum (no presence in proto3 without a label); a oneof
        member without a comment is described by its oneof."""
        if label is Label.REPEATED:
            nullable = False
        elif oneof is not None or label is Label.OPTIONAL:
            nullable = True
        elif label is Label.REQUIRED:
            nullable = False
        else:
            # No label: proto3 scalars and enums have no presence; messages do.
            nullable = self._explicit_presence or not self._proto3 or not is_value
        if description is None and oneof is not None:
            description = f"oneof {oneof}"
        data_type = f"array<{element_type}>" if label is Label.REPEATED else element_type
        return Column(path, data_type, nullable, description)

    def _emit(self, column: Column, message: MessageT | None, place: Place) -> None:
        """Add the column, and expand the fields of `message` (the one it holds; None: a leaf) below it."""
        name = None if message is None else message.full_name
        if self._sink.add_record(column, place.depth, name, place.open_messages) and message is not None:
            self._fields(message, place.below(column, message.full_name))
