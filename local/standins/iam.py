"""IAM mode: every request signed with a role's access key is authorised against that role's policies.

    roles = deployment_roles(Deployment.from_environment(os.environ), aws.region, aws.account)
    aws.iam.enable()
    with aws.iam.acting_as(roles["schema-sync"]):   # boto3 in this process now signs as that role
        handler(event, context)
    aws.iam.run_pending()                           # follow-up invocations the function asked for

The caller is told by the access key id in the SigV4 Authorization header. The default test key (used to
seed and inspect the world) stays unrestricted; a key nobody issued is rejected as AWS rejects it. For
each request the action and resources are built from the SAR (iam_requests) and evaluated (iam_policy);
a denial is answered as the service answers it: AccessDeniedException, 400 over awsJson (SSM, Glue,
EventBridge), 403 over rest-json (DataZone, Lambda, MSK). EventBridge PutEvents is authorised entry by
entry: an entry whose `events:source` is not allowed fails alone (NotAuthorizedForSourceException).
Lambda Invoke of a function of the deployment is checked, then queued for `run_pending()`.

Across accounts: `add_assumable(roles)` makes other stacks' roles (a source account's reader role, see
iam_trust) assumable. A function's STS AssumeRole needs its own policy's sts:AssumeRole on the role and the
role's trust policy (principal and sts:ExternalId); then moto issues the credentials, in the role's account,
and requests signed with them are authorised against that role's policies, in that account.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib
import json
import logging
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from local.standins import protocol
from local.standins.environment import reset_cached_clients
from local.standins.errors import ServiceError
from local.standins.iam_policy import (
    Decision,
    Request,
    Statement,
    action_matches,
    denial_message,
    evaluate_bounded,
    parse_policy,
)
from local.standins.iam_requests import CannotAuthorize, Where, requests_for
from local.standins.iam_roles import Role
from local.standins.iam_trust import AssumableRole, trust_decision

log = logging.getLogger(__name__)

DEFAULT_KEY = "testing"  # the stand-ins' fake credentials: seeding and assertions, never restricted
_CREDENTIAL = "Credential="


def access_key_of(authorization: str) -> str | None:
    """The access key id of a SigV4 Authorization header (Credential=AKID/date/region/service/...)."""
    start = authorization.find(_CREDENTIAL)
    if start < 0:
        return None
    return authorization[start + len(_CREDENTIAL) :].split("/", 1)[0] or None


def moto_key_account(key: str) -> str | None:
    """The account whose IAM knows this access key: moto's STS AssumeRole keeps the keys it issues in the
    assumed role's account, and keys its state by that account (the stand-ins follow it)."""
    from moto.iam.models import iam_backends
    from moto.utilities.utils import PARTITION_NAMES

    for account_id, account in list(iam_backends.items()):
        for partition in PARTITION_NAMES:
            if key in account[partition].access_keys:
                return str(account_id)
    return None


def _key_id(role: Role) -> str:
    # Temporary (assumed-role) keys start with ASIA; 16 more characters from the role's identity and grants.
    digest = hashlib.sha256(json.dumps([role.arn, role.documents], sort_keys=True).encode()).digest()
    return "ASIA" + base64.b32encode(digest).decode()[:16]


@dataclass(frozen=True)
class Denial:
    role: str
    action: str
    resource: str | None
    explicit: bool
    message: str


@dataclass
class Invocation:
    """An asynchronous Invoke the stand-ins accepted for a function of the deployment."""

    role: Role
    event: dict[str, Any]
    caller: str  # the role that asked


