"""Checks a posted body against the OpenLineage rules our events must keep, written from the spec.

openlineage-python ships no JSON Schema files, so the rules are restated here from the specification's JSON
Schemas in the OpenLineage repository (github.com/OpenLineage/OpenLineage, `spec/`):
  - spec/OpenLineage.json, `$id` https://openlineage.io/spec/2-0-2/OpenLineage.json: BaseEvent requires
    eventTime (date-time), producer (uri), schemaURL (uri); RunEvent adds run and job (required), eventType
    (enum START RUNNING COMPLETE ABORT FAIL OTHER), inputs/outputs arrays of InputDataset/OutputDataset;
    Run requires runId (format uuid); Job and Dataset require namespace and name (strings); every facet is
    a BaseFacet requiring _producer (uri) and _schemaURL (uri); Dataset and Job facets may carry _deleted
    (boolean). The document is oneOf RunEvent / DatasetEvent (requires dataset, not job/run) / JobEvent
    (requires job, not run).
  - spec/facets/SchemaDatasetFacet.json, `$id` .../facets/1-2-0/SchemaDatasetFacet.json: `fields` is an
    array of SchemaDatasetFacetFields: name (string, required), type (string), description (string),
    ordinal_position (integer), fields (array of the same, nested).
  - spec/facets/ColumnLineageDatasetFacet.json, `$id` .../facets/1-2-0/ColumnLineageDatasetFacet.json:
    `fields` (required) maps output field names to objects requiring inputFields (array of InputField);
    transformationDescription / transformationType are strings (deprecated); `dataset` is an array of
    InputField. InputField requires namespace, name, field (strings); `transformations` is an array of
    objects requiring `type` (string) with subtype (string), description (string), masking (boolean).
Formats: date-time per RFC 3339 (section 5.6), uri per RFC 3986 (an absolute URI: scheme ":" hier-part),
uuid per RFC 4122's textual form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
COLUMN_LINEAGE_FACET = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
)
EVENT_TYPES = {"START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"}
# RFC 3339 5.6 date-time (time-secfrac optional; time-offset Z or +hh:mm / -hh:mm).
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
# RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":" and a hier-part with no whitespace.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>\"{}|\\^`]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def problems(body: bytes | str | Mapping[str, Any]) -> list[str]:
    """Every rule the event breaks (empty when it is a valid 2-0-2 RunEvent)."""
    found: list[str] = []
    if isinstance(body, Mapping):
        event: Any = body
    else:
        try:
            event = json.loads(body)
        except ValueError as error:
            return [f"not JSON: {error}"]
    if not isinstance(event, dict):
        return ["the event is not a JSON object"]
    for name in ("eventTime", "producer", "schemaURL", "run", "job"):
        if name not in event:
            found.append(f"{name} is required")
    if "dataset" in event:
        found.append("a RunEvent has no `dataset` (that is a DatasetEvent)")
    _date_time(event.get("eventTime"), "eventTime", found)
    _uri(event.get("producer"), "producer", found)
    _uri(event.get("schemaURL"), "schemaURL", found)
    if isinstance(event.get("schemaURL"), str) and not event["schemaURL"].startswith(SPEC + "#"):
        found.append(f"schemaURL {event['schemaURL']!r} does not point into spec 2-0-2")
    if "eventType" in event and event["eventType"] not in EVENT_TYPES:
        found.append(f"eventType {event['eventType']!r} is not one of {sorted(EVENT_TYPES)}")
    run = event.get("run")
    if run is not None:
        if not isinstance(run, dict):
            found.append("run must be an object")
        else:
            run_id = run.get("runId")
            if not isinstance(run_id, str) or not _UUID.fullmatch(run_id):
                found.append(f"run.runId {run_id!r} is not a UUID")
            _facets(run.get("facets"), "run.facets", found, deletable=False)
    job = event.get("job")
    if job is not None:
        if not isinstance(job, dict):
            found.append("job must be an object")
        else:
            _strings(job, ("namespace", "name"), "job", found)
            _facets(job.get("facets"), "job.facets", found, deletable=True)
    for side, extra in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        datasets = event.get(side, [])
        if not isinstance(datasets, list):
            found.append(f"{side} must be an array")
            continue
        for index, dataset in enumerate(datasets):
            where = f"{side}[{index}]"
            if not isinstance(dataset, dict):
                found.append(f"{where} must be an object")
                continue
            _strings(dataset, ("namespace", "name"), where, found)
            _facets(dataset.get("facets"), f"{where}.facets", found, deletable=True)
            _facets(dataset.get(extra), f"{where}.{extra}", found, deletable=False)
            facets = dataset.get("facets") or {}
            if isinstance(facets, dict):
                if "schema" in facets:
                    _schema_facet(facets["schema"], f"{where}.facets.schema", found)
                if "columnLineage" in facets:
                    _column_lineage(facets["columnLineage"], f"{where}.facets.columnLineage", found)
    return found


def _strings(value: Mapping[str, Any], names: tuple[str, ...], where: str, found: list[str]) -> None:
    for name in names:
        if not isinstance(value.get(name), str):
            found.append(f"{where}.{name} is a required string")


def _date_time(value: Any, where: str, found: list[str]) -> None:
    if value is None:
        return
    if not isinstance(value, str) or not _DATE_TIME.fullmatch(value):
        found.append(f"{where} {value!r} is not an RFC 3339 date-time")
        return
    try:
        datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        found.append(f"{where} {value!r} is not a real date-time")


def _uri(value: Any, where: str, found: list[str]) -> None:
    if value is None:
        return
    if not isinstance(value, str) or not _URI.fullmatch(value):
        found.append(f"{where} {value!r} is not an absolute URI")


def _facets(value: Any, where: str, found: list[str], deletable: bool) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        found.append(f"{where} must be an object")
        return
    for name, facet in value.items():
        if not isinstance(facet, dict):
            found.append(f"{where}.{name} must be an object")
            continue
        for member in ("_producer", "_schemaURL"):
            if member not in facet:
                found.append(f"{where}.{name}.{member} is required (BaseFacet)")
            else:
                _uri(facet[member], f"{where}.{name}.{member}", found)
        if "_deleted" in facet and (not deletable or not isinstance(facet["_deleted"], bool)):
            found.append(f"{where}.{name}._deleted must be a boolean on dataset and job facets only")


def _schema_facet(facet: Any, where: str, found: list[str]) -> None:
    if not isinstance(facet, dict):
        return
    if facet.get("_schemaURL") != SCHEMA_FACET:
        found.append(f"{where}._schemaURL is {facet.get('_schemaURL')!r}, not the schema facet's")
    fields = facet.get("fields", [])
    if not isinstance(fields, list):
        found.append(f"{where}.fields must be an array")
        return
    for index, field in enumerate(fields):
        _schema_field(field, f"{where}.fields[{index}]", found)


def _schema_field(field: Any, where: str, found: list[str]) -> None:
    if not isinstance(field, dict):
        found.append(f"{where} must be an object")
        return
    if not isinstance(field.get("name"), str):
        found.append(f"{where}.name is a required string")
    for name in ("type", "description"):
        if name in field and not isinstance(field[name], str):
            found.append(f"{where}.{name} must be a string")
    if "ordinal_position" in field and (
        not isinstance(field["ordinal_position"], int) or isinstance(field["ordinal_position"], bool)
    ):
        found.append(f"{where}.ordinal_position must be an integer")
    nested = field.get("fields", [])
    if not isinstance(nested, list):
        found.append(f"{where}.fields must be an array")
        return
    for index, child in enumerate(nested):
        _schema_field(child, f"{where}.fields[{index}]", found)


def _column_lineage(facet: Any, where: str, found: list[str]) -> None:
    if not isinstance(facet, dict):
        return
    if facet.get("_schemaURL") != COLUMN_LINEAGE_FACET:
        found.append(f"{where}._schemaURL is {facet.get('_schemaURL')!r}, not the column-lineage facet's")
    fields = facet.get("fields")
    if not isinstance(fields, dict):
        found.append(f"{where}.fields is a required object")
        return
    for name, spec in fields.items():
        at = f"{where}.fields[{name!r}]"
        if not isinstance(spec, dict) or not isinstance(spec.get("inputFields"), list):
            found.append(f"{at}.inputFields is a required array")
            continue
        for key in ("transformationDescription", "transformationType"):
            if key in spec and not isinstance(spec[key], str):
                found.append(f"{at}.{key} must be a string")
        for index, item in enumerate(spec["inputFields"]):
            _input_field(item, f"{at}.inputFields[{index}]", found)
    dataset = facet.get("dataset", [])
    if not isinstance(dataset, list):
        found.append(f"{where}.dataset must be an array")
    else:
        for index, item in enumerate(dataset):
            _input_field(item, f"{where}.dataset[{index}]", found)


def _input_field(item: Any, where: str, found: list[str]) -> None:
    if not isinstance(item, dict):
        found.append(f"{where} must be an object")
        return
    _strings(item, ("namespace", "name", "field"), where, found)
    transformations = item.get("transformations", [])
    if not isinstance(transformations, list):
        found.append(f"{where}.transformations must be an array")
        return
    for index, transformation in enumerate(transformations):
        at = f"{where}.transformations[{index}]"
        if not isinstance(transformation, dict) or not isinstance(transformation.get("type"), str):
            found.append(f"{at}.type is a required string")
            continue
        for key in ("subtype", "description"):
            if key in transformation and not isinstance(transformation[key], str):
                found.append(f"{at}.{key} must be a string")
        if "masking" in transformation and not isinstance(transformation["masking"], bool):
            found.append(f"{at}.masking must be a boolean")


def assert_valid(body: bytes | str | Mapping[str, Any]) -> dict[str, Any]:
    """The parsed event, after asserting it keeps every rule above."""
    broken = problems(body)
    assert not broken, "OpenLineage 2-0-2 rules broken:\n  " + "\n  ".join(broken)
    event: dict[str, Any] = dict(body) if isinstance(body, Mapping) else json.loads(body)
    return event
