"""What Search sees of a domain's assets: one indexed document per asset, filter clauses and free text.

The index is eventually consistent: writes reach it `search_lag_calls` Search calls late (a reading).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.standins.datazone.records import Asset, AssetRevision, Form, FormType
from local.standins.datazone.wire import as_datetime, epoch_ms
from local.standins.errors import ServiceError, validation


@dataclass(frozen=True)
class Doc:
    """What Search indexes of one asset revision: a snapshot, so a lagging index shows stale data."""

    asset_id: str
    name: str
    description: str | None
    external_identifier: str | None
    type_name: str
    type_revision: str
    revision: str
    owning_project_id: str
    created_at: datetime  # of this revision
    first_created_at: datetime
    glossary_terms: tuple[str, ...]
    forms: tuple[Form, ...]
    attributes: dict[str, tuple[Any, ...]]  # filterable attribute -> values
    text: dict[str, tuple[str, ...]]  # free-text attribute -> values


@dataclass
class SearchIndex:
    """Search's view of the inventory; writes reach it `search_lag_calls` Search calls late."""

    visible: dict[str, Doc] = field(default_factory=dict)
    pending: list[tuple[int, str, Doc | None]] = field(default_factory=list)
    calls: int = 0

    def write(self, asset_id: str, doc: Doc | None, lag: int) -> None:
        self.pending.append((self.calls + lag, asset_id, doc))

    def begin_search(self) -> list[Doc]:
        ready = [entry for entry in self.pending if entry[0] <= self.calls]
        self.pending = [entry for entry in self.pending if entry[0] > self.calls]
        for _, asset_id, doc in ready:
            if doc is None:
                self.visible.pop(asset_id, None)
            else:
                self.visible[asset_id] = doc
        self.calls += 1
        return list(self.visible.values())


SORT_KEYS: dict[str, Callable[[Doc], Any]] = {
    "name": lambda doc: doc.name.lower(),
    "createdAt": lambda doc: doc.first_created_at,
    "creationTime": lambda doc: doc.first_created_at,
    "updatedAt": lambda doc: doc.created_at,
    "lastUpdatedTime": lambda doc: doc.created_at,
}


def _flatten(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield value


def build_doc(asset: Asset, revision: AssetRevision, form_types: Callable[[Form], FormType]) -> Doc:
    attributes: dict[str, tuple[Any, ...]] = {
        "typeName": (asset.type_name,),
        "typeIdentifier": (asset.type_name,),
        "owningProjectId": (asset.owning_project_id,),
        "name": (revision.name,),
        "creationTime": (epoch_ms(asset.revisions[0].created_at),),
        "lastUpdatedTime": (epoch_ms(revision.created_at),),
        "__DataZoneGlossaryTerms": tuple(revision.glossary_terms or ()),
    }
    text: dict[str, tuple[str, ...]] = {"name": (revision.name,)}
    if revision.description:
        attributes["description"] = (revision.description,)
        text["description"] = (revision.description,)
    for form in revision.forms:
        form_type = form_types(form)
        structure = form_type.model.local(form_type.structure)
        if structure is None or not isinstance(form.parsed, dict):
            continue
        for member_name, member in structure.members.items():
            if not (member.searchable or member.sortable) or form.parsed.get(member_name) is None:
                continue
            values = tuple(_flatten(form.parsed[member_name]))
            attributes[f"{form.form_name}.{member_name}"] = values
            if member.searchable:
                text[f"{form.form_name}.{member_name}"] = tuple(str(v) for v in values)
    return Doc(
        asset_id=asset.id,
        name=revision.name,
        description=revision.description,
        external_identifier=asset.external_identifier,
        type_name=asset.type_name,
        type_revision=revision.type_revision,
        revision=revision.revision,
        owning_project_id=asset.owning_project_id,
        created_at=revision.created_at,
        first_created_at=asset.revisions[0].created_at,
        glossary_terms=tuple(revision.glossary_terms or ()),
        forms=tuple(revision.forms),
        attributes=attributes,
        text=text,
    )


def _filter_target(clause: dict[str, Any]) -> Any:
    if clause.get("intValue") is not None:
        return int(clause["intValue"])
    if clause.get("value") is not None:
        return clause["value"]
    raise validation(f"Filter on {clause.get('attribute')!r} needs a value or an intValue")


def _as_number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            try:
                return float(epoch_ms(as_datetime(value, "value")))
            except ServiceError:
                return None
    return None


def _compare(candidate: Any, operator: str, target: Any) -> bool:
    if operator == "TEXT_SEARCH":
        return str(target).lower() in str(candidate).lower()
    if operator == "EQ" and isinstance(target, str) and isinstance(candidate, str):
        return candidate == target
    left, right = _as_number(candidate), _as_number(target)
    if left is None or right is None:
        return operator == "EQ" and str(candidate) == str(target)
    return {
        "EQ": left == right,
        "LT": left < right,
        "LE": left <= right,
        "GT": left > right,
        "GE": left >= right,
    }[operator]


def check_clause(clause: dict[str, Any]) -> None:
    """A FilterClause is a union (exactly one of filter, and, or); a filter needs a value or an intValue."""
    keys = [key for key in ("filter", "and", "or") if clause.get(key) is not None]
    if len(keys) != 1:
        raise validation("A filter clause must set exactly one of filter, and, or")
    if keys[0] == "filter":
        _filter_target(clause["filter"])
    else:
        for item in clause[keys[0]]:
            check_clause(item)


def filter_attributes(clause: dict[str, Any]) -> set[str]:
    """Every attribute a checked FilterClause filters on."""
    if clause.get("filter") is not None:
        return {clause["filter"]["attribute"]}
    return set().union(*(filter_attributes(item) for item in clause.get("and") or clause.get("or") or []))


def matches(clause: dict[str, Any], doc: Doc, unindexed: frozenset[str] = frozenset()) -> bool:
    """Evaluate a checked FilterClause. An attribute DataZone does not index matches nothing."""
    if clause.get("and") is not None:
        return all(matches(item, doc, unindexed) for item in clause["and"])
    if clause.get("or") is not None:
        return any(matches(item, doc, unindexed) for item in clause["or"])
    spec = clause["filter"]
    if spec["attribute"] in unindexed:
        return False
    target = _filter_target(spec)
    operator = spec.get("operator") or "EQ"
    return any(
        _compare(candidate, operator, target) for candidate in doc.attributes.get(spec["attribute"], ())
    )


def text_matches(doc: Doc, text: str, fields: list[str] | None, with_external_id: bool) -> bool:
    """Free text: semantic search returns near misses, so any one term matching is enough (a caller must
    check what it gets); a query in double quotes is lexical and needs every term."""
    lexical = len(text) >= 2 and text.startswith('"') and text.endswith('"')
    terms = [t.lower() for t in text.strip('"').split() if t]
    haystack = dict(doc.text)
    if with_external_id and doc.external_identifier:
        haystack["externalIdentifier"] = (doc.external_identifier,)
    chosen = fields if fields is not None else list(haystack)
    values = [v.lower() for key in chosen for v in haystack.get(key, ())]
    hits = [any(term in value for value in values) for term in terms]
    return bool(terms) and (all(hits) if lexical else any(hits))
