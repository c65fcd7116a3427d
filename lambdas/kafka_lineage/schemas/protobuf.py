"""PROTOBUF definitions -> columns: protoc (in process, `protoc`) first, proto-schema-parser as the fallback.

protoc compiles the file to a FileDescriptorProto, which this module walks; a file protoc rejects (an import
the registry does not hold, a type declared nowhere, any other error) goes to the tolerant ANTLR parser
(`protobuf_text`), which gives the same columns for every file both accept and a warning for a file neither
can read.

Rules beyond those in `model`:
  - The record is the first top-level message that no other message of the file refers to; when every one is
    referred to, the first top-level message. So a file that declares `Value`, `Source` and then
    `Envelope` (the order the Glue Schema Registry's Kafka Connect converter writes) still yields
    `Envelope`, and a file of unrelated messages yields the first, the convention of the Glue and Confluent
    serializers.
  - Type names resolve as protoc does, from the innermost scope outwards (package included). A type of an
    imported file is a leaf named by its full name, e.g. "google.type.Interval"; with the tolerant parser, a
    name that resolves nowhere stays as written, e.g. "acme.type.Money".
  - Nested messages are expanded as dotted paths; so are messages in repeated fields and map values.
    A message already open on the current path is marked recursive.
  - Well-known types are leaves: "timestamp (google.protobuf.Timestamp)",
    "string (google.protobuf.StringValue)".
  - Scalars keep protobuf's names ("int32", "sint64", "bool"); `repeated T` is "array<T>", `map<K,V>` is
    "map<K,V>", enums are "enum", oneof members are columns of the message.
  - Nullable means "may be absent": message-typed fields, proto2 `optional`, proto3 `optional`, oneof members
    and fields of edition files (explicit presence by default). proto3 singular scalars and enums, proto2
    `required`, repeated and map fields are not nullable.
  - A field's description is its leading `//` or `/* */` comment (with any detached comments above it),
    else its trailing comment on the same line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka_lineage.schemas import protobuf_text, protoc
from kafka_lineage.schemas.model import Column, ParsedSchema
from kafka_lineage.schemas.protobuf_columns import Label, Place, ProtoWalker
from kafka_lineage.schemas.protobuf_text import WELL_KNOWN

# FieldDescriptorProto.Type numbers -> protobuf's scalar names (descriptor.proto).
_SCALAR_TYPES = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32", 8: "bool",
    9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64",
}  # fmt: skip
_TYPE_GROUP = 10
_TYPE_MESSAGE = 11
_TYPE_ENUM = 14
_LABEL_REQUIRED = 2
_LABEL_REPEATED = 3
# Source-info paths (descriptor.proto field numbers): FileDescriptorProto.message_type,
# DescriptorProto.field and DescriptorProto.nested_type.
_FILE_MESSAGES = 4
_MESSAGE_FIELDS = 2
_MESSAGE_NESTED = 3


def parse(definition: str) -> ParsedSchema:
    compiled = protoc.compile_definition(definition)
    if compiled is None:
        return protobuf_text.parse(definition)
    return _Walker(compiled).walk()


@dataclass(frozen=True)
class _Message:
    full_name: str  # without the leading dot, e.g. "dbserver1.inventory.customers.Envelope"
    proto: Any  # DescriptorProto
    path: tuple[int, ...]  # its source-info path


class _Walker(ProtoWalker[_Message]):
    def __init__(self, file: Any) -> None:
        super().__init__(explicit_presence=file.syntax == "editions", proto3=file.syntax == "proto3")
        self._file = file
        self._messages: dict[str, _Message] = {}
        self._enums: set[str] = set()
        self._tops: list[_Message] = []
        self._comments = {
            tuple(location.path): location
            for location in file.source_code_info.location
            if location.leading_comments or location.trailing_comments or location.leading_detached_comments
        }
        prefix = f"{file.package}." if file.package else ""
        for index, message in enumerate(file.message_type):
            self._tops.append(self._declare(message, prefix + message.name, (_FILE_MESSAGES, index)))
        self._enums.update(prefix + enum.name for enum in file.enum_type)

    def _declare(self, top: Any, full_name: str, path: tuple[int, ...]) -> _Message:
        pending = [(top, full_name, path)]
        while pending:  # iterative: protoc caps nesting, but the walk need not rely on it
            proto, name, where = pending.pop()
            self._messages[name] = _Message(name, proto, where)
            self._enums.update(f"{name}.{enum.name}" for enum in proto.enum_type)
            pending.extend(
                (nested, f"{name}.{nested.name}", (*where, _MESSAGE_NESTED, index))
                for index, nested in enumerate(proto.nested_type)
            )
        return self._messages[full_name]

    def _root(self) -> _Message | None:
        if not self._tops:
            return None
        referenced: set[str] = set()
        for message in self._messages.values():
            for field in message.proto.field:
                target = field.type_name.lstrip(".")
                # A message's own nested types referring back to it don't make it a part of something else.
                if target in self._messages and not (message.full_name + ".").startswith(target + "."):
                    referenced.add(target)
        return next((top for top in self._tops if top.full_name not in referenced), self._tops[0])

    # -- columns --

    def _fields(self, message: _Message, place: Place) -> None:
        proto = message.proto
        for index, field in enumerate(proto.field):
            if self._sink.full:
                return
            description = self._description((*message.path, _MESSAGE_FIELDS, index))
            target = self._messages.get(field.type_name.lstrip(".")) if field.type_name else None
            if target is not None and target.proto.options.map_entry:
                self._map(field, target, place, description)
                continue
            oneof = None
            if field.HasField("oneof_index") and not field.proto3_optional:
                oneof = proto.oneof_decl[field.oneof_index].name
            self._field(field, place, description, oneof)

    def _field(self, field: Any, place: Place, description: str | None, oneof: str | None) -> None:
        if field.type == _TYPE_GROUP:
            # proto2 groups: a nested message type and a field named after it in lower case.
            element_type, target = "record", self._messages.get(field.type_name.lstrip("."))
        else:
            element_type, target = self._element(field)
        is_value = field.type not in (_TYPE_MESSAGE, _TYPE_GROUP)
        label = _label(field)
        column = self._field_column(
            place.prefix + field.name, element_type, label, oneof, is_value, description
        )
        self._emit(column, target, place)

    def _map(self, field: Any, entry: _Message, place: Place, description: str | None) -> None:
        key, value = _entry_fields(entry.proto)
        key_type = _SCALAR_TYPES.get(key.type, "unknown") if key is not None else "unknown"
        value_type, target = self._element(value) if value is not None else ("unknown", None)
        column = Column(place.prefix + field.name, f"map<{key_type},{value_type}>", False, description)
        self._emit(column, target, place)

    def _element(self, field: Any) -> tuple[str, _Message | None]:
        """The readable type of a field's (element) type, and the message of this file it names, if any."""
        if field.type in _SCALAR_TYPES:
            return _SCALAR_TYPES[field.type], None
        full_name = field.type_name.lstrip(".")
        if full_name in WELL_KNOWN:
            return f"{WELL_KNOWN[full_name]} ({full_name})", None
        if full_name in self._messages:
            return "record", self._messages[full_name]
        if full_name in self._enums:
            return "enum", None
        return full_name, None  # a type of an imported file

    def _description(self, path: tuple[int, ...]) -> str | None:
        location = self._comments.get(path)
        if location is None:
            return None
        leading = " ".join(_lines(location.leading_detached_comments, location.leading_comments))
        return leading or location.trailing_comments.strip() or None


def _label(field: Any) -> Label:
    if field.label == _LABEL_REPEATED:
        return Label.REPEATED
    if field.proto3_optional:
        return Label.OPTIONAL
    return Label.REQUIRED if field.label == _LABEL_REQUIRED else Label.NONE


def _entry_fields(entry: Any) -> tuple[Any, Any]:
    by_number = {field.number: field for field in entry.field}
    return by_number.get(1), by_number.get(2)


def _lines(detached: Any, leading: str) -> Iterator[str]:
    for text in (*detached, leading):
        stripped = text.strip()
        if stripped:
            yield stripped
