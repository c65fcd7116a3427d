"""A strict, stateful, in-memory stand-in for the Amazon DataZone API (moto has no DataZone).

The HTTP front door (local/standins/server.py) parses each request into the botocore input-shape dict and
calls `DataZoneBackend.handle(operation_name, params)`; the returned dict is serialized per the operation's
output shape (timestamps are datetime objects, blob payloads bytes). Errors are ServiceError.

Behaviour follows the API reference and AWS's user guides; where they are silent, the stand-in takes the
reading that is hardest on a caller, and each such reading is a switch on `readings` (see READING_DEFAULTS).

Python-side helpers for tests and the demo (not API): add_domain, add_project, inject_fault, assets,
listings, settle_listings, lineage_events, lineage_edges, linked_assets.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import json
import random
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from local.standins import datazone_graph
from local.standins.errors import ServiceError, conflict, not_found, validation
from local.standins.smithy.model import SmithyError, SmithyModel
from local.standins.smithy.parser import parse
from local.standins.smithy.validator import FormValidator

Params = dict[str, Any]
Response = dict[str, Any]

# Undocumented behaviours, each read with getattr(readings, name, default) on every call.
READING_DEFAULTS: dict[str, Any] = {
    # Whether form content members the form type's model does not declare are rejected.
    "reject_unknown_form_members": True,
    # Whether DeleteAsset refuses an asset whose listing is ACTIVE (ConflictException) until unpublished.
    "delete_requires_unpublish": True,
    # Search sees a write (create, revision, delete) only after this many further Search calls.
    "search_lag_calls": 0,
    # A posted lineage event turns SUCCESS (and feeds lineage nodes) only after this many lineage reads.
    "lineage_processing_lag_calls": 0,
    # Whether form content comes back re-serialized (compact, keys sorted) rather than byte-for-byte.
    "normalize_form_content": True,
    # How long a clientToken is remembered (the window is undocumented for DataZone).
    "client_token_ttl_seconds": 86_400,
    # Whether a clientToken reused with a different request replays the first answer (else: Conflict).
    "client_token_replays_changed_request": False,
    # Whether free-text Search matches externalIdentifier (not documented as indexed).
    "search_text_matches_external_identifier": False,
    # Whether CreateAssetRevision without typeRevision keeps the asset's type revision (else: the latest).
    "revision_keeps_type_revision": True,
    # Whether CreateAssetRevision may move an asset to another type revision (else: ValidationException).
    "revision_changes_type_revision": True,
    # Whether CreateAsset's conflict on a duplicate externalIdentifier says "Conflict with asset <id>".
    "conflict_message_names_asset": True,
    # What Search does with a filter on typeName: "honoured", "unindexed" (matches nothing) or "rejected".
    "search_type_filter": "honoured",
    # For how many further calls in the domain a listing change stays in progress (0: applied at once).
    "listing_change_calls": 0,
    # CreateAssetType on an existing name: "revision" (a new revision) or "conflict" (ConflictException).
    "asset_type_create_existing": "revision",
    # Managed form type members left out of the models served (comma-separated "FormType.path").
    "managed_form_members_undeclared": "",
}
SEARCH_TYPE_FILTER_READINGS = ("honoured", "unindexed", "rejected")

MAX_FORMS = 10
MAX_FORM_CONTENT = 300_000  # characters
MAX_LINEAGE_EVENT = 300_000  # bytes
MAX_PAGE = 50
MAX_SEARCH_TEXT = 512  # SearchText's documented maximum
MAX_NODE_REFERENCES = 100
MAX_SOURCE_IDENTIFIER_LOOKUP = 1800  # GetLineageNode: longer sourceIdentifiers need the node id
LISTING_NAME_MAX = 64  # GetListing's ListingName is at most 64 characters

DOMAIN_ID = re.compile(r"dzd[-_][a-zA-Z0-9_-]{1,36}")
PROJECT_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")
FORM_NAME = re.compile(r"(?![0-9_])\w+$|^_\w*[a-zA-Z0-9]\w*")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
MANAGED_PREFIX = "amazon.datazone."
COMMON_DETAILS_TYPE = "amazon.datazone.AssetCommonDetailsFormType"
RUN_EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")

DATASET_NODE = "amazon.datazone.DatasetLineageNodeType"
JOB_NODE = "amazon.datazone.JobLineageNodeType"
JOB_RUN_NODE = "amazon.datazone.JobRunLineageNodeType"
# Stand-in convention (not DataZone's): a dataset node lists the assets it joins in this synthetic form.
LINKED_ASSETS_FORM = "StandinLinkedAssetsForm"
LINKED_ASSETS_FORM_TYPE = "StandinLinkedAssetsFormType"

_MANAGED_DIR = Path(__file__).with_name("managed_forms")
# Managed form type -> (model file, revision). Revisions as AWS documentation shows them in use:
# AssetCommonDetailsFormType "6" (SageMaker Unified Studio lineage troubleshooting guide, GetAsset output);
# RelationalTableFormType "1" (aws-samples DataZone lineage sample pins it).
MANAGED_FORM_TYPES: dict[str, tuple[str, str]] = {
    COMMON_DETAILS_TYPE: ("AssetCommonDetailsFormType.smithy", "6"),
    "amazon.datazone.RelationalTableFormType": ("RelationalTableFormType.smithy", "1"),
}


# Lineage readings (documented in local/standins/readings.py), read by the lineage code below.
READING_DEFAULTS.update(
    {
        # A requested DeleteLineageEvent takes effect only after this many further lineage reads.
        "lineage_delete_lag_calls": 0,
        # Whether a deleted event's edges leave the graph (else they stay until a later run supersedes them).
        "lineage_delete_removes_edges": True,
        # Which time ListLineageEvents' timestampAfter/timestampBefore filter on: "eventTime" or "createdAt".
        "lineage_time_filter": "eventTime",
        # Whether START events draw edges (else only the run's other events do).
        "lineage_start_builds_edges": True,
        # Whether GetLineageNode resolves the sourceIdentifier of a node only posted events drew.
        "lineage_node_lookup_posted": True,
        # Which neighbours GetLineageNode lists: "all" (every version's) or "latest_version".
        "lineage_node_neighbours": "all",
    }
)


def _reading(readings: object, name: str) -> Any:
    return getattr(readings, name, READING_DEFAULTS[name])


def _canonical(value: Any) -> str:
    """A stable text of a request, for clientToken comparison and page-token binding."""

    def default(item: Any) -> Any:
        if isinstance(item, bytes | bytearray):
            return hashlib.sha256(bytes(item)).hexdigest()
        if isinstance(item, datetime):
            return item.isoformat()
        raise TypeError(type(item).__name__)

    return json.dumps(value, sort_keys=True, default=default, ensure_ascii=False)


def _epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _as_datetime(value: Any, member: str) -> datetime:
    """A timestamp member: the server hands datetimes; tests may pass ISO text or epoch seconds."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise validation(f"{member}: {value!r} is not a timestamp") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise validation(f"{member}: {value!r} is not a timestamp")


@functools.lru_cache(maxsize=65_536)
def _node_id(source_identifier: str) -> str:
    """Stable lineage node ids, derived from the sourceIdentifier (14 characters, like DataZone's)."""
    return hashlib.sha256(source_identifier.encode("utf-8")).hexdigest()[:14]


def _compact(value: dict[str, Any]) -> dict[str, Any]:
    """Drop absent optional members so the serializer leaves them out."""
    return {key: item for key, item in value.items() if item is not None}


# ----------------------------------------------------------------------------------------- the state


def _without_members(form_type: _FormType, undeclared: str) -> _FormType:
    """A managed form type as served under the reading `managed_form_members_undeclared`."""
    prefix = form_type.name.removeprefix(MANAGED_PREFIX) + "."
    paths = tuple(
        sorted(p.strip()[len(prefix) :] for p in undeclared.split(",") if p.strip().startswith(prefix))
    )
    return _pruned(form_type, paths) if paths else form_type


_PRUNED: dict[tuple[str, str, tuple[str, ...]], _FormType] = {}


def _pruned(form_type: _FormType, paths: tuple[str, ...]) -> _FormType:
    key = (form_type.name, form_type.revision, paths)
    if key not in _PRUNED:
        _PRUNED[key] = _prune(form_type, paths)
    return _PRUNED[key]


