"""Lineage: PostLineageEvent, ListLineageEvents, GetLineageEvent, DeleteLineageEvent, GetLineageNode and
ListLineageNodeHistory over the graph (graph.py) that processed events and native lineage draw.

Processing and deletion are asynchronous (readings `lineage_processing_lag_calls`,
`lineage_delete_lag_calls`), counted in lineage reads. `DatasetEdge` and `lineage_edges` are the
Python-side view tests and the demo read.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from local.standins.datazone.assets import linked
from local.standins.datazone.events import (
    LineageEvent,
    column_pairs,
    dataset_ids,
    job_of,
    parse_event_time,
    parse_run_event,
)
from local.standins.datazone.graph import (
    DATASET_NODE,
    LineageGraph,
    Node,
    find_node,
    node_id,
    node_neighbours,
)
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, as_datetime, compact
from local.standins.errors import not_found, validation

MAX_LINEAGE_EVENT = 300_000  # bytes
MAX_NODE_REFERENCES = 100
# Stand-in convention (not DataZone's): a dataset node lists the assets it joins in this synthetic form.
LINKED_ASSETS_FORM = "StandinLinkedAssetsForm"
LINKED_ASSETS_FORM_TYPE = "StandinLinkedAssetsFormType"


@dataclass(frozen=True)
class DatasetEdge:
    """A dataset-to-dataset lineage edge through one job, with the column pairs (input, output) if known."""

    upstream: str  # sourceIdentifier
    downstream: str
    job_namespace: str
    job_name: str
    columns: frozenset[tuple[str, str]] = frozenset()


def _lineage_read(store: Store, domain: Domain) -> None:
    """Processing is asynchronous in DataZone: here an event turns SUCCESS at the first lineage read
    (ListLineageEvents, GetLineageEvent, GetLineageNode, ListLineageNodeHistory) once
    `lineage_processing_lag_calls` reads have passed since it was posted; a requested deletion likewise
    takes effect `lineage_delete_lag_calls` reads after DeleteLineageEvent. Not moto's state manager
    (lifecycle.py): the lags run on the domain's lineage reads, whichever event or node they read, an event
    has two of them (processing, deletion) where a ManagedState has one transition, and each step moves the
    graph's version."""
    for event in domain.events.values():
        if event.status == "REQUESTED" and event.due <= domain.lineage_reads:
            event.status = "SUCCESS"
            domain.lineage_version += 1
        due = event.delete_due
        if not event.deleted and due is not None and due <= domain.lineage_reads:
            _finish_delete(store, domain, event)
    domain.lineage_reads += 1


def _finish_delete(store: Store, domain: Domain, event: LineageEvent) -> None:
    event.deleted = True
    event.retained = not store.reading("lineage_delete_removes_edges")
    domain.lineage_version += 1


def post_lineage_event(store: Store, domain: Domain, params: Params) -> Response:
    raw = params["event"]
    body = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if len(body) > MAX_LINEAGE_EVENT:
        raise validation(f"The lineage event is {len(body)} bytes; the maximum is {MAX_LINEAGE_EVENT}")

    def produce() -> Response:
        event = parse_run_event(body)
        moment = parse_event_time(event["eventTime"])
        assert moment is not None  # parse_run_event checked it
        record = LineageEvent(
            id=store.new_id(),
            body=body,
            event=event,
            event_time=moment,
            created_at=store.now(),
            due=domain.lineage_reads + int(store.reading("lineage_processing_lag_calls")),
        )
        domain.events[record.id] = record
        return {"id": record.id, "domainId": domain.id}

    return store.idempotent(domain, "PostLineageEvent", {**params, "event": body}, produce)


def _live_event(domain: Domain, event_id: str) -> LineageEvent:
    event = domain.events.get(event_id)
    if event is None or event.deleted:
        raise not_found(f"Lineage event {event_id} not found")
    return event


