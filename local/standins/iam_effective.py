"""What an IAM role in moto's IAM may do: its inline policies, the default versions of its attached managed
policies, and its permissions boundary, evaluated as IAM does (iam_policy.evaluate_bounded).

For tests of a grant's effect: "the consumer's role may now read this topic, and nothing else". moto has
no SimulatePrincipalPolicy; this reads the state moto keeps. AWS managed policies moto does not load
(most are not) are unknown here: a role attached to one is refused loudly rather than judged without it.

    decide(account, "orders-consumer", "kafka-cluster:ReadData", topic_arn).allowed
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from local.standins.iam_policy import (
    Decision,
    PolicyError,
    Request,
    Statement,
    evaluate_bounded,
    parse_policy,
)


def _document(text: Any) -> dict[str, Any]:
    if isinstance(text, Mapping):
        return dict(text)
    raw = str(text)
    try:
        return dict(json.loads(raw))
    except ValueError:
        return dict(json.loads(unquote(raw)))  # moto may keep a document as it arrived, URL-encoded


def _managed(backend: Any, arn: str) -> tuple[Statement, ...]:
    policy = backend.managed_policies.get(arn)
    if policy is None:
        raise PolicyError(f"managed policy {arn} is not in moto's IAM; cannot evaluate a role that uses it")
    [version] = [v for v in policy.versions if v.version_id == policy.default_version_id]
    return parse_policy(_document(version.document))


def role_policies(account: str, role_name: str) -> tuple[tuple[Statement, ...], tuple[Statement, ...] | None]:
    """(identity statements, boundary statements or None) of a role in moto's IAM."""
    from moto.iam.models import iam_backends

    backend = iam_backends[account]["aws"]
    role = backend.get_role(role_name)
    statements: list[Statement] = []
    for document in role.policies.values():
        statements.extend(parse_policy(_document(document)))
    for arn in role.managed_policies:
        statements.extend(_managed(backend, arn))
    boundary_arn = role.permissions_boundary_arn
    boundary = _managed(backend, boundary_arn) if boundary_arn else None
    return tuple(statements), boundary


def decide(
    account: str,
    role_name: str,
    action: str,
    *resources: str,
    context: Mapping[str, tuple[str, ...]] | None = None,
) -> Decision:
    """IAM's decision for the role asking `action` on `resources` (default "*")."""
    statements, boundary = role_policies(account, role_name)
    return evaluate_bounded(statements, boundary, Request(action, resources or ("*",), dict(context or {})))