def _prune(form_type: _FormType, paths: tuple[str, ...]) -> _FormType:
    text = form_type.smithy_text
    model = form_type.model
    for path in paths:
        *parents, member = path.split(".")
        shape = model.local(form_type.structure)
        for step in parents:  # through structure members and list elements to the structure holding it
            if shape is None or step not in shape.members:
                raise ValueError(f"{form_type.name} has no member path {path}")
            shape = model.shape(shape.members[step].target)
            if shape.type in ("list", "set"):
                shape = model.shape(shape.members["member"].target)
        if shape is None or member not in shape.members:
            raise ValueError(f"{form_type.name} has no member path {path}")
        text = _drop_member(text, shape.name, member)
        model = parse(text)
    return replace(form_type, smithy_text=text, model=model)


def _drop_member(text: str, structure: str, member: str) -> str:
    """The model text without one member (and the trait lines above it) of one structure."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.match(rf"\s*structure\s+{structure}\b", line))
    at = next(i for i in range(start, len(lines)) if re.match(rf"\s*{member}\s*:", lines[i]))
    first = at
    while first > start + 1 and lines[first - 1].strip().startswith("@"):
        first -= 1
    return "".join(lines[:first] + lines[at + 1 :])


@dataclass
class _FormType:
    name: str
    revision: str
    smithy_text: str
    model: SmithyModel
    structure: str  # the model's structure this type validates against
    namespace_label: str  # for messages such as "expected form ns#Type@2"
    owning_project_id: str | None
    description: str | None
    status: str
    created_at: datetime
    managed: bool = False


@dataclass(frozen=True)
class _FormEntry:
    type_name: str
    type_revision: str
    required: bool


@dataclass
class _AssetType:
    name: str
    revision: str
    description: str | None
    forms: dict[str, _FormEntry]
    owning_project_id: str
    created_at: datetime


@dataclass(frozen=True)
class _Form:
    form_name: str
    type_name: str
    type_revision: str
    content: str  # as returned in formsOutput
    parsed: Any


@dataclass
class _AssetRevision:
    revision: str
    name: str
    description: str | None
    type_revision: str
    forms: list[_Form]
    glossary_terms: list[str] | None
    prediction: dict[str, Any] | None
    created_at: datetime


@dataclass
class _Asset:
    id: str
    external_identifier: str | None
    type_name: str
    owning_project_id: str
    revisions: list[_AssetRevision]
    listing_id: str | None = None
    deleted: bool = False

    @property
    def latest(self) -> _AssetRevision:
        return self.revisions[-1]

    def revision(self, number: str) -> _AssetRevision | None:
        return next((r for r in self.revisions if r.revision == number), None)


@dataclass(frozen=True)
class _ListingRevision:
    listing_revision: str
    asset_revision: str
    status: str  # ACTIVE | INACTIVE, once the change has taken effect
    at: datetime
    due: int = 0  # the change takes effect once the domain's call count reaches this
    pending_status: str = ""  # what the listing shows until then: CREATING, or ACTIVE while unpublishing


@dataclass
class _Listing:
    id: str
    asset_id: str
    revisions: list[_ListingRevision]

    @property
    def latest(self) -> _ListingRevision:
        return self.revisions[-1]

    def in_progress(self, calls: int) -> bool:
        return calls < self.latest.due

    def status(self, calls: int) -> str:
        """What the listing shows now: its latest change's pending status until that change takes effect."""
        return self.latest.pending_status if self.in_progress(calls) else self.latest.status

    def applied(self, calls: int) -> _ListingRevision | None:
        """The latest revision whose change has taken effect."""
        return next((r for r in reversed(self.revisions) if r.due <= calls), None)


@dataclass
class _LineageEvent:
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
        return _datasets(self.event, "inputs")


@dataclass(frozen=True)
class _TokenRecord:
    fingerprint: str
    response: Response
    at: datetime


@dataclass(frozen=True)
class _Doc:
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
    forms: tuple[_Form, ...]
    attributes: dict[str, tuple[Any, ...]]  # filterable attribute -> values
    text: dict[str, tuple[str, ...]]  # free-text attribute -> values


@dataclass
class _SearchIndex:
    """Search's view of the inventory; writes reach it `search_lag_calls` Search calls late."""

    visible: dict[str, _Doc] = field(default_factory=dict)
    pending: list[tuple[int, str, _Doc | None]] = field(default_factory=list)
    calls: int = 0

    def write(self, asset_id: str, doc: _Doc | None, lag: int) -> None:
        self.pending.append((self.calls + lag, asset_id, doc))

    def begin_search(self) -> list[_Doc]:
        ready = [entry for entry in self.pending if entry[0] <= self.calls]
        self.pending = [entry for entry in self.pending if entry[0] > self.calls]
        for _, asset_id, doc in ready:
            if doc is None:
                self.visible.pop(asset_id, None)
            else:
                self.visible[asset_id] = doc
        self.calls += 1
        return list(self.visible.values())


@dataclass
class _Domain:
    id: str
    projects: set[str]
    form_types: dict[str, list[_FormType]] = field(default_factory=dict)
    asset_types: dict[str, list[_AssetType]] = field(default_factory=dict)
    assets: dict[str, _Asset] = field(default_factory=dict)
    by_external_id: dict[str, str] = field(default_factory=dict)  # live assets only
    listings: dict[str, _Listing] = field(default_factory=dict)
    events: dict[str, _LineageEvent] = field(default_factory=dict)
    tokens: dict[tuple[str, str], _TokenRecord] = field(default_factory=dict)
    search: _SearchIndex = field(default_factory=_SearchIndex)
    lineage_reads: int = 0
    calls: int = 0  # every API call on the domain: the clock of asynchronous listing changes
    lineage_version: int = 0  # moves whenever the processed, live events change
    graph_cache: tuple[tuple[int, int], LineageGraph] | None = None
    native: datazone_graph.NativeLineage = field(default_factory=datazone_graph.NativeLineage)

    def live_assets(self) -> Iterator[_Asset]:
        return (asset for asset in self.assets.values() if not asset.deleted)

    def live_events(self) -> list[_LineageEvent]:
        return [event for event in self.events.values() if not event.deleted]

    def drawn_events(self, readings: object) -> list[_LineageEvent]:
        """The events whose edges the graph shows: live ones, and deleted ones whose edges a deletion left
        (reading `lineage_delete_removes_edges` False) until a later run of the same input supersedes them
        (DataZone versions nodes by event time); START events only if `lineage_start_builds_edges`."""
        starts = bool(_reading(readings, "lineage_start_builds_edges"))
        drawn = [
            e
            for e in self.events.values()
            if (not e.deleted or e.retained) and (starts or e.event.get("eventType") != "START")
        ]
        latest: dict[str, list[tuple[datetime, str]]] = {}
        for event in drawn:
            for upstream in event.inputs():
                latest.setdefault(upstream, []).append((event.event_time, event.run_id))

        def superseded(event: _LineageEvent) -> bool:
            return any(
                moment > event.event_time and run != event.run_id
                for upstream in event.inputs()
                for moment, run in latest.get(upstream, ())
            )

        return [e for e in drawn if not e.retained or not superseded(e)]


# ------------------------------------------------------------------------------ inspection (Python side)


@dataclass(frozen=True)
class AssetView:
    id: str
    name: str
    description: str | None
    external_identifier: str | None
    type_name: str
    type_revision: str
    revision: str
    owning_project_id: str
    forms: dict[str, Any]  # form name -> parsed content
    form_types: dict[str, tuple[str, str]]  # form name -> (type name, type revision)
    listing_id: str | None
    listing_status: str | None
    listed_revision: str | None  # the asset revision the listing shows


@dataclass(frozen=True)
class ListingView:
    id: str
    asset_id: str
    asset_revision: str
    listing_revision: str
    status: str


@dataclass(frozen=True)
class DatasetEdge:
    """A dataset-to-dataset lineage edge through one job, with the column pairs (input, output) if known."""

    upstream: str  # sourceIdentifier
    downstream: str
    job_namespace: str
    job_name: str
    columns: frozenset[tuple[str, str]] = frozenset()


# ----------------------------------------------------------------------------------- OpenLineage events


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
    if isinstance(event.get("eventTime"), str) and _event_time(event["eventTime"]) is None:
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


def _event_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _datasets(event: dict[str, Any], side: str) -> list[str]:
    return [f"{d['namespace']}/{d['name']}" for d in event.get(side, [])]


def _job(event: dict[str, Any]) -> tuple[str, str]:
    return event["job"]["namespace"], event["job"]["name"]