def list_lineage_events(store: Store, domain: Domain, params: Params) -> Response:
    _lineage_read(store, domain)
    events = domain.live_events()
    if params.get("processingStatus"):
        events = [e for e in events if e.status == params["processingStatus"]]
    # Both bounds are exclusive; the reference does not say which time they filter on (a reading).
    on_created = store.reading("lineage_time_filter") == "createdAt"

    def moment(event: LineageEvent) -> datetime:
        return event.created_at if on_created else event.event_time

    if params.get("timestampAfter") is not None:
        after = as_datetime(params["timestampAfter"], "timestampAfter")
        events = [e for e in events if moment(e) > after]
    if params.get("timestampBefore") is not None:
        before = as_datetime(params["timestampBefore"], "timestampBefore")
        events = [e for e in events if moment(e) < before]
    descending = (params.get("sortOrder") or "DESCENDING") == "DESCENDING"
    events.sort(key=lambda e: (e.event_time, e.created_at, e.id), reverse=descending)
    page, token = paginate(events, params)
    return compact({"items": [_event_summary(store, domain, e) for e in page], "nextToken": token})


def _event_summary(store: Store, domain: Domain, record: LineageEvent) -> dict[str, Any]:
    event = record.event
    names = [{"namespace": d["namespace"], "name": d["name"]} for d in event.get("inputs", [])]
    outs = [{"namespace": d["namespace"], "name": d["name"]} for d in event.get("outputs", [])]
    return {
        "id": record.id,
        "domainId": domain.id,
        "processingStatus": record.status,
        "eventTime": record.event_time,
        "eventSummary": {
            "openLineageRunEventSummary": {
                "eventType": event["eventType"],
                "runId": event["run"]["runId"],
                "job": {"namespace": event["job"]["namespace"], "name": event["job"]["name"]},
                "inputs": names,
                "outputs": outs,
            }
        },
        "createdBy": store.principal,
        "createdAt": record.created_at,
    }


def get_lineage_event(store: Store, domain: Domain, params: Params) -> Response:
    _lineage_read(store, domain)
    record = _live_event(domain, params["identifier"])
    return {
        "domainId": domain.id,
        "id": record.id,
        "event": record.body,
        "createdBy": store.principal,
        "processingStatus": record.status,
        "eventTime": record.event_time,
        "createdAt": record.created_at,
    }


def delete_lineage_event(store: Store, domain: Domain, params: Params) -> Response:
    """Deletion is asynchronous: the event stays readable (and drawn) until `lineage_delete_lag_calls`
    lineage reads have passed; the answer's processingStatus is the deletion's."""
    record = _live_event(domain, params["identifier"])
    lag = int(store.reading("lineage_delete_lag_calls"))
    if record.delete_due is None:
        record.delete_due = domain.lineage_reads + lag
    if lag <= 0:
        _finish_delete(store, domain, record)
    # The answer never says the deletion is done: a caller must look again later.
    return {"id": record.id, "domainId": domain.id, "processingStatus": "REQUESTED"}


def _graph(store: Store, domain: Domain, as_of: datetime | None = None) -> LineageGraph:
    """The graph of processed events it draws; the present one is cached until those events change."""
    version = (domain.lineage_version, domain.native.version)
    if as_of is None and domain.graph_cache and domain.graph_cache[0] == version:
        return domain.graph_cache[1]
    drawn = domain.drawn_events(store.readings)
    graph = LineageGraph((e for e in drawn if e.status == "SUCCESS"), as_of)
    domain.native.draw(graph, as_of)
    if as_of is None:
        domain.graph_cache = (version, graph)
    return graph


def get_lineage_node(store: Store, domain: Domain, params: Params) -> Response:
    _lineage_read(store, domain)
    as_of = params.get("eventTimestamp")
    graph = _graph(store, domain, as_datetime(as_of, "eventTimestamp") if as_of is not None else None)
    lookup_posted = bool(store.reading("lineage_node_lookup_posted"))
    node = find_node(graph, domain.native, params["identifier"], lookup_posted)
    if node is None:
        raise not_found(f"Lineage node {params['identifier']} not found")
    scope = str(store.reading("lineage_node_neighbours"))
    latest = max(node.versions, key=lambda v: (v.event_time, v.created_at))
    return compact(
        {
            "domainId": domain.id,
            "name": node.name,
            "createdAt": min(v.created_at for v in node.versions),
            "createdBy": store.principal,
            "updatedAt": max(v.created_at for v in node.versions),
            "updatedBy": store.principal,
            "id": node.id,
            "typeName": node.type_name,
            "typeRevision": "1",
            "sourceIdentifier": node.source_identifier,
            "eventTimestamp": latest.event_time,
            "formsOutput": _node_forms(domain, node),
            "upstreamNodes": _references(node_neighbours(node, "upstream", scope)),
            "downstreamNodes": _references(node_neighbours(node, "downstream", scope)),
        }
    )


