"""Clients in other accounts for the subscription-grants function: IAM in a consumer's account, MSK in a
cluster's account, each under a role of that account (STS AssumeRole with the external id), assumed when a
client first signs a request and refreshed by botocore before it expires (as `aws.sessions` does for the
sources). The function's own account uses the wiring's own clients (the `aws.clients.Clients` given).

`role_of(account)` names the role to assume in an account, or None: then every call for that account fails
with `SourceRoleUnavailable`, whose message says which setting would name one; the grants that need it fail
with that cause (a refusal, not a retry). STS refusing the role (AccessDenied, an unknown role, a bad external
id) is `SourceRoleUnavailable` too. STS throttling or failing (a 5xx, no connection, a code of no known kind)
is raised as the call layer typed it (`Throttled`, `Unavailable`, `AwsError`), after the call layer's retries:
transient, so the grant is left for a retry and the reconciling run, never failed for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

import boto3
from botocore.credentials import DeferredRefreshableCredentials

from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.sessions import DURATION_SECONDS, session_name
from kafka_lineage.model.failures import AwsError, SourceRoleUnavailable, Throttled, Unavailable

# (role ARN, external id) to assume in an account, or None.
RoleOf = Callable[[str], tuple[str, str | None] | None]


class AccountClients:
    def __init__(
        self, own_account: str, role_of: RoleOf, function_name: str, missing: str, clients: Clients
    ) -> None:
        self.own_account = own_account
        self.clients = clients  # the wiring's: its own account's clients, and STS's
        self._role_of = role_of
        self._session_name = session_name(function_name)
        self._missing = missing  # what to say when no role is named for an account
        self._clients: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def client(self, account: str, service: str) -> Any:
        if account == self.own_account or not self.own_account:
            return self.clients.client(service)
        with self._lock:
            made = self._clients.get((account, service))
            if made is None:
                made = self._clients[(account, service)] = self.clients.client_of(
                    self._session(account), service
                )
            return made

    def _session(self, account: str) -> boto3.session.Session:
        return self.clients.session(
            DeferredRefreshableCredentials(
                refresh_using=lambda: self._assume(account), method="sts-assume-role"
            )
        )

    def _assume(self, account: str) -> dict[str, str]:
        named = self._role_of(account)
        if named is None:
            raise SourceRoleUnavailable(
                f"account {account} is not the function's account, and {self._missing}"
            )
        role, external_id = named
        request: dict[str, Any] = {
            "RoleArn": role,
            "RoleSessionName": self._session_name,
            "DurationSeconds": DURATION_SECONDS,
        }
        if external_id:
            request["ExternalId"] = external_id
        try:
            answer = self.clients.client("sts").assume_role(**request)
        except (Throttled, Unavailable):
            raise
        except AwsError as error:
            if type(error) is AwsError:
                raise  # a code of no known kind: transient, as everywhere else
            raise SourceRoleUnavailable(
                f"cannot assume role {role} in account {account}: {error.code}: {error.message}"
            ) from error
        credentials = answer["Credentials"]
        expiry = credentials["Expiration"]
        return {
            "access_key": credentials["AccessKeyId"],
            "secret_key": credentials["SecretAccessKey"],
            "token": credentials["SessionToken"],
            "expiry_time": expiry.isoformat() if isinstance(expiry, datetime) else str(expiry),
        }
