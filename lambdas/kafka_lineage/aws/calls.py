"""One layer under every AWS call the adapters make: pacing, counting and typed errors, as botocore event
hooks on each client (`instrument`), and lazy pages with an early stop (`pages_until`).

Hooks, registered once per client (botocore gives each client its own copy of the event emitter):
- `before-call` counts the call, once per API call (a page of a listing is one), by operation;
- `before-send` takes a token of the operation's limiter (aws.pacing: a `Pacing` gives each operation its
  own, adapting to the account's quota) for every HTTP attempt, retries included: a retry spends the shared
  quota as much as the first try;
- `needs-retry` (first, before botocore's retry handler) tells the limiter how each attempt went, and
  retries a throttled attempt at once, paced by its limiter, which has just slowed down (aws/pacing.py says
  why not botocore's adaptive mode); other failures keep botocore's standard retries and backoff;
- `after-call` (botocore emits it after its retries, before it raises `ClientError`) raises the failure
  as its kind (`kafka_lineage.model.failures`: `NotFound`, `Conflict`, `Throttled`, `QuotaExceeded` (an
  amount, not a rate: never retried as throttling, and it names the quota), `AccessDenied`, `Invalid`,
  `Unavailable`, or the base `AwsError` for a code of no known kind), with `.code` kept;
- `after-call-error` raises a connection failure or timeout as `Unavailable`, and any other SDK error
  of the HTTP exchange as the base `AwsError` named after it.

A client's hooks and what they keep (`ClientCalls`) live on the client itself, forgotten with it: no
registry outlives a client. The wiring decides each client's pacing (aws.clients.Clients makes its
clients and keeps its pacers) and the adapters it hands them to pace them by the same limiters; a client
is paced once (another limiter for an operation already paced is `Repaced`), so no later pacing silently
replaces an earlier one. A client made outside a wiring (a test's, the demo's) is instrumented by the
first adapter that takes it.

The typed errors raised are botocore `ClientError`s too (a connection failure a `BotoCoreError`), so code
that still speaks botocore (tests, the demo's seeding) keeps working on an instrumented client.
Not seen by the hooks: botocore's client-side parameter validation (`ParamValidationError`, raised before
`before-call`), and a role that cannot be assumed (`SourceRoleUnavailable`, kafka_lineage.aws.sessions).

Every listing the adapters read has a botocore paginator (paginators-1.json: glue ListSchemas,
ListSchemaVersions, GetTables; ssm GetParametersByPath; datazone Search, ListLineageEvents,
ListSubscriptionGrants; iam ListRolePolicies, ListAttachedRolePolicies, ListPolicyVersions; kafkaconnect
ListConnectors; cloudwatch ListMetrics), so no continuation token is handled by hand anywhere.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from botocore.exceptions import BotoCoreError, HTTPClientError
from botocore.exceptions import ConnectionError as SdkConnectionError

from kafka_lineage.aws.errors import _SDK_CLASSES, _UNREACHABLE, kind_of, typed_error
from kafka_lineage.model.failures import (
    AwsError,
    Throttled,
)

if TYPE_CHECKING:
    from kafka_lineage.aws.pacing import Pacer, Pacing, RateLimiter

C = TypeVar("C")
P = TypeVar("P")


class Repaced(ValueError):
    """A client paced again, by another limiter than its own: its wiring gives it its pacing, once."""


def _operation(event_name: str) -> str:
    return event_name.rsplit(".", 1)[-1]


class ClientCalls:
    """The hooks of one client and what they keep: the pacing by operation, and the calls each made."""

    def __init__(self, retries: Mapping[str, Any] | None = None) -> None:
        self._lock = threading.Lock()
        self._calls: Counter[str] = Counter()
        self._attempts: Counter[str] = Counter()
        self._throttled: Counter[str] = Counter()
        self._limiter: RateLimiter | None = None
        self._pacing: Pacing | None = None
        self._limiters: dict[str, RateLimiter] = {}
        # The ticket of the attempt this thread has in flight: botocore sends an attempt and reads its answer
        # on the calling thread, and one thread has one attempt in flight.
        self._sent = threading.local()
        retries = retries or {}
        # Throttled attempts are retried here only under botocore's v2 modes (legacy keeps its own ways).
        mode = retries.get("mode")
        self._max_attempts = int(retries.get("total_max_attempts") or 1) if mode in _V2_MODES else 0

    def pace(self, limiter: Pacer, operations: Iterable[str] | None = None) -> None:
        """Pace the named operations (every one when None) with `limiter`, or each operation by its own
        limiter of `pacing` (aws.pacing.Pacing). A client is paced once: by the same limiter again, nothing
        changes; by another, for an operation it paces already, `Repaced` (the wiring gives each client its
        pacing, so that two wirings, or two adapters, never pace one client each their own way)."""
        from kafka_lineage.aws.pacing import Pacing

        with self._lock:
            if operations is None:
                paced = self._pacing if isinstance(limiter, Pacing) else self._limiter
                if paced is limiter:
                    return
                if self._pacing is not None or self._limiter is not None:
                    raise Repaced(f"this client is paced already by {self._pacing or self._limiter!r}")
                if isinstance(limiter, Pacing):
                    self._pacing = limiter
                else:
                    self._limiter = limiter
                return
            wanted: dict[str, RateLimiter] = {}
            for operation in operations:
                found = limiter.limiter(operation) if isinstance(limiter, Pacing) else limiter
                if found is None:
                    continue  # an operation of no known quota: not paced
                paced_by = self._limiters.get(operation)
                if paced_by is not None and paced_by is not found:
                    raise Repaced(f"{operation} of this client is paced already by {paced_by!r}")
                wanted[operation] = found
            self._limiters.update(wanted)

    def limiter(self, operation: str) -> RateLimiter | None:
        with self._lock:
            return self._limiter_of(operation)

    def _limiter_of(self, operation: str) -> RateLimiter | None:
        found = self._limiters.get(operation, self._limiter)
        if found is None and self._pacing is not None:
            found = self._pacing.limiter(operation)
        return found

    def count(self, *operations: str) -> int:
        """API calls made so far (a page of a listing is one), of the operations named (all when none)."""
        with self._lock:
            if not operations:
                return sum(self._calls.values())
            return sum(self._calls[operation] for operation in operations)

    def attempts(self, *operations: str) -> int:
        """HTTP attempts sent so far (retries included), of the operations named (all when none)."""
        with self._lock:
            if not operations:
                return sum(self._attempts.values())
            return sum(self._attempts[operation] for operation in operations)

    def throttled(self, *operations: str) -> int:
        """Attempts answered with throttling so far, of the operations named (all when none)."""
        with self._lock:
            if not operations:
                return sum(self._throttled.values())
            return sum(self._throttled[operation] for operation in operations)

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._calls)

    # -- the hooks (botocore passes keyword arguments; each takes what it needs) --------------------------
    def before_call(self, event_name: str, **_: Any) -> None:
        with self._lock:
            self._calls[_operation(event_name)] += 1

    def before_send(self, event_name: str, **_: Any) -> None:
        operation = _operation(event_name)
        with self._lock:
            self._attempts[operation] += 1
            limiter = self._limiter_of(operation)
        # Outside the lock: other operations' attempts need not wait for this one.
        self._sent.ticket = limiter.acquire() if limiter is not None else None

    def needs_retry(self, event_name: str, response: Any = None, attempts: int = 1, **_: Any) -> float | None:
        """Every attempt's answer, before botocore's retry handler sees it: tell the operation's limiter
        how it went (success: speed up; throttled: slow down, with the attempt's ticket, so that one overrun
        slows it once), and retry a throttled attempt at once, while attempts remain: the limiter, slowed
        down, paces the retry on the functions' clock. Any other answer is botocore's to retry (None)."""
        if response is None:
            return None  # no answer (a connection failure): botocore's
        http_response, parsed = response
        status = int(getattr(http_response, "status_code", 0) or 0)
        operation = _operation(event_name)
        with self._lock:
            limiter = self._limiter_of(operation)
        if status < 300:
            if limiter is not None:
                limiter.succeeded()
            return None
        code = str(((parsed or {}).get("Error") or {}).get("Code") or "")
        if kind_of(code, status) is not Throttled:
            return None
        with self._lock:
            self._throttled[operation] += 1
        if limiter is not None:
            limiter.throttled(getattr(self._sent, "ticket", None))
        if attempts >= self._max_attempts:
            return None  # the last attempt: botocore stops too, and after-call raises Throttled
        return 0.0

    @staticmethod
    def after_call(
        http_response: Any, parsed: dict[str, Any], model: Any, context: Mapping[str, Any], **_: Any
    ) -> None:
        status = int(http_response.status_code)
        if status < 300:
            return
        response = parsed
        override = context.get("error_code_override")
        if override:
            response = {**parsed, "Error": {**(parsed.get("Error") or {}), "Code": override}}
        raise typed_error(response, str(model.name), status)

    @staticmethod
    def after_call_error(exception: BaseException, event_name: str, **_: Any) -> None:
        if not isinstance(exception, BotoCoreError):
            return  # ours (an assumed role that failed) or a bug: as it is
        unreachable = isinstance(exception, (SdkConnectionError, HTTPClientError))
        kind = _UNREACHABLE if unreachable else _SDK_CLASSES[AwsError]
        response = {"Error": {"Code": type(exception).__name__, "Message": str(exception)}}
        raise kind(response, _operation(event_name)) from exception


_HOOKS = "kafka-lineage-calls"
_V2_MODES = ("standard", "adaptive")
# Where a client keeps its hooks (kept with the client, so forgotten with it).
_CALLS = "_kafka_lineage_calls"
_registering = threading.Lock()


def calls_of(client: Any) -> ClientCalls:
    """The client's hooks and counts, instrumenting it first if it is not yet."""
    with _registering:
        attributes = getattr(client, "__dict__", None)  # not getattr(client, _CALLS): a mock would make one
        found = attributes.get(_CALLS) if isinstance(attributes, dict) else None
        if isinstance(found, ClientCalls):
            return found
        meta = getattr(client, "meta", None)
        config = getattr(meta, "config", None)
        found = ClientCalls(getattr(config, "retries", None))
        events = getattr(meta, "events", None)
        if events is not None:
            # First, on botocore's own (service-specific) event: its answer (retry now) must win over
            # botocore's retry handler, which would sleep its backoff first.
            service_id = getattr(getattr(meta, "service_model", None), "service_id", None)
            retry_event = f"needs-retry.{service_id.hyphenize()}" if service_id is not None else "needs-retry"
            events.register_first(retry_event, found.needs_retry, unique_id=f"{_HOOKS}-retry")
            # unique_id: a client's hooks are registered once, however many adapters it is handed to.
            events.register("before-call", found.before_call, unique_id=f"{_HOOKS}-count")
            events.register("before-send", found.before_send, unique_id=f"{_HOOKS}-pace")
            events.register("after-call", found.after_call, unique_id=f"{_HOOKS}-errors")
            events.register("after-call-error", found.after_call_error, unique_id=f"{_HOOKS}-unreachable")
        # A test double without botocore's events is used as it is (it raises typed_error itself); one that
        # keeps no attributes (None, say) has nothing to pace or count: its hooks are not kept.
        if isinstance(attributes, dict):
            setattr(client, _CALLS, found)
        return found


def instrument(client: C, limiter: Pacer | None = None, operations: Iterable[str] | None = None) -> C:
    """`client`, its calls counted, its errors typed, and its `operations` (every one when None) paced by
    `limiter` when one is given (a `Pacing`: each operation by its own adaptive limiter). Idempotent:
    instrumenting a client again changes nothing, and pacing it by another limiter is `Repaced`."""
    found = calls_of(client)
    if limiter is not None:
        found.pace(limiter, operations)
    return client


# --- Pages ----------------------------------------------------------------------------------------------
# The continuation tokens of the paginators used here (paginators-1.json output_token).
_OUTPUT_TOKENS = ("NextToken", "nextToken")


class Stopped(Exception):
    """The caller's deadline: no further call starts."""


def pages_until(pages: Iterable[P], stop: Callable[[], bool] | None) -> Iterator[P]:
    """A paginator's pages, lazily; before each further page is asked for, `stop()` may say no (Stopped).

    The first page is asked for unconditionally (check before starting, if that matters), and a listing
    whose last page has come is complete whatever `stop()` says then.
    """
    for page in pages:
        yield page
        more = isinstance(page, Mapping) and any(page.get(token) for token in _OUTPUT_TOKENS)
        if more and stop is not None and stop():
            raise Stopped