def _references(neighbours: dict[str, datetime]) -> list[dict[str, Any]]:
    ordered = sorted(neighbours.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return [{"id": node_id(sid), "eventTimestamp": at} for sid, at in ordered[:MAX_NODE_REFERENCES]]


def _node_forms(domain: Domain, node: Node) -> list[dict[str, Any]] | None:
    """Stand-in convention: a dataset node that assets join lists them in one synthetic form."""
    if node.type_name != DATASET_NODE:
        return None
    assets = linked(domain, node.source_identifier)
    if not assets:
        return None
    content = {
        "assets": [
            {
                "assetId": a.id,
                "name": a.latest.name,
                "typeIdentifier": a.type_name,
                "revision": a.latest.revision,
            }
            for a in assets
        ]
    }
    return [
        {
            "formName": LINKED_ASSETS_FORM,
            "typeName": LINKED_ASSETS_FORM_TYPE,
            "typeRevision": "1",
            "content": json.dumps(content, separators=(",", ":")),
        }
    ]


def list_lineage_node_history(store: Store, domain: Domain, params: Params) -> Response:
    _lineage_read(store, domain)
    node = _graph(store, domain).find(params["identifier"])
    if node is None:
        raise not_found(f"Lineage node {params['identifier']} not found")
    versions = node.versions
    direction = params.get("direction")
    if direction == "UPSTREAM":
        versions = [v for v in versions if v.upstream]
    elif direction == "DOWNSTREAM":
        versions = [v for v in versions if v.downstream]
    if params.get("eventTimestampGTE") is not None:
        low = as_datetime(params["eventTimestampGTE"], "eventTimestampGTE")
        versions = [v for v in versions if v.event_time >= low]
    if params.get("eventTimestampLTE") is not None:
        high = as_datetime(params["eventTimestampLTE"], "eventTimestampLTE")
        versions = [v for v in versions if v.event_time <= high]
    descending = (params.get("sortOrder") or "DESCENDING") == "DESCENDING"
    versions = sorted(versions, key=lambda v: (v.event_time, v.created_at, v.event_id), reverse=descending)
    page, token = paginate(versions, params)
    nodes = [
        {
            "domainId": domain.id,
            "name": node.name,
            "createdAt": version.created_at,
            "createdBy": store.principal,
            "updatedAt": version.created_at,
            "updatedBy": store.principal,
            "id": node.id,
            "typeName": node.type_name,
            "typeRevision": "1",
            "sourceIdentifier": node.source_identifier,
            "eventTimestamp": version.event_time,
        }
        for version in page
    ]
    return compact({"nodes": nodes, "nextToken": token})


# ------------------------------------------------------------------------------ inspection (Python side)


def lineage_events(domain: Domain) -> list[dict[str, Any]]:
    """Live (not deleted) lineage events, parsed, in the order they were posted (processed or not)."""
    return [copy.deepcopy(event.event) for event in domain.live_events()]


def lineage_edges(domain: Domain, readings: object) -> set[DatasetEdge]:
    """Dataset-to-dataset edges the graph shows (processed or not), one per (upstream, downstream, job),
    columns merged: those of live events, and under the readings of `Domain.drawn_events` those a
    deletion left."""
    merged: dict[tuple[str, str, str, str], set[tuple[str, str]]] = {}
    for record in domain.drawn_events(readings):
        event = record.event
        namespace, name = job_of(event)
        for upstream in dataset_ids(event, "inputs"):
            for output in event.get("outputs", []):
                downstream = f"{output['namespace']}/{output['name']}"
                key = (upstream, downstream, namespace, name)
                merged.setdefault(key, set()).update(column_pairs(event, upstream, output))
    return {DatasetEdge(*key, columns=frozenset(cols)) for key, cols in merged.items()}
