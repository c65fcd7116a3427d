"""The field diff between two versions of one schema: `diff_fields(data_format, old, new)`.

Fields are matched level by level, children of matched parents only:
  1. by name;
  2. what is left, by the format's own rename signal, never by similarity:
     - AVRO: a new field whose `aliases` name a field of the old version that is gone (the Avro
       specification's schema resolution reads the old field into the new one);
     - PROTOBUF: a new field with the field number of an old field that is gone (the number is the field's
       identity on the wire);
     - JSON Schema has no such signal: a renamed property is one `removed` and one `added`.
   A converter that numbers protobuf fields by position (the registry's Kafka Connect protobuf converter
   does, unless a field carries `protobuf.tag`) turns a dropped column into renames of the fields after it:
   that is what the wire format says, and the severity is the same (the dropped field's column loses its
   feed).
Unmatched new fields are `added`, unmatched old fields `removed`; inside an added or removed record only the
record itself is reported. A matched pair is compared on type, nullability and declared default. Record types
compare by kind only: a record's name (Debezium's `<topic>.Value`) is not part of what a table receives, and
its fields are compared one by one anyway.

Never raises on bad input: a version that cannot be read gives a diff with no changes, `complete` False and a
warning naming the version; a version read in part gives the changes where both were read.
"""

from __future__ import annotations

import re

from kafka_lineage.drift.facts import Facts, field_facts
from kafka_lineage.drift.model import NOT_NULL, NULLABLE, FieldChange, FieldDiff, FieldFacts
from kafka_lineage.drift.tree import FieldTree, Node
from kafka_lineage.observability import logger
from kafka_lineage.schemas import MAX_COLUMNS, ParsedSchema, parse_definition

# "record (dbserver1.inventory.customers.Value)" -> "record"; recursion markers stay as they are.
_RECORD_NAME = re.compile(r"record \((?!recursive: )[^()]*\)")
_NO_FACTS = FieldFacts()


def diff_fields(data_format: str, old_definition: str, new_definition: str) -> FieldDiff:
    """What changed from `old_definition` to `new_definition`, two versions of a schema in `data_format`."""
    fmt = data_format.strip().upper() if isinstance(data_format, str) else str(data_format)
    old = parse_definition(fmt, old_definition)
    new = parse_definition(fmt, new_definition)
    warnings = [
        f"{label} version: {parsed.warning}"
        for label, parsed in (("old", old), ("new", new))
        if parsed.warning
    ]
    if not old.columns or not new.columns:
        unread = " and ".join(label for label, parsed in (("old", old), ("new", new)) if not parsed.columns)
        warnings.append(f"no field diff: the {unread} version has no readable fields")
        return FieldDiff(fmt, (), old, new, complete=False, warnings=tuple(warnings))
    try:
        changes = _Differ(fmt, old, new, old_definition, new_definition).changes()
    except Exception as exc:
        # Both versions parsed, so reaching here is a bug in this package; a drift check must still not
        # stop the run that asked for it: log it loudly and report no changes, as for an unreadable version.
        logger.exception("schema field diff failed", extra={"data_format": fmt})
        warnings.append(f"no field diff: comparing the versions failed: {type(exc).__name__}: {exc}")
        return FieldDiff(fmt, (), old, new, complete=False, warnings=tuple(warnings))
    # A version cut at the column cap hides its tail: a field missing there is not known to be gone.
    if len(old.columns) >= MAX_COLUMNS or len(new.columns) >= MAX_COLUMNS:
        warnings.append(f"a version has {MAX_COLUMNS} columns or more: fields past the cap are not compared")
    return FieldDiff(fmt, changes, old, new, complete=not warnings, warnings=tuple(warnings))


class _LazyFacts:
    """A definition's per-field facts, read on first use: reading them parses the definition again, which
    only a default to compare or a rename candidate needs (most protobuf drifts need neither)."""

    def __init__(self, fmt: str, definition: str) -> None:
        self._fmt, self._definition = fmt, definition
        self._facts: Facts | None = None

    def get(self, path: str) -> FieldFacts:
        if self._facts is None:
            self._facts = field_facts(self._fmt, self._definition)
        return self._facts.get(path, _NO_FACTS)


def _may_declare_defaults(definition: str) -> bool:
    # Every format spells the keyword out; JSON could also escape it, so any escape counts as "maybe".
    return "default" in definition or "\\u" in definition


