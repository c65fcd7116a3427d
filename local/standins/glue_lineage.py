"""The Glue Data Catalog's lineage graph: PostLineageEvent and GetLineageNode, one graph per account and
Region (the caller's), as the Glue developer guide's "Data lineage" pages describe them.

PostLineageEvent (botocore's model checks `Event`, a string of at most 300,000 characters, at the front door):
- the event must be at most 300,000 bytes of UTF-8 ("The OpenLineage event as a JSON string, up to 300,000
  bytes"), valid JSON, and a valid OpenLineage run event or dataset event: the fields OpenLineage's spec
  requires (`eventTime` as ISO 8601, `producer` and `schemaURL` as URIs; a run event's `run.runId` a UUID and
  its `job` a namespace and a name, `eventType` one of the spec's; a dataset event's `dataset`), else
  InvalidInputException ("isn't valid OpenLineage JSON, is missing required fields, has an unsupported
  eventType, or is larger than 300,000 bytes");
- it answers nothing, and the graph follows asynchronously: an event is processed only after
  `readings.glue_lineage_processing_lag_calls` further GetLineageNode calls of that account.

The graph: a dataset node per (namespace, name) (two identifiers of one dataset are two nodes, as the
troubleshooting page says), a job node per (job namespace, job name), edges from a run's inputs to its job
and from the job to its outputs. Which runs a job's edges come from -- every run posted, or only its latest
by eventTime -- is `readings.glue_lineage_job_edges`. Nothing posted can be deleted.

GetLineageNode takes a node id or a SourceIdentifier: a Data Catalog table's is its ARN (namespace `arn:...`
+ ":" + name `table/<db>/<table>`), any other dataset's namespace + name joined by "/" unless the name starts
with one (`s3://bucket` + `/path`), a job's `<namespace>/<name>`. At most 250 upstream and 250 downstream.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.standins.errors import ServiceError
from local.standins.readings import Readings

OPERATIONS = frozenset({"PostLineageEvent", "GetLineageNode"})
MAX_EVENT_BYTES = 300_000
MAX_NEIGHBOURS = 250
EVENT_TYPES = frozenset({"START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"})
_NODE_IDS = uuid.UUID("0b6a4f7e-2c1d-4e55-9a8b-6f3e1d2c7a90")
_URI = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:\S+")


def source_identifier(namespace: str, name: str) -> str:
    """A dataset node's SourceIdentifier (see the module's docstring)."""
    if namespace.startswith("arn:"):
        return f"{namespace}:{name}"
    return f"{namespace}{name}" if name.startswith("/") else f"{namespace}/{name}"


@dataclass
class _Run:
    run_id: str
    event_time: datetime
    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]


@dataclass
class _Graph:
    """One account's graph: what was processed, and what waits (accepted, not yet processed)."""

    pending: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    reads: int = 0
    runs: dict[tuple[str, str], dict[str, _Run]] = field(default_factory=dict)  # job -> runId -> run
    datasets: dict[tuple[str, str], datetime] = field(default_factory=dict)
    schemas: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    accepted: int = 0