def _column_pairs(event: dict[str, Any], upstream: str, output: dict[str, Any]) -> set[tuple[str, str]]:
    """(input field, output field) pairs of the output's columnLineage facet that come from `upstream`."""
    facet = (output.get("facets") or {}).get("columnLineage") or {}
    pairs: set[tuple[str, str]] = set()
    for out_field, spec in (facet.get("fields") or {}).items():
        for source in (spec or {}).get("inputFields") or []:
            if f"{source.get('namespace')}/{source.get('name')}" == upstream and "field" in source:
                pairs.add((str(source["field"]), str(out_field)))
    return pairs


# -------------------------------------------------------------------------------------- lineage graph


@dataclass
class _NodeVersion:
    event_id: str
    event_time: datetime
    created_at: datetime
    upstream: set[str] = field(default_factory=set)  # sourceIdentifiers
    downstream: set[str] = field(default_factory=set)


@dataclass
class _Node:
    source_identifier: str
    type_name: str
    name: str
    versions: list[_NodeVersion] = field(default_factory=list)

    @property
    def id(self) -> str:
        return _node_id(self.source_identifier)

    def neighbours(self, side: str) -> dict[str, datetime]:
        """Neighbour sourceIdentifier -> the latest event time that linked it."""
        found: dict[str, datetime] = {}
        for version in self.versions:
            for other in getattr(version, side):
                found[other] = max(found.get(other, version.event_time), version.event_time)
        return found


class LineageGraph:
    """Lineage nodes derived from processed, live events: inputs -> job run -> outputs.

    Dataset nodes: `<namespace>/<name>`; job nodes: `<namespace>.<name>`; job-run nodes:
    `<namespace>.<name>/<runId>` (AWS's documented sourceIdentifier rules). A deleted event contributes
    nothing, so no edge outlives the events that drew it.
    """

    def __init__(self, events: Iterable[_LineageEvent], as_of: datetime | None = None) -> None:
        self.nodes: dict[str, _Node] = {}
        ordered = sorted(events, key=lambda e: (e.event_time, e.created_at, e.id))
        for event in ordered:
            if as_of is None or event.event_time <= as_of:
                self._add(event)
        self.by_id = {node.id: node for node in self.nodes.values()}

    def _node(self, source_identifier: str, type_name: str, name: str) -> _Node:
        return self.nodes.setdefault(source_identifier, _Node(source_identifier, type_name, name))

    def _version(self, node: _Node, event: _LineageEvent) -> _NodeVersion:
        version = _NodeVersion(event.id, event.event_time, event.created_at)
        node.versions.append(version)
        return version

    def _add(self, event: _LineageEvent) -> None:
        namespace, name = _job(event.event)
        job_sid = f"{namespace}.{name}"
        run_sid = f"{job_sid}/{event.event['run']['runId']}"
        self._version(self._node(job_sid, JOB_NODE, name), event)
        run_version = self._version(self._node(run_sid, JOB_RUN_NODE, event.event["run"]["runId"]), event)
        for side, link in (("inputs", "downstream"), ("outputs", "upstream")):
            for dataset in event.event.get(side, []):
                sid = f"{dataset['namespace']}/{dataset['name']}"
                version = self._version(self._node(sid, DATASET_NODE, dataset["name"]), event)
                getattr(version, link).add(run_sid)
                getattr(run_version, "upstream" if side == "inputs" else "downstream").add(sid)

    def find(self, identifier: str) -> _Node | None:
        """By node id or by sourceIdentifier; AWS resolves a sourceIdentifier only up to 1800 characters."""
        if identifier in self.by_id:
            return self.by_id[identifier]
        if len(identifier) > MAX_SOURCE_IDENTIFIER_LOOKUP:
            raise validation(
                f"A sourceIdentifier over {MAX_SOURCE_IDENTIFIER_LOOKUP} characters cannot identify a lineage"
                " node; use the node id"
            )
        return self.nodes.get(identifier)


# --------------------------------------------------------------------------------------------- search