@dataclass
class Iam:
    region: str
    account: str
    enabled: bool = False
    _by_key: dict[str, Role] = field(default_factory=dict)
    _by_function: dict[str, Role] = field(default_factory=dict)
    denials: list[Denial] = field(default_factory=list)
    allowed: Counter[str] = field(default_factory=Counter)  # "role action" -> requests allowed
    pending: list[Invocation] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _acting: list[Any] = field(default_factory=list)  # [role, depth, saved environment]
    revoked: dict[str, set[str]] = field(default_factory=dict)  # function -> actions taken from its role
    _assumable: dict[str, AssumableRole] = field(default_factory=dict)  # role ARN ->
    boundaries: dict[str, tuple[Statement, ...]] = field(default_factory=dict)  # function -> boundary

    # ---------------------------------------------------------------------------------------- identities

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def reset(self) -> None:
        """Forget denials, queued invocations and revocations (roles keep their keys: keys are derived)."""
        with self._lock:
            self.denials.clear()
            self.allowed.clear()
            self.pending.clear()
            self.revoked.clear()
            self._assumable.clear()
            self.boundaries.clear()

    def add_assumable(self, roles: dict[str, AssumableRole]) -> None:
        """Roles of other stacks (accounts) that functions may assume, by ARN."""
        with self._lock:
            self._assumable.update(roles)

    def revoke(self, function: str, *actions: str) -> None:
        """Take these actions out of the function's role, as if the stack did not grant them (tests prove
        with it that a grant is needed). Only actions the role names literally can be taken out."""
        with self._lock:
            self.revoked.setdefault(function, set()).update(actions)

    def set_boundary(self, function: str, document: dict[str, Any] | None) -> None:
        """Give the function's role a permissions boundary (None takes it away), as an organisation that
        bounds every role would: its requests must then be allowed by the boundary too."""
        with self._lock:
            if document is None:
                self.boundaries.pop(function, None)
            else:
                self.boundaries[function] = parse_policy(document)

    def boundary_of(self, role: Role) -> tuple[Statement, ...] | None:
        """The role's permissions boundary: one set here, else the template's, else none."""
        with self._lock:
            return self.boundaries.get(role.name, role.boundary)

    def statements_of(self, role: Role) -> tuple[Statement, ...]:
        """The role's statements less any revoked action."""
        gone = self.revoked.get(role.name)
        if not gone:
            return role.statements
        out = []
        for statement in role.statements:
            if statement.effect == "Allow":
                wild = [
                    a
                    for a in statement.actions
                    if any(c in a for c in "*?") and any(action_matches(a, g) for g in gone)
                ]
                if wild:
                    raise ValueError(
                        f"cannot revoke {sorted(gone)} from {role.name}: granted by wildcard {wild}"
                    )
                kept = tuple(a for a in statement.actions if a.lower() not in {g.lower() for g in gone})
                if not kept:
                    continue
                out.append(dataclasses.replace(statement, actions=kept))
                continue
            out.append(statement)
        return tuple(out)

    def credentials_for(self, role: Role) -> dict[str, str]:
        """The environment a function of this role runs with (as Lambda sets it): its role's keys."""
        key = _key_id(role)
        with self._lock:
            self._by_key[key] = role
            self._by_function[role.function_arn] = role
        return {
            "AWS_ACCESS_KEY_ID": key,
            "AWS_SECRET_ACCESS_KEY": f"secret-{key.lower()}",
            "AWS_SESSION_TOKEN": f"session-{key.lower()}",
        }

    def role_of(self, key: str) -> Role | None:
        with self._lock:
            return self._by_key.get(key)

    @contextmanager
    def acting_as(self, role: Role) -> Iterator[dict[str, str]]:
        """boto3 in this process signs as `role` inside the block (nested and concurrent blocks of the same
        role share it; another role at the same time is an error, the environment being process-wide)."""
        credentials = self.credentials_for(role)
        with self._lock:
            if self._acting and self._acting[0] != role:
                raise RuntimeError(f"already acting as {self._acting[0].name}; cannot act as {role.name} too")
            if not self._acting:
                saved = {key: os.environ.get(key) for key in credentials}
                os.environ.update(credentials)
                reset_cached_clients()
                self._acting[:] = [role, 0, saved]
            self._acting[1] += 1
        try:
            yield credentials
        finally:
            with self._lock:
                self._acting[1] -= 1
                if self._acting[1] == 0:
                    for key, value in self._acting[2].items():
                        if value is None:
                            os.environ.pop(key, None)
                        else:
                            os.environ[key] = value
                    self._acting.clear()
                    reset_cached_clients()

    # ------------------------------------------------------------------------------------- authorising

    def gate(
        self,
        route: protocol.Route,
        headers: dict[str, str],
        params: dict[str, Any],
        forward: Callable[[bytes], protocol.Response],
    ) -> protocol.Response | None:
        """The response when IAM decides the request's outcome; None to serve it as usual."""
        if not self.enabled:
            return None
        key = access_key_of(headers.get("authorization", ""))
        if key in (None, DEFAULT_KEY):
            return None
        role = self.role_of(key or "")
        if role is None and moto_key_account(key or "") is not None:
            return None  # a key the test assumed through moto to seed another account: unrestricted
        if role is None:
            return protocol.error_response(
                route,
                ServiceError(
                    "UnrecognizedClientException",
                    "The security token included in the request is invalid.",
                    403,
                ),
            )
        where = Where(route.region, role.account, role_paths=_role_paths(route.service, params, role.account))
        try:
            asked = requests_for(route.service, route.operation_name, params, where)
        except (CannotAuthorize, LookupError) as error:
            log.error("IAM mode cannot authorise %s:%s: %s", route.service, route.operation_name, error)
            return protocol.error_response(route, ServiceError("InternalFailure", f"IAM mode: {error}", 500))
        if route.service == "events" and route.operation_name == "PutEvents":
            return self._put_events(route, role, self.statements_of(role), params, asked, forward)
        statements = self.statements_of(role)
        boundary = self.boundary_of(role)
        for request in asked:
            decision = evaluate_bounded(statements, boundary, request)
            if not decision.allowed:
                return protocol.error_response(route, self._denied(role, request, decision, route))
        if route.service == "sts" and route.operation_name == "AssumeRole":
            return self._assume_role(route, role, params, asked[0], forward)
        with self._lock:
            self.allowed[f"{role.name} {asked[0].action}"] += 1
        if route.service == "lambda" and route.operation_name == "Invoke":
            return self._invoke(route, role, params, asked[0].resources[0])
        return None

    def _denied(
        self, role: Role, request: Request, decision: Decision, route: protocol.Route
    ) -> ServiceError:
        message = denial_message(role.session_arn(role.account), request, decision)
        self.denials.append(
            Denial(role.name, request.action, decision.resource, decision.explicit_deny, message)
        )
        log.warning("IAM mode denied: %s", message)
        # awsJson services answer 400; rest-json and query services 403.
        status = 400 if route.protocol == "json" else 403
        return ServiceError("AccessDeniedException", message, status)

    def _assume_role(
        self,
        route: protocol.Route,
        caller: Role,
        params: dict[str, Any],
        request: Request,
        forward: Callable[[bytes], protocol.Response],
    ) -> protocol.Response:
        """The trust side of AssumeRole (the caller's own policy allowed it); moto issues the keys."""
        role_arn = str(params["RoleArn"])
        target = self._assumable.get(role_arn)
        external_id = params.get("ExternalId")
        decision = (
            trust_decision(
                target.trust, role_arn, caller.arn, None if external_id is None else str(external_id)
            )
            if target is not None
            else Decision(False, resource=role_arn)
        )
        if not decision.allowed:
            message = (
                f"User: {caller.session_arn(caller.account)} is not authorized to perform: sts:AssumeRole on "
                f"resource: {role_arn}"
            )
            self.denials.append(
                Denial(caller.name, request.action, role_arn, decision.explicit_deny, message)
            )
            log.warning("IAM mode denied: %s (the role's trust policy)", message)
            return protocol.error_response(route, ServiceError("AccessDenied", message, 403))
        assert target is not None
        body = urlencode({key: str(value) for key, value in params.items()}) + "&Action=AssumeRole"
        answer = forward((body + "&Version=2011-06-15").encode())
        found = re.search(rb"<AccessKeyId>([^<]+)</AccessKeyId>", answer.body)
        if answer.status < 400 and found:
            session = dataclasses.replace(target.role, function_name=str(params.get("RoleSessionName", "")))
            with self._lock:
                self._by_key[found.group(1).decode()] = session
                self.allowed[f"{caller.name} {request.action}"] += 1
        return answer

    def _put_events(
        self,
        route: protocol.Route,
        role: Role,
        statements: tuple[Statement, ...],
        params: dict[str, Any],
        asked: list[Request],
        forward: Callable[[bytes], protocol.Response],
    ) -> protocol.Response | None:
        results: list[dict[str, str] | None] = []
        boundary = self.boundary_of(role)
        for request in asked:
            decision = evaluate_bounded(statements, boundary, request)
            if decision.allowed:
                with self._lock:
                    self.allowed[f"{role.name} {request.action}"] += 1
                results.append(None)
                continue
            if (
                not decision.explicit_deny
                and not evaluate_bounded(statements, boundary, request, False).allowed
            ):
                # Nothing grants PutEvents on this bus at all: the whole request is refused.
                return protocol.error_response(route, self._denied(role, request, decision, route))
            denial = self._denied(role, request, decision, route)
            if decision.explicit_deny:
                results.append({"ErrorCode": "AccessDeniedException", "ErrorMessage": denial.message})
            else:
                results.append(
                    {
                        "ErrorCode": "NotAuthorizedForSourceException",
                        "ErrorMessage": "Not authorized for the source.",
                    }
                )
        if all(result is None for result in results):
            return None
        entries = params.get("Entries", [])
        allowed = [entry for entry, result in zip(entries, results, strict=True) if result is None]
        accepted: list[dict[str, Any]] = []
        if allowed:
            body = {**_wire_put_events(params), "Entries": [_wire_entry(e) for e in allowed]}
            answer = forward(json.dumps(body).encode())
            if answer.status >= 400:
                return answer
            accepted = list(json.loads(answer.body).get("Entries", []))
        merged: list[dict[str, Any]] = []
        for result in results:
            merged.append(accepted.pop(0) if result is None else result)
        failed = sum(1 for entry in merged if entry.get("ErrorCode"))
        return protocol.result_response(route, {"FailedEntryCount": failed, "Entries": merged})

    def _invoke(
        self, route: protocol.Route, caller: Role, params: dict[str, Any], function_arn: str
    ) -> protocol.Response | None:
        target = self._by_function.get(function_arn)
        if target is None:
            return None  # not a function of the deployment: moto answers (ResourceNotFound)
        kind = params.get("InvocationType", "RequestResponse")
        if kind == "DryRun":
            return protocol.result_response(route, {"StatusCode": 204})
        if kind != "Event":
            return protocol.error_response(
                route,
                ServiceError(
                    "InternalFailure", "IAM mode runs deployed functions asynchronously only (Event)", 500
                ),
            )
        payload = params.get("Payload") or b"{}"
        event = json.loads(payload.decode() if isinstance(payload, bytes | bytearray) else payload)
        with self._lock:
            self.pending.append(Invocation(target, event, caller.name))
        return protocol.result_response(route, {"StatusCode": 202})

    # ---------------------------------------------------------------------------------- running functions

    def run_pending(self, context_factory: Callable[[Role], Any] | None = None) -> list[Any]:
        """Run the queued asynchronous invocations, each under its function's role, until none is left
        (a follow-up may queue another). Returns each run's result, or the exception it raised."""
        outcomes: list[Any] = []
        while True:
            with self._lock:
                if not self.pending:
                    return outcomes
                invocation = self.pending.pop(0)
            outcomes.append(self.run(invocation.role, invocation.event, context_factory))

    def run(
        self, role: Role, event: dict[str, Any], context_factory: Callable[[Role], Any] | None = None
    ) -> Any:
        """Run the role's function handler on `event` as Lambda would: under its role's credentials."""
        module_name, _, function = role.handler.rpartition(".")
        handler = getattr(importlib.import_module(module_name), function)
        context = context_factory(role) if context_factory else LambdaContext(role)
        with self.acting_as(role):
            try:
                return handler(event, context)
            except Exception as error:  # Lambda records the failure; the caller decides what it means
                return error


class LambdaContext:
    """What the handlers read from Lambda's context object, for a function of the deployment."""

    memory_limit_in_mb = 1024
    aws_request_id = "00000000-0000-4000-8000-00000000f011"

    def __init__(self, role: Role, remaining_ms: int = 900_000) -> None:
        self.function_name = role.function_name
        self.invoked_function_arn = role.function_arn
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def _role_paths(service: str, params: dict[str, Any], account: str) -> dict[str, str]:
    """The path of the IAM role an IAM request names, from moto's IAM (absent: no path)."""
    name = params.get("RoleName") if service == "iam" else None
    if not name:
        return {}
    from moto.iam.models import iam_backends

    try:
        return {str(name): str(iam_backends[account]["aws"].get_role(str(name)).path)}
    except Exception:  # moto's NotFoundException: the request then fails there, authorised as pathless
        return {}


def _wire_entry(entry: dict[str, Any]) -> dict[str, Any]:
    out = dict(entry)
    if "Time" in out and hasattr(out["Time"], "timestamp"):
        out["Time"] = out["Time"].timestamp()
    return out


def _wire_put_events(params: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in params.items() if key != "Entries"}
