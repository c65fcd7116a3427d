"""Per-source AWS sessions: a source with a `roleArn` is read under that role, in its own account.

One `SourceSessions` lives for one invocation (a run). For each source with a role it holds one boto3
session whose credentials come from STS AssumeRole (with the source's ExternalId, a RoleSessionName naming
the function, DURATION_SECONDS), through botocore's DeferredRefreshableCredentials: nothing is assumed until
a client of that source first signs a request, and botocore assumes again before the credentials expire
(its advisory and mandatory refresh windows), so a long run never signs with expired keys.

A source without a role uses the wiring's own clients (the `aws.clients.Clients` it is given). A role that
cannot be assumed fails only that source's calls: the first failure is kept and raised again (as
`SourceRoleUnavailable`, naming the source, the role and STS's answer) for every later call of the run,
without asking STS again; it is logged once and counted in the `SourceRoleFailures` metric.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import boto3
from botocore.credentials import DeferredRefreshableCredentials

from kafka_lineage.aws.clients import Clients
from kafka_lineage.config import Settings, Source
from kafka_lineage.model.failures import AwsError, SourceRoleUnavailable
from kafka_lineage.model.metrics import SOURCE_ROLE_FAILURES
from kafka_lineage.observability import emit, logger

# Lambda runs at most 15 minutes; an hour (the default maximum of a role's sessions) outlives any run, and
# botocore refreshes earlier anyway when a run nears the expiry.
DURATION_SECONDS = 3600
# STS RoleSessionName: 2-64 characters of [\w+=,.@-] (botocore sts roleSessionNameType).
_SESSION_NAME_CHARACTERS = re.compile(r"[^\w+=,.@-]")


def by_account(sources: Sequence[Source]) -> list[tuple[str, list[Source]]]:
    """The sources grouped by the account their calls run in, in a stable order: a role's source key, or ""
    for the sources read in the functions' own account. One reader (a client, a listing) serves a group."""
    groups: dict[str, list[Source]] = {}
    for source in sources:
        groups.setdefault(source.key if source.role_arn else "", []).append(source)
    return sorted(groups.items())


ReaderT = TypeVar("ReaderT")


class ByAccount(Generic[ReaderT]):
    """One reader per account the sources' calls run in (a role's source key, or "" for the functions' own
    account), each made when first needed and kept: what reads each source in its own account and merges."""

    def __init__(self, reader_of: Callable[[str], ReaderT]) -> None:
        self._reader_of = reader_of
        self._readers: dict[str, ReaderT] = {}

    def readers(self, sources: Sequence[Source]) -> list[tuple[ReaderT, list[Source]]]:
        """Each account's reader with the sources read in that account (`by_account`'s order)."""
        found = []
        for key, members in by_account(sources):
            reader = self._readers.get(key)
            if reader is None:
                reader = self._readers[key] = self._reader_of(key)
            found.append((reader, members))
        return found


def session_name(function_name: str) -> str:
    """A valid RoleSessionName naming the function, so the source account's CloudTrail shows who read."""
    name = _SESSION_NAME_CHARACTERS.sub("-", function_name or "kafka-lineage")[:64]
    return name if len(name) >= 2 else "kafka-lineage"


@dataclass
class _Failure:
    error: SourceRoleUnavailable


class SourceSessions:
    """The clients of each source for one run (thread-safe: the runs read sources from worker threads)."""

    def __init__(
        self,
        settings: Settings,
        function_name: str,
        clients: Clients,
        duration_seconds: int = DURATION_SECONDS,
    ) -> None:
        self.settings = settings
        self.clients = clients  # the wiring's: its own account's clients, and STS's
        self.session_name = session_name(function_name)
        self.duration_seconds = duration_seconds
        self._sessions: dict[str, boto3.session.Session] = {}
        self._clients: dict[tuple[str, str], Any] = {}
        self._failures: dict[str, _Failure] = {}
        self.assumed: dict[str, int] = {}  # source key -> AssumeRole calls that succeeded (refreshes too)
        self._lock = threading.RLock()

    def client(self, source: Source | None, service: str) -> Any:
        """The `service` client for calls about `source` (the wiring's own for None or a source without a
        role). Each is made once per run; boto3 clients are thread-safe."""
        if source is None or not source.role_arn:
            return self.clients.client(service)
        with self._lock:
            made = self._clients.get((source.key, service))
            if made is None:
                made = self.clients.client_of(self._session(source), service)
                self._clients[(source.key, service)] = made
            return made

    def credentials(self, source: Source) -> Any:
        """The source's refreshable credentials (what its clients sign with)."""
        with self._lock:
            return self._session(source).get_credentials()

    def client_for_key(self, key: str, service: str) -> Any:
        return self.client(self.settings.source(key), service)

    def _session(self, source: Source) -> boto3.session.Session:
        session = self._sessions.get(source.key)
        if session is None:
            session = self.clients.session(
                DeferredRefreshableCredentials(
                    refresh_using=lambda: self._assume(source), method="sts-assume-role"
                )
            )
            self._sessions[source.key] = session
        return session

    def _assume(self, source: Source) -> dict[str, str]:
        """STS AssumeRole for the source, in the metadata shape botocore's refreshable credentials take."""
        with self._lock:
            failed = self._failures.get(source.key)
        if failed is not None:
            raise failed.error
        request: dict[str, Any] = {
            "RoleArn": source.role_arn,
            "RoleSessionName": self.session_name,
            "DurationSeconds": self.duration_seconds,
        }
        if source.external_id:
            request["ExternalId"] = source.external_id
        try:
            answer = self.clients.client("sts").assume_role(**request)
        except AwsError as error:
            raise self._failed(source, error) from error
        credentials = answer["Credentials"]
        expiry = credentials["Expiration"]
        with self._lock:
            self.assumed[source.key] = self.assumed.get(source.key, 0) + 1
        return {
            "access_key": credentials["AccessKeyId"],
            "secret_key": credentials["SecretAccessKey"],
            "token": credentials["SessionToken"],
            "expiry_time": expiry.isoformat() if isinstance(expiry, datetime) else str(expiry),
        }

    def _failed(self, source: Source, error: AwsError) -> SourceRoleUnavailable:
        why = f"{error.code}: {error.message}"
        failure = SourceRoleUnavailable(
            f"source {source.key}: cannot assume role {source.role_arn} (session {self.session_name}): {why}"
        )
        with self._lock:
            if source.key in self._failures:
                return self._failures[source.key].error
            self._failures[source.key] = _Failure(failure)
        logger.error(
            "source role cannot be assumed: this source's items fail, the others go on",
            extra={"source": source.key, "roleArn": source.role_arn, "error": why},
        )
        emit(SOURCE_ROLE_FAILURES, 1)
        return failure

    def failure(self, key: str) -> str | None:
        """Why the source of `key` is unavailable this run, or None."""
        with self._lock:
            failed = self._failures.get(key)
        return str(failed.error) if failed else None