class GlueLineage:
    def __init__(self, readings: Callable[[], Readings]) -> None:
        self._readings = readings
        self._graphs: dict[tuple[str, str], _Graph] = {}
        self._lock = threading.Lock()
        # A test hook: the events an account's graph takes before it answers
        # ResourceNumberLimitExceededException (no such quota is published; None: no limit).
        self.max_events: int | None = None

    def reset(self) -> None:
        with self._lock:
            self._graphs.clear()
            self.max_events = None

    def accepted(self, account: str, region: str) -> int:
        """How many events the account's graph accepted (the tests count posts by it)."""
        with self._lock:
            return self._graph(account, region).accepted

    def runs_of(self, account: str, region: str, job: str) -> list[str]:
        """The runIds the graph holds for the job `<namespace>/<name>` (processed events only)."""
        with self._lock:
            runs = self._graph(account, region).runs
            return sorted(run for key, found in runs.items() if f"{key[0]}/{key[1]}" == job for run in found)

    def settle(self, account: str, region: str) -> None:
        """Process every accepted event now (what AWS does within minutes)."""
        with self._lock:
            graph = self._graph(account, region)
            for _, event in graph.pending:
                _process(graph, event)
            graph.pending.clear()

    def handle(self, operation: str, params: Mapping[str, Any], account: str, region: str) -> dict[str, Any]:
        with self._lock:
            graph = self._graph(account, region)
            if operation == "PostLineageEvent":
                event = validate_event(str(params["Event"]))
                if self.max_events is not None and graph.accepted >= self.max_events:
                    raise ServiceError(
                        "ResourceNumberLimitExceededException",
                        f"The lineage graph of {account} holds its maximum of {self.max_events} events",
                        400,
                    )
                graph.pending.append((graph.reads, event))
                graph.accepted += 1
                return {}
            graph.reads += 1
            lag = self._readings().glue_lineage_processing_lag_calls
            ready = [item for item in graph.pending if graph.reads - item[0] > lag]
            graph.pending = [item for item in graph.pending if graph.reads - item[0] <= lag]
            for _, event in ready:
                _process(graph, event)
            return self._node(graph, str(params["Identifier"]), region, account)

    def _graph(self, account: str, region: str) -> _Graph:
        return self._graphs.setdefault((account, region), _Graph())

    # -- reading the graph ------------------------------------------------------------------------------

    def _edges(self, graph: _Graph) -> list[tuple[tuple[str, str], tuple[str, str], tuple[str, str]]]:
        """(job, input dataset or None, output dataset or None) of the runs that draw edges."""
        latest_only = self._readings().glue_lineage_job_edges == "latest"
        drawn = []
        for job, runs in graph.runs.items():
            chosen = list(runs.values())
            if latest_only and chosen:
                chosen = [max(chosen, key=lambda run: (run.event_time, run.run_id))]
            for run in chosen:
                drawn += [(job, dataset, ("", "")) for dataset in run.inputs]
                drawn += [(job, ("", ""), dataset) for dataset in run.outputs]
        return drawn

    def _node(self, graph: _Graph, identifier: str, region: str, account: str) -> dict[str, Any]:
        datasets = {_node_id("dataset", *key): key for key in graph.datasets}
        datasets.update({source_identifier(*key): key for key in graph.datasets})
        jobs = {_node_id("job", *key): key for key in graph.runs}
        jobs.update({f"{key[0]}/{key[1]}": key for key in graph.runs})
        edges = self._edges(graph)
        if identifier in datasets:
            key = datasets[identifier]
            upstream = sorted({_node_id("job", *job) for job, _, out in edges if out == key})
            downstream = sorted({_node_id("job", *job) for job, inp, _ in edges if inp == key})
            answer = {
                "Id": _node_id("dataset", *key),
                "TypeName": "Dataset",
                "Name": key[1][:256],
                "SourceIdentifier": source_identifier(*key),
                "EventTimestamp": graph.datasets[key],
                "FormsOutput": [
                    {"TypeName": "SchemaForm", "Content": json.dumps({"fields": graph.schemas[key]})}
                ]
                if graph.schemas.get(key)
                else [],
            }
        elif identifier in jobs:
            key = jobs[identifier]
            upstream = sorted({_node_id("dataset", *inp) for job, inp, _ in edges if job == key and inp[0]})
            downstream = sorted({_node_id("dataset", *out) for job, _, out in edges if job == key and out[0]})
            latest = max(graph.runs[key].values(), key=lambda run: (run.event_time, run.run_id))
            answer = {
                "Id": _node_id("job", *key),
                "TypeName": "Job",
                "Name": key[1][:256],
                "SourceIdentifier": f"{key[0]}/{key[1]}",
                "EventTimestamp": latest.event_time,
                "Description": f"latest run {latest.run_id}",
                "FormsOutput": [],
            }
        else:
            raise ServiceError(
                "EntityNotFoundException", f"Lineage node {identifier} not found in {account} {region}", 400
            )
        answer["UpstreamNodes"] = [{"Id": node} for node in upstream[:MAX_NEIGHBOURS]]
        answer["DownstreamNodes"] = [{"Id": node} for node in downstream[:MAX_NEIGHBOURS]]
        return answer


