"""CloudWatch's ListMetrics as CloudWatch answers it, over the metrics moto keeps (PutMetricData goes to
moto itself).

moto 5.2.5's ListMetrics filters by namespace, metric name and dimensions and pages at 500, but lists every
metric ever put: CloudWatch lists only metrics with data in the past two weeks ("ListMetrics doesn't return
information about metrics if those metrics haven't reported data in the past two weeks", CloudWatch API
reference). This stand-in keeps that window against its own clock (`now()`, moved on with `advance`), so a
test can let a consumer group age out. Pages are 500 metrics each (the API reference's "Up to 500 results
are returned for any one call"), in a stable order, with a `NextToken` while more remain.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from local.standins.errors import ServiceError

WINDOW = timedelta(days=14)
PAGE = 500


def _moment(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class CloudWatchMetrics:
    OPERATIONS = frozenset({"ListMetrics"})

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def reset(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        """The stand-in's present: the real clock moved on by `advance`."""
        return datetime.now(UTC) + self.offset

    def advance(self, **delta: float) -> None:
        """Move the stand-in's clock on (e.g. `advance(days=15)`): metrics older than two weeks drop out."""
        self.offset += timedelta(**delta)

    def handle(self, name: str, params: Mapping[str, Any], account: str, region: str) -> dict[str, Any]:
        if name != "ListMetrics":
            raise ServiceError("UnknownOperationException", f"The CloudWatch stand-in lacks {name!r}", 400)
        from moto.cloudwatch.models import cloudwatch_backends

        backend = cloudwatch_backends[account][region]
        wanted = [(str(d["Name"]), d.get("Value")) for d in params.get("Dimensions") or []]
        latest: dict[tuple[str, str, tuple[tuple[str, str], ...]], datetime] = {}
        for datum in backend.get_all_metrics():
            if params.get("Namespace") and datum.namespace != params["Namespace"]:
                continue
            if params.get("MetricName") and datum.name != params["MetricName"]:
                continue
            dimensions = tuple(sorted((str(d.name), str(d.value)) for d in datum.dimensions))
            if any(
                not any(n == name_ and (value is None or v == value) for n, v in dimensions)
                for name_, value in wanted
            ):
                continue
            key = (datum.namespace, datum.name, dimensions)
            moment = _moment(datum.timestamp)
            latest[key] = max(moment, latest.get(key, moment))
        since = self.now() - WINDOW
        listed = sorted(key for key, moment in latest.items() if moment >= since)
        start = self._start(params.get("NextToken"))
        page = listed[start : start + PAGE]
        result: dict[str, Any] = {
            "Metrics": [
                {
                    "Namespace": namespace,
                    "MetricName": metric,
                    "Dimensions": [{"Name": n, "Value": v} for n, v in dimensions],
                }
                for namespace, metric, dimensions in page
            ]
        }
        if start + PAGE < len(listed):
            result["NextToken"] = base64.b64encode(json.dumps({"start": start + PAGE}).encode()).decode()
        return result

    @staticmethod
    def _start(token: Any) -> int:
        if not token:
            return 0
        try:
            return int(json.loads(base64.b64decode(str(token)))["start"])
        except (ValueError, KeyError, TypeError) as error:
            raise ServiceError(
                "InvalidParameterValue", "Request parameter NextToken is invalid", 400
            ) from error
