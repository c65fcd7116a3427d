"""OpenLineage run events as PostLineageEvent takes them: the checks of a body, and the stored record."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

from local.standins.errors import validation

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
RUN_EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")


@dataclass
class LineageEvent:
    id: str
    body: bytes
    event: dict[str, Any]
    event_time: datetime
    created_at: datetime
    due: int  # processed once the domain's lineage reads reach this count
    status: str = "REQUESTED"
    deleted: bool = False
    delete_due: int | None = None  # a requested deletion takes effect once lineage reads reach this count
    retained: bool = False  # deleted, yet what it drew stays in the graph (`lineage_delete_removes_edges`)

    @property
    def run_id(self) -> str:
        return str(self.event["run"]["runId"])

    def inputs(self) -> list[str]:
        return dataset_ids(self.event, "inputs")


def parse_run_event(body: bytes) -> dict[str, Any]:
    """Check that the body is an OpenLineage RunEvent (the only kind PostLineageEvent accepts)."""
    try:
        event = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise validation("The lineage event is not valid JSON") from None
    if not isinstance(event, dict):
        raise validation("The lineage event must be a JSON object (an OpenLineage RunEvent)")
    if "run" not in event:
        kind = "DatasetEvent" if "dataset" in event else "JobEvent" if "job" in event else "unknown event"
        raise validation(f"Only OpenLineage RunEvents are supported; this looks like a {kind}")
    problems: list[str] = []
    for name in ("eventType", "eventTime", "producer", "schemaURL"):
        if not isinstance(event.get(name), str) or not event[name]:
            problems.append(f"{name} is missing or not a string")
    if isinstance(event.get("eventType"), str) and event["eventType"] not in RUN_EVENT_TYPES:
        problems.append(f"eventType must be one of {', '.join(RUN_EVENT_TYPES)}")
    if isinstance(event.get("eventTime"), str) and parse_event_time(event["eventTime"]) is None:
        problems.append("eventTime is not an ISO-8601 date-time with a time zone")
    for name in ("producer", "schemaURL"):
        if isinstance(event.get(name), str) and not urlparse(event[name]).scheme:
            problems.append(f"{name} is not a URI")
    run = event.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("runId"), str) or not UUID.fullmatch(run["runId"]):
        problems.append("run.runId must be a UUID")
    job = event.get("job")
    if not isinstance(job, dict) or not all(
        isinstance(job.get(k), str) and job[k] for k in ("namespace", "name")
    ):
        problems.append("job.namespace and job.name are required strings")
    for side in ("inputs", "outputs"):
        datasets = event.get(side, [])
        if not isinstance(datasets, list) or not all(
            isinstance(d, dict) and all(isinstance(d.get(k), str) and d[k] for k in ("namespace", "name"))
            for d in datasets
        ):
            problems.append(f"{side} must be a list of datasets with namespace and name")
    if problems:
        raise validation("Invalid OpenLineage RunEvent: " + "; ".join(problems))
    return event


def parse_event_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def dataset_ids(event: dict[str, Any], side: str) -> list[str]:
    return [f"{d['namespace']}/{d['name']}" for d in event.get(side, [])]


def job_of(event: dict[str, Any]) -> tuple[str, str]:
    return event["job"]["namespace"], event["job"]["name"]


def column_pairs(event: dict[str, Any], upstream: str, output: dict[str, Any]) -> set[tuple[str, str]]:
    """(input field, output field) pairs of the output's columnLineage facet that come from `upstream`."""
    facet = (output.get("facets") or {}).get("columnLineage") or {}
    pairs: set[tuple[str, str]] = set()
    for out_field, spec in (facet.get("fields") or {}).items():
        for source in (spec or {}).get("inputFields") or []:
            if f"{source.get('namespace')}/{source.get('name')}" == upstream and "field" in source:
                pairs.add((str(source["field"]), str(out_field)))
    return pairs
