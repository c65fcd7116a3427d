"""Drive stand-ins that run in another process (`python -m local.standins`) with LocalAws's method names.

    with RemoteAws.spawn() as aws:              # starts the server process, reads its URL
        aws.kafka.set_brokers(cluster_arn, sasl_iam="b-1.x:9098")
        env = aws.environment()                 # hand to the process under test
        ...
        print(aws.call_counts())

Benchmarks use it so that a measurement of the sync's memory or time does not include the stand-ins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any
from urllib.parse import urlencode

from local.standins import aws_environment
from local.standins.faults import Call, FaultKind
from local.standins.readings import Readings

_REPO = Path(__file__).resolve().parents[2]


class RemoteError(RuntimeError):
    pass


class _Control:
    def __init__(self, endpoint_url: str) -> None:
        self.endpoint_url = endpoint_url.rstrip("/")

    def __call__(
        self, method: str, path: str, payload: Any = None, query: dict[str, str] | None = None
    ) -> Any:
        url = f"{self.endpoint_url}/_local/{path}" + (f"?{urlencode(query)}" if query else "")
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(
            url, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise RemoteError(f"{method} /_local/{path}: {error.read().decode(errors='replace')}") from error


class RemoteFaults:
    def __init__(self, control: _Control) -> None:
        self._control = control

    def add(
        self,
        service: str,
        operation: str | None = None,
        kind: FaultKind = "throttle",
        times: int = 1,
        after: int = 0,
    ) -> None:
        fault = {"service": service, "operation": operation, "kind": kind, "times": times, "after": after}
        self._control("POST", "faults", fault)

    def clear(self) -> None:
        self._control("DELETE", "faults")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The server's faults (with how often each has `seen` and `fired`)."""
        faults: list[dict[str, Any]] = self._control("GET", "faults")
        return iter(faults)


class RemoteKafka:
    def __init__(self, control: _Control) -> None:
        self._control = control

    def set_brokers(self, cluster_arn: str, **strings: str | None) -> None:
        self._control("POST", "kafka/brokers", {"cluster_arn": cluster_arn, **strings})

    def create_topic(
        self,
        cluster_arn: str,
        name: str,
        partitions: int = 1,
        replication_factor: int = 3,
        configs: dict[str, str] | None = None,
    ) -> str:
        answer = {"cluster_arn": cluster_arn, "name": name, "partitions": partitions}
        answer.update({"replication_factor": replication_factor, "configs": configs or {}})
        created: dict[str, str] = self._control("POST", "kafka/topics", answer)
        return created["topicArn"]


class RemoteClusterPolicies:
    def __init__(self, control: _Control) -> None:
        self._control = control

    def race(self, cluster_arn: str, policy: str | None = None, times: int = 1) -> None:
        """As ClusterPolicies.race: another writer moves the version right after the next Get(s)."""
        self._control(
            "POST", "kafka/policy-race", {"cluster_arn": cluster_arn, "policy": policy, "times": times}
        )


class RemoteCalls:
    """The server's call log, read afresh on every use."""

    def __init__(self, control: _Control) -> None:
        self._control = control

    def _fetch(self) -> list[Call]:
        return [Call(**call) for call in self._control("GET", "calls")]

    def __iter__(self) -> Iterator[Call]:
        return iter(self._fetch())

    def __len__(self) -> int:
        return len(self._fetch())

    def __getitem__(self, index: int) -> Call:
        return self._fetch()[index]

    def clear(self) -> None:
        self._control("DELETE", "calls")

    def counts(self, service: str | None = None, ok: bool | None = None) -> Counter[str]:
        query = {"service": service} if service else {}
        if ok is not None:
            query["ok"] = "true" if ok else "false"
        return Counter(self._control("GET", "call-counts", query=query))


class RemoteAws:
    """Stand-ins served by another process at `endpoint_url`."""

    def __init__(
        self, endpoint_url: str, region: str = "eu-west-1", process: subprocess.Popen[str] | None = None
    ) -> None:
        self.endpoint_url = endpoint_url.rstrip("/")
        self.region = region
        self.process = process
        self._control = _Control(self.endpoint_url)
        self.faults = RemoteFaults(self._control)
        self.kafka = RemoteKafka(self._control)
        self.cluster_policies = RemoteClusterPolicies(self._control)
        self.calls = RemoteCalls(self._control)

    @classmethod
    def spawn(cls, region: str = "eu-west-1", account: str = "123456789012", port: int = 0) -> RemoteAws:
        """Start `python -m local.standins` (same interpreter) and wait for its URL."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_REPO), str(_REPO / "lambdas")])}
        command = [sys.executable, "-m", "local.standins", "--port", str(port), "--region", region]
        process = subprocess.Popen(
            [*command, "--account", account], cwd=_REPO, env=env, stdout=subprocess.PIPE, text=True
        )
        stdout: IO[str] | None = process.stdout
        line = stdout.readline().strip() if stdout is not None else ""
        if not line.startswith("http://"):
            process.kill()
            raise RemoteError(f"stand-in process did not start (exit code {process.wait()}, said {line!r})")
        return cls(line, region, process)

    def stop(self) -> None:
        """End the spawned process (a RemoteAws made from a URL leaves the server running)."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def __enter__(self) -> RemoteAws:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def health(self) -> bool:
        return bool(self._control("GET", "health")["ok"])

    def reset(self) -> None:
        self._control("POST", "reset")

    @property
    def latency_ms(self) -> float:
        return float(self._control("GET", "latency")["ms"])

    @latency_ms.setter
    def latency_ms(self, value: float) -> None:
        self._control("PUT", "latency", {"ms": value})

    def enforce_quotas(self, neighbour: float = 0.0, undocumented: bool = True) -> dict[str, Any]:
        """Enforce the rate quotas (quotas.py), `neighbour` of each taken by another tool."""
        state: dict[str, Any] = self._control(
            "PUT", "quotas", {"neighbour": neighbour, "undocumented": undocumented}
        )
        return state

    def quota_state(self) -> dict[str, Any]:
        """Whether quotas are enforced, the neighbour's share, and the requests refused by operation."""
        state: dict[str, Any] = self._control("GET", "quotas")
        return state

    def lift_quotas(self) -> None:
        self._control("DELETE", "quotas")

    @property
    def readings(self) -> Readings:
        """A copy: change readings with set_readings()."""
        return Readings(**self._control("GET", "readings"))

    def set_readings(self, **changes: Any) -> Readings:
        return Readings(**self._control("PATCH", "readings", changes))

    def call_counts(self, service: str | None = None, ok: bool | None = None) -> Counter[str]:
        return self.calls.counts(service, ok)

    def environment(self) -> dict[str, str]:
        return aws_environment(self.endpoint_url, self.region)

    def client(self, service: str, **config: Any) -> Any:
        import boto3

        return boto3.session.Session().client(
            service,
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            **config,
        )