_SORT_KEYS: dict[str, Callable[[_Doc], Any]] = {
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


def _build_doc(asset: _Asset, revision: _AssetRevision, form_types: Callable[[_Form], _FormType]) -> _Doc:
    attributes: dict[str, tuple[Any, ...]] = {
        "typeName": (asset.type_name,),
        "typeIdentifier": (asset.type_name,),
        "owningProjectId": (asset.owning_project_id,),
        "name": (revision.name,),
        "creationTime": (_epoch_ms(asset.revisions[0].created_at),),
        "lastUpdatedTime": (_epoch_ms(revision.created_at),),
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
    return _Doc(
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
                return float(_epoch_ms(_as_datetime(value, "value")))
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


def _check_clause(clause: dict[str, Any]) -> None:
    """A FilterClause is a union (exactly one of filter, and, or); a filter needs a value or an intValue."""
    keys = [key for key in ("filter", "and", "or") if clause.get(key) is not None]
    if len(keys) != 1:
        raise validation("A filter clause must set exactly one of filter, and, or")
    if keys[0] == "filter":
        _filter_target(clause["filter"])
    else:
        for item in clause[keys[0]]:
            _check_clause(item)


def _filter_attributes(clause: dict[str, Any]) -> set[str]:
    """Every attribute a checked FilterClause filters on."""
    if clause.get("filter") is not None:
        return {clause["filter"]["attribute"]}
    return set().union(*(_filter_attributes(item) for item in clause.get("and") or clause.get("or") or []))


def _matches(clause: dict[str, Any], doc: _Doc, unindexed: frozenset[str] = frozenset()) -> bool:
    """Evaluate a checked FilterClause. An attribute DataZone does not index matches nothing."""
    if clause.get("and") is not None:
        return all(_matches(item, doc, unindexed) for item in clause["and"])
    if clause.get("or") is not None:
        return any(_matches(item, doc, unindexed) for item in clause["or"])
    spec = clause["filter"]
    if spec["attribute"] in unindexed:
        return False
    target = _filter_target(spec)
    operator = spec.get("operator") or "EQ"
    return any(
        _compare(candidate, operator, target) for candidate in doc.attributes.get(spec["attribute"], ())
    )


def _text_matches(doc: _Doc, text: str, fields: list[str] | None, with_external_id: bool) -> bool:
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


# -------------------------------------------------------------------------------------------- backend


@dataclass
class _Fault:
    operation: str
    error: ServiceError
    remaining: int
    match: Callable[[Params], bool] | None


class DataZoneBackend:
    """The DataZone stand-in. `handle(operation_name, params)` is the whole API surface.

    `readings`: the server's Readings (undocumented behaviours, see READING_DEFAULTS); `seed` makes ids
    reproducible; `clock` supplies "now" (timezone-aware); `principal` is what createdBy reports.
    """

    def __init__(
        self,
        readings: object = None,
        *,
        seed: int | None = None,
        clock: Callable[[], datetime] | None = None,
        principal: str = "standin-user",
    ) -> None:
        self.readings = readings
        self.principal = principal
        self._rng = random.Random(seed)
        self._clock = clock or (lambda: datetime.now(UTC))
        self._lock = threading.RLock()
        self._domains: dict[str, _Domain] = {}
        self._faults: list[_Fault] = []
        self._handlers: dict[str, Callable[[_Domain, Params], Response]] = {
            "CreateFormType": self._create_form_type,
            "GetFormType": self._get_form_type,
            "CreateAssetType": self._create_asset_type,
            "GetAssetType": self._get_asset_type,
            "DeleteAssetType": self._delete_asset_type,
            "CreateAsset": self._create_asset,
            "GetAsset": self._get_asset,
            "CreateAssetRevision": self._create_asset_revision,
            "DeleteAsset": self._delete_asset,
            "CreateListingChangeSet": self._create_listing_change_set,
            "GetListing": self._get_listing,
            "Search": self._search,
            "SearchListings": self._search_listings,
            "PostLineageEvent": self._post_lineage_event,
            "ListLineageEvents": self._list_lineage_events,
            "GetLineageEvent": self._get_lineage_event,
            "DeleteLineageEvent": self._delete_lineage_event,
            "GetLineageNode": self._get_lineage_node,
            "ListLineageNodeHistory": self._list_lineage_node_history,
        }

    @property
    def operations(self) -> frozenset[str]:
        return frozenset(self._handlers)

    # ---------------------------------------------------------------------------------- entry point

    def handle(self, operation_name: str, params: Params) -> Response:
        with self._lock:
            self._raise_injected_fault(operation_name, params)
            handler = self._handlers.get(operation_name)
            if handler is None:
                raise ServiceError(
                    "UnknownOperationException", f"The DataZone stand-in does not implement {operation_name}"
                )
            domain = self._domain(params["domainIdentifier"])
            domain.calls += 1
            return handler(domain, params)

    # ------------------------------------------------------------------------------- Python helpers

    def add_domain(self, domain_id: str, project_ids: Iterable[str] = ()) -> None:
        """Create a domain (with DataZone's managed form types) and its projects."""
        if not DOMAIN_ID.fullmatch(domain_id):
            raise ValueError(f"{domain_id!r} does not match DataZone's domain id pattern")
        with self._lock:
            if domain_id in self._domains:
                raise ValueError(f"domain {domain_id} already exists")
            domain = _Domain(domain_id, set())
            for name, (file_name, revision) in MANAGED_FORM_TYPES.items():
                text = (_MANAGED_DIR / file_name).read_text(encoding="utf-8")
                model = parse(text)
                managed = _FormType(
                    name=name,
                    revision=revision,
                    smithy_text=text,
                    model=model,
                    structure=name.removeprefix(MANAGED_PREFIX),
                    namespace_label=model.namespace,
                    owning_project_id=None,
                    description=None,
                    status="ENABLED",
                    created_at=self._now(),
                    managed=True,
                )
                domain.form_types[name] = [managed]
            self._domains[domain_id] = domain
            for project_id in project_ids:
                self.add_project(domain_id, project_id)

    def add_project(self, domain_id: str, project_id: str) -> None:
        if not PROJECT_ID.fullmatch(project_id):
            raise ValueError(f"{project_id!r} does not match DataZone's project id pattern")
        with self._lock:
            self._domain(domain_id).projects.add(project_id)

    def inject_fault(
        self,
        operation_name: str,
        error: ServiceError,
        times: int = 1,
        match: Callable[[Params], bool] | None = None,
    ) -> None:
        """Answer the next `times` calls of the operation (whose params `match`, if given) with `error`."""
        with self._lock:
            self._faults.append(_Fault(operation_name, error, times, match))

    def assets(self, domain_id: str) -> list[AssetView]:
        """Live assets, in creation order, at their latest revision, forms parsed."""
        with self._lock:
            domain = self._domain(domain_id)
            return [self._asset_view(domain, asset) for asset in domain.live_assets()]

    def listings(self, domain_id: str) -> list[ListingView]:
        with self._lock:
            domain = self._domain(domain_id)
            return [
                ListingView(
                    lst.id,
                    lst.asset_id,
                    lst.latest.asset_revision,
                    lst.latest.listing_revision,
                    lst.status(domain.calls),
                )
                for lst in domain.listings.values()
            ]

    def settle_listings(self, domain_id: str) -> None:
        """Let every listing change in progress take effect now (as time passing would)."""
        with self._lock:
            domain = self._domain(domain_id)
            for listing in domain.listings.values():
                listing.revisions = [replace(r, due=min(r.due, domain.calls)) for r in listing.revisions]

    def lineage_events(self, domain_id: str) -> list[dict[str, Any]]:
        """Live (not deleted) lineage events, parsed, in the order they were posted (processed or not)."""
        with self._lock:
            return [copy.deepcopy(event.event) for event in self._domain(domain_id).live_events()]

    def lineage_edges(self, domain_id: str) -> set[DatasetEdge]:
        """Dataset-to-dataset edges the graph shows (processed or not), one per (upstream, downstream, job),
        columns merged: those of live events, and under the readings of `_Domain.drawn_events` those a
        deletion left."""
        with self._lock:
            merged: dict[tuple[str, str, str, str], set[tuple[str, str]]] = {}
            for record in self._domain(domain_id).drawn_events(self.readings):
                event = record.event
                namespace, name = _job(event)
                for upstream in _datasets(event, "inputs"):
                    for output in event.get("outputs", []):
                        downstream = f"{output['namespace']}/{output['name']}"
                        key = (upstream, downstream, namespace, name)
                        merged.setdefault(key, set()).update(_column_pairs(event, upstream, output))
            return {DatasetEdge(*key, columns=frozenset(cols)) for key, cols in merged.items()}

    def native_lineage(self, domain_id: str) -> datazone_graph.NativeLineage:
        """The domain's native lineage (Glue, Redshift, EMR capture), for tests and the demo to add to."""
        with self._lock:
            return self._domain(domain_id).native

    def linked_assets(self, domain_id: str, source_identifier: str) -> list[str]:
        """Ids of live assets whose AssetCommonDetailsForm sourceIdentifier is this one."""
        with self._lock:
            return [asset.id for asset in self._linked(self._domain(domain_id), source_identifier)]

    # ------------------------------------------------------------------------------------- plumbing

    def _now(self) -> datetime:
        return self._clock()

    def _new_id(self) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        return "".join(self._rng.choice(alphabet) for _ in range(14))

    def _raise_injected_fault(self, operation_name: str, params: Params) -> None:
        self._faults = [fault for fault in self._faults if fault.remaining > 0]
        for fault in self._faults:
            if fault.operation == operation_name and (fault.match is None or fault.match(params)):
                fault.remaining -= 1
                raise fault.error

    def _domain(self, domain_id: str) -> _Domain:
        domain = self._domains.get(domain_id)
        if domain is None:
            raise not_found(f"Domain {domain_id} not found")
        return domain

    @staticmethod
    def _project(domain: _Domain, project_id: str, missing: Callable[[str], ServiceError]) -> str:
        if project_id not in domain.projects:
            raise missing(f"Project {project_id} not found in domain {domain.id}")
        return project_id

    def _idempotent(
        self, domain: _Domain, operation: str, params: Params, produce: Callable[[], Response]
    ) -> Response:
        """clientToken: the same token with the same request answers the first response again and changes
        nothing; the same token with a different request is a ConflictException (AWS's usual rule), or,
        under the reading `client_token_replays_changed_request`, the first response again too."""
        token = params.get("clientToken")
        if not token:
            return produce()
        fingerprint = _canonical({k: v for k, v in params.items() if k != "clientToken"})
        now = self._now()
        record = domain.tokens.get((operation, token))
        ttl = float(_reading(self.readings, "client_token_ttl_seconds"))
        if record is not None and (now - record.at).total_seconds() <= ttl:
            if record.fingerprint != fingerprint and not _reading(
                self.readings, "client_token_replays_changed_request"
            ):
                raise conflict(f"Client token {token} was already used with a different {operation} request")
            return copy.deepcopy(record.response)
        response = produce()
        domain.tokens[(operation, token)] = _TokenRecord(fingerprint, copy.deepcopy(response), now)
        return response

    @staticmethod
    def _page(items: list[Any], params: Params, query: Params) -> tuple[list[Any], str | None]:
        """Offset pagination; the token is bound to the query it came from."""
        size = int(params.get("maxResults") or MAX_PAGE)
        if not 1 <= size <= MAX_PAGE:
            raise validation(f"maxResults must be between 1 and {MAX_PAGE}")
        binding = hashlib.sha256(_canonical(query).encode()).hexdigest()[:16]
        offset = 0
        if params.get("nextToken"):
            try:
                decoded = json.loads(base64.urlsafe_b64decode(params["nextToken"].encode()))
                offset, bound = int(decoded["o"]), decoded["q"]
            except (ValueError, KeyError, TypeError):
                raise validation("The nextToken is not valid") from None
            if bound != binding or offset < 0:
                raise validation("The nextToken does not belong to this request")
        page = items[offset : offset + size]
        if offset + size >= len(items):
            return page, None
        token = base64.urlsafe_b64encode(json.dumps({"o": offset + size, "q": binding}).encode()).decode()
        return page, token

    @staticmethod
    def _query(params: Params) -> Params:
        return {k: v for k, v in params.items() if k not in ("nextToken", "maxResults")}

    # ----------------------------------------------------------------------------------- form types

    def _form_type(self, domain: _Domain, name: str, revision: str | None = None) -> _FormType | None:
        revisions = domain.form_types.get(name)
        if not revisions:
            return None
        found = (
            revisions[-1]
            if revision is None
            else next((f for f in revisions if f.revision == revision), None)
        )
        if found is not None and found.managed:
            undeclared = str(_reading(self.readings, "managed_form_members_undeclared"))
            return _without_members(found, undeclared)
        return found

    def _create_form_type(self, domain: _Domain, params: Params) -> Response:
        name: str = params["name"]
        project = self._project(domain, params["owningProjectIdentifier"], validation)
        if name.startswith(MANAGED_PREFIX):
            raise validation(f"Form type names starting with {MANAGED_PREFIX} are reserved for DataZone")
        text = (params.get("model") or {}).get("smithy")
        if not text:
            raise validation("model.smithy is required")
        try:
            model = parse(text)
        except SmithyError as error:
            raise validation(f"Invalid Smithy model: {error}") from None
        structure = model.local(name)
        if structure is None or structure.type != "structure":
            raise validation(f"The model must define a structure named {name} (the form type's name)")
        revisions = domain.form_types.setdefault(name, [])
        latest = revisions[-1] if revisions else None
        if latest is not None and latest.owning_project_id != project:
            raise conflict(f"Form type {name} already exists, owned by project {latest.owning_project_id}")
        # Form types are immutable: the same model answers the existing revision, a changed one adds one.
        if latest is None or latest.model != model:
            latest = _FormType(
                name=name,
                revision=str(len(revisions) + 1),
                smithy_text=text,
                model=model,
                structure=name,
                namespace_label=model.namespace or domain.id.replace("-", "_"),
                owning_project_id=project,
                description=params.get("description"),
                status=params.get("status") or "ENABLED",
                created_at=self._now(),
            )
            revisions.append(latest)
        return self._form_type_output(domain, latest, with_model=False)

    def _get_form_type(self, domain: _Domain, params: Params) -> Response:
        identifier = params["formTypeIdentifier"]
        form_type = self._form_type(domain, identifier, params.get("revision"))
        if form_type is None:
            revision = f" revision {params['revision']}" if params.get("revision") else ""
            raise not_found(f"Form type {identifier}{revision} not found")
        return self._form_type_output(domain, form_type, with_model=True)

    def _form_type_output(self, domain: _Domain, form_type: _FormType, with_model: bool) -> Response:
        output: Response = {
            "domainId": domain.id,
            "name": form_type.name,
            "revision": form_type.revision,
            "description": form_type.description,
            "owningProjectId": form_type.owning_project_id,
            "originDomainId": None if form_type.managed else domain.id,
            "originProjectId": form_type.owning_project_id,
        }
        if with_model:
            output.update(
                model={"smithy": form_type.smithy_text},
                status=form_type.status,
                createdAt=form_type.created_at,
                createdBy=None if form_type.managed else self.principal,
            )
        return _compact(output)

    # ---------------------------------------------------------------------------------- asset types

    def _asset_type(self, domain: _Domain, name: str, revision: str | None = None) -> _AssetType | None:
        revisions = domain.asset_types.get(name)
        if not revisions:
            return None
        if revision is None:
            return revisions[-1]
        return next((at for at in revisions if at.revision == revision), None)

    def _create_asset_type(self, domain: _Domain, params: Params) -> Response:
        name: str = params["name"]
        project = self._project(domain, params["owningProjectIdentifier"], validation)
        if name.startswith(MANAGED_PREFIX):
            raise validation(f"Asset type names starting with {MANAGED_PREFIX} are reserved for DataZone")
        forms_input: dict[str, Any] = params.get("formsInput") or {}
        if len(forms_input) > MAX_FORMS:
            raise validation(f"An asset type has at most {MAX_FORMS} forms")
        forms: dict[str, _FormEntry] = {}
        for form_name, entry in forms_input.items():
            if not FORM_NAME.fullmatch(form_name):
                raise validation(f"Form name {form_name!r} does not match the FormName pattern (no dots)")
            form_type = self._form_type(domain, entry["typeIdentifier"], entry["typeRevision"])
            if form_type is None:
                raise validation(
                    f"Form type {entry['typeIdentifier']} revision {entry['typeRevision']} does not exist"
                )
            if form_type.status != "ENABLED":
                raise validation(f"Form type {form_type.name} revision {form_type.revision} is disabled")
            forms[form_name] = _FormEntry(form_type.name, form_type.revision, bool(entry.get("required")))
        revisions = domain.asset_types.setdefault(name, [])
        latest = revisions[-1] if revisions else None
        if latest is not None and latest.owning_project_id != project:
            raise conflict(f"Asset type {name} already exists, owned by project {latest.owning_project_id}")
        if latest is not None and _reading(self.readings, "asset_type_create_existing") == "conflict":
            raise conflict(f"Asset type {name} already exists in domain {domain.id}")
        if latest is None or latest.forms != forms:
            latest = _AssetType(
                name, str(len(revisions) + 1), params.get("description"), forms, project, self._now()
            )
            revisions.append(latest)
        return self._asset_type_output(domain, latest)

    def _get_asset_type(self, domain: _Domain, params: Params) -> Response:
        asset_type = self._asset_type(domain, params["identifier"], params.get("revision"))
        if asset_type is None:
            revision = f" revision {params['revision']}" if params.get("revision") else ""
            raise not_found(f"Asset type {params['identifier']}{revision} not found")
        return self._asset_type_output(domain, asset_type)

    def _delete_asset_type(self, domain: _Domain, params: Params) -> Response:
        name = params["identifier"]
        if not domain.asset_types.get(name):
            raise not_found(f"Asset type {name} not found")
        users = [asset.id for asset in domain.live_assets() if asset.type_name == name]
        if users:
            raise conflict(f"Asset type {name} is in use by {len(users)} asset(s), e.g. {users[0]}")
        del domain.asset_types[name]
        return {}

    def _asset_type_output(self, domain: _Domain, asset_type: _AssetType) -> Response:
        return _compact(
            {
                "domainId": domain.id,
                "name": asset_type.name,
                "revision": asset_type.revision,
                "description": asset_type.description,
                "formsOutput": {
                    form_name: {
                        "typeName": e.type_name,
                        "typeRevision": e.type_revision,
                        "required": e.required,
                    }
                    for form_name, e in asset_type.forms.items()
                },
                "owningProjectId": asset_type.owning_project_id,
                "originDomainId": domain.id,
                "originProjectId": asset_type.owning_project_id,
                "createdAt": asset_type.created_at,
                "createdBy": self.principal,
                "updatedAt": asset_type.created_at,
                "updatedBy": self.principal,
            }
        )

    # --------------------------------------------------------------------------------------- assets

    def _live_asset(self, domain: _Domain, asset_id: str) -> _Asset:
        asset = domain.assets.get(asset_id)
        if asset is None or asset.deleted:
            raise not_found(f"Asset {asset_id} not found")
        return asset

    def _type_label(self, domain: _Domain, name: str, revision: str) -> str:
        form_type = self._form_type(domain, name, revision) or self._form_type(domain, name)
        namespace = form_type.namespace_label if form_type else domain.id.replace("-", "_")
        return f"{namespace}#{name.removeprefix(MANAGED_PREFIX)}@{revision}"

    def _forms(
        self, domain: _Domain, asset_type: _AssetType, forms_input: list[dict[str, Any]]
    ) -> list[_Form]:
        """Validate formsInput against the asset type's pinned form types and their Smithy models."""
        if len(forms_input) > MAX_FORMS:
            raise validation(f"An asset has at most {MAX_FORMS} forms")
        label = f"{asset_type.name}@{asset_type.revision}"
        names = [form["formName"] for form in forms_input]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise validation(f"Form {duplicates[0]} is given more than once")
        for form_name in names:
            if form_name not in asset_type.forms:
                raise validation(f"Form {form_name} is not defined in asset type {label}")
        missing = [n for n, entry in asset_type.forms.items() if entry.required and n not in names]
        if missing:
            raise validation(f"Form {missing[0]} is required by asset type {label} but was not provided")
        return [self._form(domain, asset_type.forms[form["formName"]], form) for form in forms_input]

    def _form(self, domain: _Domain, pinned: _FormEntry, form: dict[str, Any]) -> _Form:
        form_name = form["formName"]
        given_type = form.get("typeIdentifier") or pinned.type_name
        given_revision = form.get("typeRevision") or pinned.type_revision
        if (given_type, given_revision) != (pinned.type_name, pinned.type_revision):
            expected = self._type_label(domain, pinned.type_name, pinned.type_revision)
            provided = self._type_label(domain, given_type, given_revision)
            raise validation(f"Form {form_name} expected form {expected} but was provided {provided}")
        form_type = self._form_type(domain, pinned.type_name, pinned.type_revision)
        if form_type is None:  # the asset type pins it, so it cannot vanish; guard anyway
            raise validation(f"Form type {pinned.type_name}@{pinned.type_revision} no longer exists")
        text = form.get("content")
        text = "{}" if text is None else text
        if len(text) > MAX_FORM_CONTENT:
            raise validation(
                f"Form {form_name} content is {len(text)} characters; at most {MAX_FORM_CONTENT}"
            )
        try:
            parsed = json.loads(text)
        except ValueError:
            raise validation(f"Form {form_name} content is not valid JSON") from None
        validator = FormValidator(
            form_type.model, bool(_reading(self.readings, "reject_unknown_form_members"))
        )
        errors = validator.validate(form_type.structure, parsed, form_name)
        if errors:
            raise validation(", ".join(errors))
        if _reading(self.readings, "normalize_form_content"):
            text = json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        return _Form(form_name, form_type.name, form_type.revision, text, parsed)

    @staticmethod
    def _check_glossary_terms(params: Params) -> None:
        # The stand-in has no glossaries, so any glossary term is unknown.
        for term in params.get("glossaryTerms") or []:
            raise not_found(f"Glossary term {term} not found")

    def _revision(
        self, number: str, params: Params, asset_type: _AssetType, forms: list[_Form]
    ) -> _AssetRevision:
        """A new asset revision from a CreateAsset or CreateAssetRevision request."""
        return _AssetRevision(
            revision=number,
            name=params["name"],
            description=params.get("description"),
            type_revision=asset_type.revision,
            forms=forms,
            glossary_terms=params.get("glossaryTerms"),
            prediction=params.get("predictionConfiguration"),
            created_at=self._now(),
        )

    def _create_asset(self, domain: _Domain, params: Params) -> Response:
        def produce() -> Response:
            project = self._project(domain, params["owningProjectIdentifier"], not_found)
            asset_type = self._asset_type(domain, params["typeIdentifier"])
            if asset_type is None:
                raise not_found(f"Asset type {params['typeIdentifier']} not found")
            if params.get("typeRevision"):
                asset_type = self._asset_type(domain, params["typeIdentifier"], params["typeRevision"])
                if asset_type is None:
                    raise validation(
                        f"Asset type {params['typeIdentifier']} has no revision {params['typeRevision']}"
                    )
            forms = self._forms(domain, asset_type, params.get("formsInput") or [])
            self._check_glossary_terms(params)
            external_id = params.get("externalIdentifier")
            if external_id:
                holder = domain.by_external_id.get(external_id)
                if holder is not None:
                    # Undocumented message shape; public code parses the asset id out of it.
                    if _reading(self.readings, "conflict_message_names_asset"):
                        raise conflict(f"Conflict with asset {holder}")
                    raise conflict("An asset with this externalIdentifier already exists in the domain")
            revision = self._revision("1", params, asset_type, forms)
            asset = _Asset(self._new_id(), external_id, asset_type.name, project, [revision])
            domain.assets[asset.id] = asset
            if external_id:
                domain.by_external_id[external_id] = asset.id
            self._index(domain, asset)
            return self._asset_output(domain, asset, revision, with_prediction=True)

        return self._idempotent(domain, "CreateAsset", params, produce)

    def _get_asset(self, domain: _Domain, params: Params) -> Response:
        asset = self._live_asset(domain, params["identifier"])
        revision = asset.latest
        if params.get("revision"):
            found = asset.revision(params["revision"])
            if found is None:
                raise not_found(f"Asset {asset.id} has no revision {params['revision']}")
            revision = found
        return self._asset_output(domain, asset, revision, with_prediction=False)

    def _create_asset_revision(self, domain: _Domain, params: Params) -> Response:
        def produce() -> Response:
            asset = self._live_asset(domain, params["identifier"])
            if params.get("typeRevision"):
                type_revision = params["typeRevision"]
            elif _reading(self.readings, "revision_keeps_type_revision"):
                type_revision = asset.latest.type_revision
            else:
                latest_type = self._asset_type(domain, asset.type_name)
                type_revision = latest_type.revision if latest_type else asset.latest.type_revision
            asset_type = self._asset_type(domain, asset.type_name, type_revision)
            if asset_type is None:
                raise validation(f"Asset type {asset.type_name} has no revision {type_revision}")
            current = asset.latest.type_revision
            if type_revision != current and not _reading(self.readings, "revision_changes_type_revision"):
                raise validation(
                    f"Asset {asset.id} is of asset type {asset.type_name} revision {current}; a revision "
                    f"cannot change it to revision {type_revision}"
                )
            forms = self._forms(domain, asset_type, params.get("formsInput") or [])
            self._check_glossary_terms(params)
            revision = self._revision(str(len(asset.revisions) + 1), params, asset_type, forms)
            asset.revisions.append(revision)
            self._index(domain, asset)
            return self._asset_output(domain, asset, revision, with_prediction=True)

        return self._idempotent(domain, "CreateAssetRevision", params, produce)

    def _delete_asset(self, domain: _Domain, params: Params) -> Response:
        asset = self._live_asset(domain, params["identifier"])
        listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
        if listing is not None and listing.status(domain.calls) in ("ACTIVE", "CREATING"):
            must_unpublish = _reading(self.readings, "delete_requires_unpublish")
            if must_unpublish:
                raise conflict(f"Asset {asset.id} is published (listing {listing.id}); unpublish it first")
        if listing is not None:
            del domain.listings[listing.id]
        asset.deleted = True
        asset.listing_id = None
        if asset.external_identifier:
            domain.by_external_id.pop(asset.external_identifier, None)
        domain.search.write(asset.id, None, int(_reading(self.readings, "search_lag_calls")))
        return {}

    def _index(self, domain: _Domain, asset: _Asset) -> None:
        doc = _build_doc(asset, asset.latest, lambda form: self._form_type_of(domain, form))
        domain.search.write(asset.id, doc, int(_reading(self.readings, "search_lag_calls")))

    def _form_type_of(self, domain: _Domain, form: _Form) -> _FormType:
        form_type = self._form_type(domain, form.type_name, form.type_revision)
        if form_type is None:
            raise KeyError(f"{form.type_name}@{form.type_revision}")
        return form_type

    @staticmethod
    def _forms_output(forms: Iterable[_Form]) -> list[dict[str, Any]]:
        return [
            {
                "formName": f.form_name,
                "typeName": f.type_name,
                "typeRevision": f.type_revision,
                "content": f.content,
            }
            for f in forms
        ]

    def _listing_details(self, domain: _Domain, asset: _Asset) -> dict[str, Any] | None:
        listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
        if listing is None:
            return None
        return {"listingId": listing.id, "listingStatus": listing.status(domain.calls)}

    def _asset_output(
        self, domain: _Domain, asset: _Asset, revision: _AssetRevision, with_prediction: bool
    ) -> Response:
        first = asset.revisions[0]
        return _compact(
            {
                "id": asset.id,
                "name": revision.name,
                "typeIdentifier": asset.type_name,
                "typeRevision": revision.type_revision,
                "externalIdentifier": asset.external_identifier,
                "revision": revision.revision,
                "description": revision.description,
                "createdAt": revision.created_at,
                "createdBy": self.principal,
                "firstRevisionCreatedAt": first.created_at,
                "firstRevisionCreatedBy": self.principal,
                "glossaryTerms": revision.glossary_terms,
                "owningProjectId": asset.owning_project_id,
                "domainId": domain.id,
                "listing": self._listing_details(domain, asset),
                "formsOutput": self._forms_output(revision.forms),
                "predictionConfiguration": revision.prediction if with_prediction else None,
            }
        )

    def _asset_view(self, domain: _Domain, asset: _Asset) -> AssetView:
        latest = asset.latest
        listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
        return AssetView(
            id=asset.id,
            name=latest.name,
            description=latest.description,
            external_identifier=asset.external_identifier,
            type_name=asset.type_name,
            type_revision=latest.type_revision,
            revision=latest.revision,
            owning_project_id=asset.owning_project_id,
            forms={f.form_name: copy.deepcopy(f.parsed) for f in latest.forms},
            form_types={f.form_name: (f.type_name, f.type_revision) for f in latest.forms},
            listing_id=listing.id if listing else None,
            listing_status=listing.status(domain.calls) if listing else None,
            listed_revision=listing.latest.asset_revision if listing else None,
        )

    def _linked(self, domain: _Domain, source_identifier: str) -> list[_Asset]:
        found = []
        for asset in domain.live_assets():
            for form in asset.latest.forms:
                parsed = form.parsed if isinstance(form.parsed, dict) else {}
                if (
                    form.type_name == COMMON_DETAILS_TYPE
                    and parsed.get("sourceIdentifier") == source_identifier
                ):
                    found.append(asset)
                    break
        return found

    # ------------------------------------------------------------------------------------- listings

    def _create_listing_change_set(self, domain: _Domain, params: Params) -> Response:
        def produce() -> Response:
            if params["entityType"] != "ASSET":
                raise not_found(f"Data product {params['entityIdentifier']} not found")
            asset = self._live_asset(domain, params["entityIdentifier"])
            listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
            now = self._now()
            # Listing changes are asynchronous: each takes effect `listing_change_calls` calls later.
            lag = int(_reading(self.readings, "listing_change_calls"))
            due = domain.calls + lag + 1 if lag else domain.calls
            if listing is not None and listing.in_progress(domain.calls):
                raise conflict(f"Listing {listing.id} of asset {asset.id} has a change in progress")
            if params["action"] == "PUBLISH":
                revision = params.get("entityRevision") or asset.latest.revision
                if asset.revision(revision) is None:
                    raise validation(f"Asset {asset.id} has no revision {revision}")
                change = _ListingRevision("1", revision, "ACTIVE", now, due, "CREATING")
                if listing is None:
                    listing = _Listing(self._new_id(), asset.id, [change])
                    domain.listings[listing.id] = listing
                    asset.listing_id = listing.id
                elif (listing.latest.status, listing.latest.asset_revision) != ("ACTIVE", revision):
                    listing.revisions.append(
                        replace(change, listing_revision=str(len(listing.revisions) + 1))
                    )
            else:
                if listing is None:
                    raise not_found(f"Asset {asset.id} has no listing to unpublish")
                if listing.latest.status == "ACTIVE":
                    number = str(len(listing.revisions) + 1)
                    listing.revisions.append(
                        _ListingRevision(
                            number, listing.latest.asset_revision, "INACTIVE", now, due, "ACTIVE"
                        )
                    )
            return {
                "listingId": listing.id,
                "listingRevision": listing.latest.listing_revision,
                "status": listing.status(domain.calls),
            }

        return self._idempotent(domain, "CreateListingChangeSet", params, produce)

    def _get_listing(self, domain: _Domain, params: Params) -> Response:
        listing = domain.listings.get(params["identifier"])
        if listing is None:
            raise not_found(f"Listing {params['identifier']} not found")
        chosen = listing.latest
        if params.get("listingRevision"):
            found = next(
                (r for r in listing.revisions if r.listing_revision == params["listingRevision"]), None
            )
            if found is None:
                raise not_found(f"Listing {listing.id} has no revision {params['listingRevision']}")
            chosen = found
        asset = domain.assets[listing.asset_id]
        revision = asset.revision(chosen.asset_revision) or asset.latest
        return _compact(
            {
                "domainId": domain.id,
                "id": listing.id,
                "listingRevision": chosen.listing_revision,
                "createdAt": listing.revisions[0].at,
                "updatedAt": chosen.at,
                "createdBy": self.principal,
                "updatedBy": self.principal,
                "item": {
                    "assetListing": _compact(
                        {
                            "assetId": asset.id,
                            "assetRevision": revision.revision,
                            "assetType": asset.type_name,
                            "createdAt": revision.created_at,
                            # A JSON object: form name -> content (the shape is undocumented).
                            "forms": json.dumps({f.form_name: f.parsed for f in revision.forms}),
                            "owningProjectId": asset.owning_project_id,
                        }
                    )
                },
                "name": revision.name[:LISTING_NAME_MAX],
                "description": revision.description,
                "status": listing.status(domain.calls) if chosen is listing.latest else chosen.status,
            }
        )

    # --------------------------------------------------------------------------------------- search

    def _select(self, docs: list[_Doc], params: Params) -> list[_Doc]:
        """Apply owningProjectIdentifier, searchText/searchIn, filters and sort to indexed docs."""
        project = params.get("owningProjectIdentifier")
        if project:
            docs = [doc for doc in docs if doc.owning_project_id == project]
        text = params.get("searchText")
        if text and len(text) > MAX_SEARCH_TEXT:
            raise validation(f"searchText is {len(text)} characters; at most {MAX_SEARCH_TEXT}")
        if text:
            fields = [item["attribute"] for item in params["searchIn"]] if params.get("searchIn") else None
            with_external_id = bool(_reading(self.readings, "search_text_matches_external_identifier"))
            docs = [doc for doc in docs if _text_matches(doc, text, fields, with_external_id)]
        if params.get("filters"):
            _check_clause(params["filters"])
            unindexed: frozenset[str] = frozenset()
            reading = _reading(self.readings, "search_type_filter")
            if reading not in SEARCH_TYPE_FILTER_READINGS:
                raise ValueError(f"search_type_filter must be one of {SEARCH_TYPE_FILTER_READINGS}")
            if reading != "honoured" and "typeName" in _filter_attributes(params["filters"]):
                if reading == "rejected":
                    raise validation("typeName is not a valid search filter attribute")
                unindexed = frozenset({"typeName"})
            docs = [doc for doc in docs if _matches(params["filters"], doc, unindexed)]
        docs = sorted(docs, key=lambda doc: (doc.first_created_at, doc.asset_id))
        sort = params.get("sort")
        if sort:
            key = _SORT_KEYS.get(sort["attribute"])
            if key is None:
                raise validation(f"Sorting by {sort['attribute']!r} is not supported")
            docs = sorted(docs, key=key, reverse=sort.get("order") == "DESCENDING")
        return docs

    def _search(self, domain: _Domain, params: Params) -> Response:
        docs = domain.search.begin_search()
        if params["searchScope"] != "ASSET":
            return {"items": [], "totalMatchCount": 0}  # the stand-in has no glossaries or data products
        selected = self._select(docs, params)
        page, token = self._page(selected, params, self._query(params))
        with_forms = "FORMS" in (params.get("additionalAttributes") or [])
        items = [{"assetItem": self._asset_item(domain, doc, with_forms)} for doc in page]
        return _compact({"items": items, "nextToken": token, "totalMatchCount": len(selected)})

    def _asset_item(self, domain: _Domain, doc: _Doc, with_forms: bool) -> dict[str, Any]:
        return _compact(
            {
                "domainId": domain.id,
                "identifier": doc.asset_id,
                "name": doc.name,
                "typeIdentifier": doc.type_name,
                "typeRevision": doc.type_revision,
                "externalIdentifier": doc.external_identifier,
                "description": doc.description,
                "createdAt": doc.created_at,
                "createdBy": self.principal,
                "firstRevisionCreatedAt": doc.first_created_at,
                "firstRevisionCreatedBy": self.principal,
                "glossaryTerms": list(doc.glossary_terms) or None,
                "owningProjectId": doc.owning_project_id,
                "additionalAttributes": {"formsOutput": self._forms_output(doc.forms)}
                if with_forms
                else None,
            }
        )

    def _search_listings(self, domain: _Domain, params: Params) -> Response:
        """Published (ACTIVE) listings, at the asset revision each listing shows."""
        docs: list[_Doc] = []
        by_asset: dict[str, _Listing] = {}
        for listing in domain.listings.values():
            applied = listing.applied(domain.calls)
            if applied is None or applied.status != "ACTIVE":
                continue
            asset = domain.assets[listing.asset_id]
            revision = asset.revision(applied.asset_revision) or asset.latest
            docs.append(_build_doc(asset, revision, lambda form: self._form_type_of(domain, form)))
            by_asset[asset.id] = listing
        selected = self._select(docs, params)
        page, token = self._page(selected, params, self._query(params))
        with_forms = "FORMS" in (params.get("additionalAttributes") or [])
        items = []
        for doc in page:
            listing = by_asset[doc.asset_id]
            forms = json.dumps({f.form_name: f.parsed for f in doc.forms}) if with_forms else None
            items.append(
                {
                    "assetListing": _compact(
                        {
                            "listingId": listing.id,
                            "listingRevision": listing.latest.listing_revision,
                            "name": doc.name,
                            "entityId": doc.asset_id,
                            "entityRevision": doc.revision,
                            "entityType": doc.type_name,
                            "description": doc.description,
                            "createdAt": listing.latest.at,
                            "listingCreatedBy": self.principal,
                            "listingUpdatedBy": self.principal,
                            "owningProjectId": doc.owning_project_id,
                            "additionalAttributes": {"forms": forms} if forms else None,
                        }
                    )
                }
            )
        return _compact({"items": items, "nextToken": token, "totalMatchCount": len(selected)})

    # -------------------------------------------------------------------------------------- lineage

    def _lineage_read(self, domain: _Domain) -> None:
        """Processing is asynchronous in DataZone: here an event turns SUCCESS at the first lineage read
        (ListLineageEvents, GetLineageEvent, GetLineageNode, ListLineageNodeHistory) once
        `lineage_processing_lag_calls` reads have passed since it was posted; a requested deletion likewise
        takes effect `lineage_delete_lag_calls` reads after DeleteLineageEvent."""
        for event in domain.events.values():
            if event.status == "REQUESTED" and event.due <= domain.lineage_reads:
                event.status = "SUCCESS"
                domain.lineage_version += 1
            due = event.delete_due
            if not event.deleted and due is not None and due <= domain.lineage_reads:
                self._finish_delete(domain, event)
        domain.lineage_reads += 1

    def _finish_delete(self, domain: _Domain, event: _LineageEvent) -> None:
        event.deleted = True
        event.retained = not _reading(self.readings, "lineage_delete_removes_edges")
        domain.lineage_version += 1

    def _post_lineage_event(self, domain: _Domain, params: Params) -> Response:
        raw = params["event"]
        body = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        if len(body) > MAX_LINEAGE_EVENT:
            raise validation(f"The lineage event is {len(body)} bytes; the maximum is {MAX_LINEAGE_EVENT}")

        def produce() -> Response:
            event = parse_run_event(body)
            moment = _event_time(event["eventTime"])
            assert moment is not None  # parse_run_event checked it
            record = _LineageEvent(
                id=self._new_id(),
                body=body,
                event=event,
                event_time=moment,
                created_at=self._now(),
                due=domain.lineage_reads + int(_reading(self.readings, "lineage_processing_lag_calls")),
            )
            domain.events[record.id] = record
            return {"id": record.id, "domainId": domain.id}

        return self._idempotent(domain, "PostLineageEvent", {**params, "event": body}, produce)

    def _live_event(self, domain: _Domain, event_id: str) -> _LineageEvent:
        event = domain.events.get(event_id)
        if event is None or event.deleted:
            raise not_found(f"Lineage event {event_id} not found")
        return event

    def _list_lineage_events(self, domain: _Domain, params: Params) -> Response:
        self._lineage_read(domain)
        events = domain.live_events()
        if params.get("processingStatus"):
            events = [e for e in events if e.status == params["processingStatus"]]
        # Both bounds are exclusive; the reference does not say which time they filter on (a reading).
        on_created = _reading(self.readings, "lineage_time_filter") == "createdAt"

        def moment(event: _LineageEvent) -> datetime:
            return event.created_at if on_created else event.event_time

        if params.get("timestampAfter") is not None:
            after = _as_datetime(params["timestampAfter"], "timestampAfter")
            events = [e for e in events if moment(e) > after]
        if params.get("timestampBefore") is not None:
            before = _as_datetime(params["timestampBefore"], "timestampBefore")
            events = [e for e in events if moment(e) < before]
        descending = (params.get("sortOrder") or "DESCENDING") == "DESCENDING"
        events.sort(key=lambda e: (e.event_time, e.created_at, e.id), reverse=descending)
        page, token = self._page(events, params, self._query(params))
        return _compact({"items": [self._event_summary(domain, e) for e in page], "nextToken": token})

    def _event_summary(self, domain: _Domain, record: _LineageEvent) -> dict[str, Any]:
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
            "createdBy": self.principal,
            "createdAt": record.created_at,
        }

    def _get_lineage_event(self, domain: _Domain, params: Params) -> Response:
        self._lineage_read(domain)
        record = self._live_event(domain, params["identifier"])
        return {
            "domainId": domain.id,
            "id": record.id,
            "event": record.body,
            "createdBy": self.principal,
            "processingStatus": record.status,
            "eventTime": record.event_time,
            "createdAt": record.created_at,
        }

    def _delete_lineage_event(self, domain: _Domain, params: Params) -> Response:
        """Deletion is asynchronous: the event stays readable (and drawn) until `lineage_delete_lag_calls`
        lineage reads have passed; the answer's processingStatus is the deletion's."""
        record = self._live_event(domain, params["identifier"])
        lag = int(_reading(self.readings, "lineage_delete_lag_calls"))
        if record.delete_due is None:
            record.delete_due = domain.lineage_reads + lag
        if lag <= 0:
            self._finish_delete(domain, record)
        # The answer never says the deletion is done: a caller must look again later.
        return {"id": record.id, "domainId": domain.id, "processingStatus": "REQUESTED"}

    def _graph(self, domain: _Domain, as_of: datetime | None = None) -> LineageGraph:
        """The graph of processed events it draws; the present one is cached until those events change."""
        version = (domain.lineage_version, domain.native.version)
        if as_of is None and domain.graph_cache and domain.graph_cache[0] == version:
            return domain.graph_cache[1]
        drawn = domain.drawn_events(self.readings)
        graph = LineageGraph((e for e in drawn if e.status == "SUCCESS"), as_of)
        domain.native.draw(graph, as_of)
        if as_of is None:
            domain.graph_cache = (version, graph)
        return graph

    def _get_lineage_node(self, domain: _Domain, params: Params) -> Response:
        self._lineage_read(domain)
        as_of = params.get("eventTimestamp")
        graph = self._graph(domain, _as_datetime(as_of, "eventTimestamp") if as_of is not None else None)
        lookup_posted = bool(_reading(self.readings, "lineage_node_lookup_posted"))
        node = datazone_graph.find_node(graph, domain.native, params["identifier"], lookup_posted)
        if node is None:
            raise not_found(f"Lineage node {params['identifier']} not found")
        scope = str(_reading(self.readings, "lineage_node_neighbours"))
        latest = max(node.versions, key=lambda v: (v.event_time, v.created_at))
        return _compact(
            {
                "domainId": domain.id,
                "name": node.name,
                "createdAt": min(v.created_at for v in node.versions),
                "createdBy": self.principal,
                "updatedAt": max(v.created_at for v in node.versions),
                "updatedBy": self.principal,
                "id": node.id,
                "typeName": node.type_name,
                "typeRevision": "1",
                "sourceIdentifier": node.source_identifier,
                "eventTimestamp": latest.event_time,
                "formsOutput": self._node_forms(domain, node),
                "upstreamNodes": self._references(datazone_graph.neighbours(node, "upstream", scope)),
                "downstreamNodes": self._references(datazone_graph.neighbours(node, "downstream", scope)),
            }
        )

    @staticmethod
    def _references(neighbours: dict[str, datetime]) -> list[dict[str, Any]]:
        ordered = sorted(neighbours.items(), key=lambda item: (item[1], item[0]), reverse=True)
        return [{"id": _node_id(sid), "eventTimestamp": at} for sid, at in ordered[:MAX_NODE_REFERENCES]]

    def _node_forms(self, domain: _Domain, node: _Node) -> list[dict[str, Any]] | None:
        """Stand-in convention: a dataset node that assets join lists them in one synthetic form."""
        if node.type_name != DATASET_NODE:
            return None
        linked = self._linked(domain, node.source_identifier)
        if not linked:
            return None
        content = {
            "assets": [
                {
                    "assetId": a.id,
                    "name": a.latest.name,
                    "typeIdentifier": a.type_name,
                    "revision": a.latest.revision,
                }
                for a in linked
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

    def _list_lineage_node_history(self, domain: _Domain, params: Params) -> Response:
        self._lineage_read(domain)
        node = self._graph(domain).find(params["identifier"])
        if node is None:
            raise not_found(f"Lineage node {params['identifier']} not found")
        versions = node.versions
        direction = params.get("direction")
        if direction == "UPSTREAM":
            versions = [v for v in versions if v.upstream]
        elif direction == "DOWNSTREAM":
            versions = [v for v in versions if v.downstream]
        if params.get("eventTimestampGTE") is not None:
            low = _as_datetime(params["eventTimestampGTE"], "eventTimestampGTE")
            versions = [v for v in versions if v.event_time >= low]
        if params.get("eventTimestampLTE") is not None:
            high = _as_datetime(params["eventTimestampLTE"], "eventTimestampLTE")
            versions = [v for v in versions if v.event_time <= high]
        descending = (params.get("sortOrder") or "DESCENDING") == "DESCENDING"
        versions = sorted(
            versions, key=lambda v: (v.event_time, v.created_at, v.event_id), reverse=descending
        )
        page, token = self._page(versions, params, self._query(params))
        nodes = [
            {
                "domainId": domain.id,
                "name": node.name,
                "createdAt": version.created_at,
                "createdBy": self.principal,
                "updatedAt": version.created_at,
                "updatedBy": self.principal,
                "id": node.id,
                "typeName": node.type_name,
                "typeRevision": "1",
                "sourceIdentifier": node.source_identifier,
                "eventTimestamp": version.event_time,
            }
            for version in page
        ]
        return _compact({"nodes": nodes, "nextToken": token})
