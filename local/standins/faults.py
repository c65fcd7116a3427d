"""Fault injection (throttling, server errors, lost responses) and the record of every call, for tests."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, get_args

from local.standins.errors import ServiceError

FaultKind = Literal["throttle", "server_error", "lost_response"]

# Each service's own codes, so botocore's retry logic recognises them (throttling codes and 5xx are retried).
_THROTTLING = {
    "datazone": ("ThrottlingException", 429),
    "kafka": ("TooManyRequestsException", 429),
    "lambda": ("TooManyRequestsException", 429),
    "sts": ("Throttling", 400),
}
_SERVER_ERROR = {
    "datazone": "InternalServerException",
    "glue": "InternalServiceException",
    "ssm": "InternalServerError",
    "kafka": "InternalServerErrorException",
    "events": "InternalException",
    "lambda": "ServiceException",
}


def throttling_error(service: str) -> ServiceError:
    code, status = _THROTTLING.get(service, ("ThrottlingException", 400))
    return ServiceError(code, "Rate exceeded", status)


def server_error(service: str) -> ServiceError:
    return ServiceError(
        _SERVER_ERROR.get(service, "InternalFailure"), "Internal service error (injected)", 500
    )


def lost_response_error(service: str) -> ServiceError:
    # The request was applied; what the client sees is the gateway giving up on the backend's answer.
    return ServiceError("ServiceUnavailable", "Service unavailable (injected; the request was applied)", 503)


@dataclass
class Fault:
    """Fail the matching calls number after+1 .. after+times. `operation` None matches every operation."""

    service: str
    operation: str | None
    kind: FaultKind
    times: int = 1
    after: int = 0
    seen: int = 0
    fired: int = 0

    def matches(self, service: str, operation: str) -> bool:
        return self.service == service and self.operation in (None, operation)

    @property
    def exhausted(self) -> bool:
        return self.fired >= self.times

    def error(self) -> ServiceError:
        if self.kind == "throttle":
            return throttling_error(self.service)
        if self.kind == "server_error":
            return server_error(self.service)
        return lost_response_error(self.service)


class Faults:
    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._lock = threading.Lock()

    def add(
        self,
        service: str,
        operation: str | None = None,
        kind: FaultKind = "throttle",
        times: int = 1,
        after: int = 0,
    ) -> Fault:
        """Make the next `times` calls of service:operation (after letting `after` through) fail with `kind`:
        throttle / server_error answer at once; lost_response applies the call, then answers 503."""
        if kind not in get_args(FaultKind):
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {get_args(FaultKind)}")
        if times < 1 or after < 0:
            raise ValueError("times must be >= 1 and after >= 0")
        fault = Fault(service, operation, kind, times, after)
        with self._lock:
            self._faults.append(fault)
        return fault

    def take(self, service: str, operation: str) -> Fault | None:
        """Count this call against every matching fault; return the first that fires on it."""
        fired: Fault | None = None
        with self._lock:
            for fault in self._faults:
                if not fault.matches(service, operation) or fault.exhausted:
                    continue
                fault.seen += 1
                if fired is None and fault.seen > fault.after:
                    fault.fired += 1
                    fired = fault
        return fired

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def __iter__(self) -> Iterator[Fault]:
        with self._lock:
            return iter(list(self._faults))

    def __len__(self) -> int:
        return len(self._faults)


@dataclass(frozen=True)
class Call:
    service: str
    operation: str
    ok: bool
    status: int
    error: str | None = None  # the error code when not ok
    fault: str | None = None  # the injected fault kind, if any

    @property
    def key(self) -> str:
        return f"{self.service}:{self.operation}"


class CallLog:
    """Every request the front door answered, in order."""

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._lock = threading.Lock()

    def record(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()

    def counts(self, service: str | None = None, ok: bool | None = None) -> Counter[str]:
        """Calls per "service:Operation", optionally only one service's, or only (un)successful ones."""
        with self._lock:
            return Counter(
                c.key
                for c in self._calls
                if (service is None or c.service == service) and (ok is None or c.ok is ok)
            )

    def __iter__(self) -> Iterator[Call]:
        with self._lock:
            return iter(list(self._calls))

    def __len__(self) -> int:
        return len(self._calls)

    def __getitem__(self, index: int) -> Call:
        with self._lock:
            return self._calls[index]