def _node_id(kind: str, namespace: str, name: str) -> str:
    return str(uuid.uuid5(_NODE_IDS, f"{kind}\n{namespace}\n{name}"))


def _process(graph: _Graph, event: dict[str, Any]) -> None:
    moment = _time(event["eventTime"])
    if "dataset" in event and "run" not in event:
        key = (event["dataset"]["namespace"], event["dataset"]["name"])
        graph.datasets[key] = max(moment, graph.datasets.get(key, moment))
        return
    job = (event["job"]["namespace"], event["job"]["name"])
    inputs = tuple((d["namespace"], d["name"]) for d in event.get("inputs") or ())
    outputs = tuple((d["namespace"], d["name"]) for d in event.get("outputs") or ())
    for dataset in [*(event.get("inputs") or ()), *(event.get("outputs") or ())]:
        key = (dataset["namespace"], dataset["name"])
        graph.datasets[key] = max(moment, graph.datasets.get(key, moment))
        schema = ((dataset.get("facets") or {}).get("schema") or {}).get("fields")
        if schema:
            graph.schemas[key] = [{"name": f.get("name"), "type": f.get("type")} for f in schema]
    runs = graph.runs.setdefault(job, {})
    earlier = runs.get(event["run"]["runId"])
    # One run, however many of its events arrive (a retried post is the same run): the union of its datasets.
    if earlier is not None:
        inputs = tuple(dict.fromkeys((*earlier.inputs, *inputs)))
        outputs = tuple(dict.fromkeys((*earlier.outputs, *outputs)))
        moment = max(moment, earlier.event_time)
    runs[event["run"]["runId"]] = _Run(event["run"]["runId"], moment, inputs, outputs)


def _invalid(message: str) -> ServiceError:
    return ServiceError("InvalidInputException", message, 400)


def _time(text: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError as error:
        raise _invalid(f"eventTime is not an ISO 8601 date-time: {text!r}") from error
    if moment.tzinfo is None:
        raise _invalid(f"eventTime has no time zone: {text!r}")
    return moment


def _dataset(value: Any, where: str) -> None:
    if not isinstance(value, dict) or not all(
        isinstance(value.get(k), str) and value[k] for k in ("namespace", "name")
    ):
        raise _invalid(f"{where} must have a namespace and a name")


def validate_event(text: str) -> dict[str, Any]:
    """The event, when Glue would accept it; InvalidInputException otherwise."""
    if len(text.encode("utf-8")) > MAX_EVENT_BYTES:
        raise _invalid(f"The event is larger than {MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(text)
    except ValueError as error:
        raise _invalid(f"The event isn't valid JSON: {error}") from error
    if not isinstance(event, dict):
        raise _invalid("The event isn't an OpenLineage event object")
    _time(event.get("eventTime"))
    for key in ("producer", "schemaURL"):
        if not isinstance(event.get(key), str) or not _URI.fullmatch(event[key]):
            raise _invalid(f"{key} is missing or not a URI")
    if "run" not in event and "job" not in event:
        if "dataset" not in event:
            raise _invalid("The event is neither a run event nor a dataset event")
        _dataset(event["dataset"], "dataset")
        return event
    event_type = event.get("eventType")
    if event_type is not None and event_type not in EVENT_TYPES:
        raise _invalid(f"Unsupported eventType {event_type!r}")
    run = event.get("run")
    try:
        uuid.UUID(str((run or {}).get("runId")))
    except ValueError as error:
        raise _invalid("run.runId is missing or not a UUID") from error
    _dataset(event.get("job"), "job")
    for side in ("inputs", "outputs"):
        datasets = event.get(side, [])
        if not isinstance(datasets, list):
            raise _invalid(f"{side} must be a list")
        for index, dataset in enumerate(datasets):
            _dataset(dataset, f"{side}[{index}]")
    return event
