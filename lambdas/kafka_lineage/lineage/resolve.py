"""Which Glue table each topic feeds: explicit mappings first (operator's over the stack's), then the rule.

Explicit mappings: SSM String parameters below `{MAPPING_PATH}/table-mappings/` (README: Lineage) whose value
is `{"topic", "database", "table"}` with an optional `"registryName"`. Those under `table-mappings/cdk/` are
the stack's; any other is an operator's and wins for the same topic. Within one tier a mapping that names
the registry beats one that does not. Two mappings of the same tier and specificity that disagree are both
reported invalid and the topic fails: picking one silently could draw the wrong edge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import ValidationError

from kafka_lineage.config import Settings, Source
from kafka_lineage.lineage.model import TableRef, TopicKey
from kafka_lineage.mapping import AssetRecord
from kafka_lineage.model.errors import describe
from kafka_lineage.model.table_mapping import TableMapping

Origin = Literal["operator", "stack", "rule"]
STACK_FOLDER = "cdk"


@dataclass(frozen=True)
class MappingParameter:
    """One SSM parameter below `table-mappings/`, as GetParametersByPath returned it."""

    name: str
    value: str
    type: str = "String"
    last_modified: datetime | None = None


@dataclass(frozen=True)
class ExplicitMapping:
    parameter: str
    topic: str
    table: TableRef
    registry_name: str | None
    operator: bool  # False: the stack wrote it under table-mappings/cdk/
    last_modified: datetime | None = None

    @property
    def origin(self) -> Origin:
        return "operator" if self.operator else "stack"

    def applies_to(self, key: TopicKey) -> bool:
        return self.topic == key.topic and self.registry_name in (None, key.registry_name)


@dataclass(frozen=True)
class InvalidMapping:
    parameter: str
    error: str

    def as_dict(self) -> dict[str, str]:
        return {"parameter": self.parameter, "error": self.error}


@dataclass(frozen=True, slots=True)
class Target:
    """A mirrored topic and the table it feeds."""

    key: TopicKey
    record: AssetRecord
    source: Source
    table: TableRef
    origin: Origin
    mapping: ExplicitMapping | None = None


@dataclass(frozen=True)
class TopicProblem:
    key: TopicKey
    error: str


@dataclass(frozen=True)
class Resolution:
    targets: dict[TopicKey, Target]
    unmapped: tuple[TopicKey, ...]
    failed: tuple[TopicProblem, ...]
    invalid_mappings: tuple[InvalidMapping, ...]
    # Mirrored topics whose registry is no longer a configured source: left alone, state untouched.
    unconfigured: tuple[TopicKey, ...] = ()


def parse_mappings(
    parameters: Iterable[MappingParameter], table_mappings_path: str
) -> tuple[list[ExplicitMapping], list[InvalidMapping]]:
    """Parse every parameter below `table_mappings_path`; the invalid ones are reported, never raised."""
    stack_prefix = f"{table_mappings_path.rstrip('/')}/{STACK_FOLDER}/"
    mappings: list[ExplicitMapping] = []
    invalid: list[InvalidMapping] = []
    for parameter in sorted(parameters, key=lambda p: p.name):
        if parameter.type != "String":
            invalid.append(
                InvalidMapping(parameter.name, f"must be a String parameter, not {parameter.type}")
            )
            continue
        try:
            value = TableMapping.model_validate(json.loads(parameter.value))
        except json.JSONDecodeError as error:
            invalid.append(InvalidMapping(parameter.name, f"value is not JSON: {error.msg}"))
            continue
        except ValidationError as error:
            invalid.append(InvalidMapping(parameter.name, describe(error)))
            continue
        mappings.append(
            ExplicitMapping(
                parameter=parameter.name,
                topic=value.topic,
                table=TableRef(value.database, value.table),
                registry_name=value.registry_name,
                operator=not parameter.name.startswith(stack_prefix),
                last_modified=parameter.last_modified,
            )
        )
    return mappings, invalid


def resolve(
    records: Iterable[AssetRecord],
    settings: Settings,
    mappings: Sequence[ExplicitMapping],
    invalid: Sequence[InvalidMapping] = (),
) -> Resolution:
    """Map every mirrored topic to its table, or report it unmapped (or failed, on conflicting mappings)."""
    by_topic: dict[str, list[ExplicitMapping]] = {}
    for mapping in mappings:
        by_topic.setdefault(mapping.topic, []).append(mapping)
    targets: dict[TopicKey, Target] = {}
    unmapped: list[TopicKey] = []
    failed: list[TopicProblem] = []
    unconfigured: list[TopicKey] = []
    conflicts: dict[str, InvalidMapping] = {}
    for record in sorted(records, key=lambda r: (r.registry_name, r.schema_name)):
        key = TopicKey(record.registry_name, record.schema_name)
        source = settings.source(record.registry_name)
        if source is None:
            unconfigured.append(key)
            continue
        candidates = [m for m in by_topic.get(key.topic, ()) if m.applies_to(key)]
        chosen, clash = _choose(candidates)
        if clash:
            described = ", ".join(f"{m.parameter} -> {m.table.name}" for m in clash)
            failed.append(TopicProblem(key, f"conflicting explicit table mappings: {described}"))
            for mapping in clash:
                others = ", ".join(m.parameter for m in clash if m is not mapping)
                conflicts.setdefault(
                    mapping.parameter,
                    InvalidMapping(mapping.parameter, f"conflicts with {others} for topic {key.key}"),
                )
            continue
        if chosen is not None:
            targets[key] = Target(key, record, source, chosen.table, chosen.origin, chosen)
            continue
        by_rule = source.table_rule.table_for(key.topic) if source.table_rule else None
        if by_rule is None:
            unmapped.append(key)
        else:
            targets[key] = Target(key, record, source, TableRef(*by_rule), "rule")
    all_invalid = {item.parameter: item for item in invalid}
    for parameter, item in conflicts.items():
        all_invalid.setdefault(parameter, item)
    return Resolution(
        targets=targets,
        unmapped=tuple(unmapped),
        failed=tuple(failed),
        invalid_mappings=tuple(all_invalid[name] for name in sorted(all_invalid)),
        unconfigured=tuple(unconfigured),
    )


def _choose(candidates: Sequence[ExplicitMapping]) -> tuple[ExplicitMapping | None, list[ExplicitMapping]]:
    """The winning mapping, or the clashing set when the best tier disagrees about the table."""
    if not candidates:
        return None, []

    def rank(mapping: ExplicitMapping) -> tuple[int, int]:
        return (0 if mapping.operator else 1, 0 if mapping.registry_name is not None else 1)

    best = min(rank(m) for m in candidates)
    tier = sorted((m for m in candidates if rank(m) == best), key=lambda m: m.parameter)
    if len({m.table for m in tier}) > 1:
        return None, tier
    return tier[0], []
