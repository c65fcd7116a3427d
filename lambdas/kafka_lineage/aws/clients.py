"""boto3 clients with the retry policy every adapter shares, made and owned by a wiring (`Clients`), and
instrumented by the call layer (kafka_lineage.aws.calls: counted, paced, typed errors).

`Clients`: each wiring makes one (the handler module builds one `Wiring` per Lambda instance: one per warm
instance). It makes one client per service when first asked (thread-safe) and keeps the wiring's pacers
(`pacer`): the wiring decides each client's pacing and hands the paced clients to the adapters, and a
client is paced once (calls.py: pacing an operation again with another limiter is an error). So two
wirings in one process (the local runs, the tests) pace their own clients and count their own calls, and
a warm instance's limiters keep what they learned of the account's quotas across its invocations. The
wiring's builders name the TUNING its pacers follow (`pace_by`): a deployed function's never changes; under
another (a test's, the bench's) the `Clients` starts afresh, new clients for new pacers.

Clients of another account (an assumed role's) are made by `aws.sessions` (a source's role, per run) and
`aws.accounts` (subscription-grants' roles) on sessions from `Clients.session`, with the same retry policy
(`Clients.client_of`); their own-account clients are the `Clients`' they are given.

A client made elsewhere (a test's or the demo's plain boto3 client handed to an adapter) needs no `Clients`:
the adapter instruments it when it takes it (`calls.instrument`), and its hooks and counts stay with it.

Clients keep the endpoint and credentials they were made with. Lambda never changes them under a running
instance; the local stand-ins do (pointing boto3 at them, acting as a function's role) and then call
`environment_changed()`: every `Clients` forgets its clients and pacers, and makes new ones when next asked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

import boto3
import botocore.session
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.loaders import create_loader

from kafka_lineage.aws.calls import ClientCalls, calls_of, instrument

# Standard retry: botocore backs off on 5xx and connection failures; throttling is the call layer's to
# pace and retry, per operation (aws/pacing.py says why not botocore's `adaptive` mode).
RETRY_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    max_pool_connections=32,
)


# One botocore loader for every session of the process. The loader caches the JSON it parses (service
# models, endpoints.json, partitions), but each botocore session makes its own; the functions make a session
# per client and per assumed role, so each client parsed endpoints.json again (measured: a lineage run on the
# stand-ins spent 40% of its time in json.loads of botocore's data). The cache is read-only once filled.
_LOADER = create_loader()

P = TypeVar("P")


def new_session(credentials: Credentials | None = None) -> boto3.session.Session:
    """A boto3 session sharing the process's loader; `credentials` (e.g. an assumed role's refreshable
    ones) replace the default chain."""
    core = botocore.session.get_session()
    core.register_component("data_loader", _LOADER)
    if credentials is not None:
        core._credentials = credentials  # botocore's documented way has no public setter for refreshable ones
    return boto3.session.Session(botocore_session=core)


class _Environment:
    """How many times the process's AWS environment (endpoint, credentials) changed under its clients."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.changes = 0

    def changed(self) -> None:
        with self._lock:
            self.changes += 1


_ENVIRONMENT = _Environment()
_UNSET = object()  # no TUNING yet: the clients made so far (unpaced) serve the first one


def environment_changed() -> None:
    """The endpoint or the credentials this process's boto3 reads changed (the local stand-ins only): every
    `Clients` makes its clients, and pacers, anew when next asked."""
    _ENVIRONMENT.changed()


def _carry(pacer: Any, rates: Mapping[str, float]) -> None:
    if hasattr(pacer, "carry"):  # a Pacing (aws/pacing.py); a single limiter starts as it is
        pacer.carry(rates)


class Clients:
    """A wiring's clients of its own account, one per service, and the pacers it gives them."""

    def __init__(self, config: Config = RETRY_CONFIG) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._clients: dict[str, Any] = {}
        self._pacers: dict[Hashable, Any] = {}
        self._carried: dict[str, float] = {}  # a follow-up's start (engine/handover.py `rates`)
        self._tuning: Hashable = _UNSET
        self._environment = _ENVIRONMENT.changes

    def client(self, service: str) -> Any:
        """The `service` client, instrumented; made when first asked (boto3 clients are thread-safe)."""
        with self._lock:
            self._follow_environment()
            made = self._clients.get(service)
            if made is None:
                made = self._clients[service] = self.client_of(new_session(), service)
            return made

    def calls(self, service: str) -> ClientCalls:
        """What the `service` client's hooks keep: its calls, attempts, throttles and pacing."""
        return calls_of(self.client(service))

    def pacer(self, key: Hashable, make: Callable[[], P]) -> P:
        """The wiring's pacer named `key` (e.g. a service and an account), made by `make` when first asked:
        the same one for every invocation, as its client is paced once."""
        with self._lock:
            self._follow_environment()
            found = self._pacers.get(key)
            if found is None:
                found = self._pacers[key] = make()
                _carry(found, self._carried)
            return found

    def carry_over(self, rates: Mapping[str, float]) -> None:
        """A follow-up's start: its pacers' limiters not made yet start at the pace its predecessor's
        reached (`rates`, "<service>:<quota bucket>"; {}: none handed over)."""
        with self._lock:
            self._carried = dict(rates)
            pacers = list(self._pacers.values())
        for pacer in pacers:
            _carry(pacer, self._carried)

    def reached(self) -> dict[str, float]:
        """The pace each quota's limiters of this wiring go at now (the lowest, for a quota paced in
        several accounts): what a follow-up starts at."""
        with self._lock:
            pacers = list(self._pacers.values())
        found: dict[str, float] = {}
        for pacer in pacers:
            for key, rate in (pacer.reached() if hasattr(pacer, "reached") else {}).items():
                found[key] = min(rate, found.get(key, rate))
        return found

    def pace_by(self, tuning: Hashable) -> None:
        """The rates (TUNING) the wiring's pacers follow. A deployed function's never change; when another
        comes (a test's, the bench's), the clients and pacers made for the last are forgotten, as a new
        instance would start: a client is paced once, so another rate needs another client."""
        with self._lock:
            if self._tuning is not _UNSET and tuning != self._tuning:
                self._clients.clear()
                self._pacers.clear()
            self._tuning = tuning

    def session(self, credentials: Credentials) -> boto3.session.Session:
        """A session signing with `credentials` (an assumed role's refreshable ones), sharing the loader."""
        return new_session(credentials)

    def client_of(self, session: boto3.session.Session, service: str) -> Any:
        """A new `service` client of `session` with this retry policy, instrumented: the caller keeps it."""
        return instrument(session.client(service, config=self.config))

    def _follow_environment(self) -> None:
        if self._environment != _ENVIRONMENT.changes:
            self._clients.clear()
            self._pacers.clear()
            self._environment = _ENVIRONMENT.changes