class _Differ:
    def __init__(
        self, fmt: str, old: ParsedSchema, new: ParsedSchema, old_definition: str, new_definition: str
    ) -> None:
        self._fmt = fmt
        self._old, self._new = FieldTree(old.columns), FieldTree(new.columns)
        self._old_facts = _LazyFacts(fmt, old_definition)
        self._new_facts = _LazyFacts(fmt, new_definition)
        self._defaults = _may_declare_defaults(old_definition) or _may_declare_defaults(new_definition)
        self._old_capped = len(old.columns) >= MAX_COLUMNS
        self._new_capped = len(new.columns) >= MAX_COLUMNS
        self._old_of: dict[str, str] = {}  # new path -> old path
        self._new_of: dict[str, str] = {}  # old path -> new path

    def changes(self) -> tuple[FieldChange, ...]:
        pending: list[tuple[str | None, str | None]] = [(None, None)]
        while pending:  # (new parent, old parent), matched; None, None is the top level
            new_parent, old_parent = pending.pop()
            for new_path, old_path in self._match(new_parent, old_parent):
                self._old_of[new_path] = old_path
                self._new_of[old_path] = new_path
                pending.append((new_path, old_path))
        found: list[FieldChange] = []
        for node in self._new.nodes.values():
            counterpart = self._old_of.get(node.column.name)
            if counterpart is not None:
                found.extend(self._compare(self._old.nodes[counterpart], node))
            elif self._reported(node, self._old_of) and not self._old_capped:
                found.append(
                    FieldChange(
                        node.column.name, "added", None, node.column.data_type, None, node.column.name
                    )
                )
        for node in self._old.nodes.values():
            if (
                node.column.name not in self._new_of
                and self._reported(node, self._new_of)
                and not self._new_capped
            ):
                found.append(
                    FieldChange(
                        node.column.name, "removed", node.column.data_type, None, node.column.name, None
                    )
                )
        return tuple(found)

    @staticmethod
    def _reported(node: Node, matched: dict[str, str]) -> bool:
        """An unmatched field is reported when its parent was matched: not inside an added/removed record."""
        return node.parent is None or node.parent in matched

    def _match(self, new_parent: str | None, old_parent: str | None) -> list[tuple[str, str]]:
        new_children = self._new.children.get(new_parent, {})
        old_children = self._old.children.get(old_parent, {})
        pairs = [(path, old_children[name]) for name, path in new_children.items() if name in old_children]
        left_new = [path for name, path in new_children.items() if name not in old_children]
        left_old = {name: path for name, path in old_children.items() if name not in new_children}
        if not left_new or not left_old:
            return pairs
        if self._fmt == "AVRO":
            for new_path in left_new:
                aliases = self._new_facts.get(new_path).aliases
                old_name = next((alias for alias in aliases if alias in left_old), None)
                if old_name is not None:
                    pairs.append((new_path, left_old.pop(old_name)))
        elif self._fmt == "PROTOBUF":
            by_number: dict[int, list[str]] = {}
            for old_path in left_old.values():
                number = self._old_facts.get(old_path).number
                if number is not None:
                    by_number.setdefault(number, []).append(old_path)
            for new_path in left_new:
                number = self._new_facts.get(new_path).number
                candidates = by_number.get(number, []) if number is not None else []
                if len(candidates) == 1:  # a number used twice is an invalid message: no signal
                    pairs.append((new_path, candidates.pop()))
        return pairs

    def _compare(self, old: Node, new: Node) -> list[FieldChange]:
        path, was, now = new.column.name, old.column, new.column
        found: list[FieldChange] = []
        if old.name != new.name:
            found.append(FieldChange(path, "renamed", was.name, now.name, was.name, now.name))
        if _kind(was.data_type) != _kind(now.data_type):
            found.append(FieldChange(path, "type_changed", was.data_type, now.data_type, was.name, now.name))
        if was.nullable != now.nullable:
            found.append(
                FieldChange(
                    path,
                    "nullability_changed",
                    _nullability(was.nullable),
                    _nullability(now.nullable),
                    was.name,
                    now.name,
                )
            )
        if not self._defaults:
            return found
        before = self._old_facts.get(was.name).default
        after = self._new_facts.get(now.name).default
        if before != after:
            found.append(FieldChange(path, "default_changed", before, after, was.name, now.name))
        return found


def _kind(data_type: str) -> str:
    return _RECORD_NAME.sub("record", data_type)


def _nullability(nullable: bool) -> str:
    return NULLABLE if nullable else NOT_NULL
