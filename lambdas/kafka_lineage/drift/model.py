"""Values of the drift core: one field's change between two schema versions, and the diff that lists them.

A change names the field by its column path (the dotted path `kafka_lineage.schemas` gives it, e.g.
`after.address.city`): the path in the new version, or in the old one for a removed field. `before` and
`after` are short texts, so an event consumer can show them as they are:

| change                | before                 | after                  |
|-----------------------|------------------------|------------------------|
| `added`               | None                   | the new field's type   |
| `removed`             | the old field's type   | None                   |
| `type_changed`        | old type               | new type               |
| `nullability_changed` | "nullable"/"not null"  | "nullable"/"not null"  |
| `default_changed`     | old default as JSON, None when there was none | new default likewise |
| `renamed`             | old path               | new path               |

One field may have several changes (renamed and retyped); each is its own entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kafka_lineage.schemas import ParsedSchema

ChangeKind = Literal["added", "removed", "type_changed", "nullability_changed", "default_changed", "renamed"]
CHANGE_KINDS: tuple[ChangeKind, ...] = (
    "added",
    "removed",
    "type_changed",
    "nullability_changed",
    "default_changed",
    "renamed",
)
NULLABLE = "nullable"
NOT_NULL = "not null"


@dataclass(frozen=True)
class FieldFacts:
    """What a format says about one field beyond its column: the rename and default signals."""

    default: str | None = None
    """The declared default as compact JSON; None when the field declares none."""
    aliases: tuple[str, ...] = ()
    """Avro field aliases: earlier names of this field."""
    number: int | None = None
    """Protobuf field number: the field's identity on the wire."""


@dataclass(frozen=True)
class FieldChange:
    field: str
    change: ChangeKind
    before: str | None
    after: str | None
    old_path: str | None
    """The field's path in the old version (None for `added`): where its old column lineage is looked up."""
    new_path: str | None
    """The field's path in the new version (None for `removed`)."""

    def as_dict(self) -> dict[str, str | None]:
        return {"field": self.field, "change": self.change, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class FieldDiff:
    """The changes from one schema version to the next, with both versions' columns.

    `complete` is False when a version could not be read, or was read only in part: `warnings` then say
    which and why. Changes are only reported where both versions were read: an unreadable version gives
    no changes at all (never "every field removed"), and a field beyond a version's column cap is neither
    "added" nor "removed".
    """

    data_format: str
    changes: tuple[FieldChange, ...]
    old: ParsedSchema
    new: ParsedSchema
    complete: bool = True
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.changes)
