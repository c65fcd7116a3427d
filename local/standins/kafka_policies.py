"""Amazon MSK cluster policies: PutClusterPolicy, GetClusterPolicy, DeleteClusterPolicy, for the clusters the
stand-ins know (registered with `aws.kafka.set_brokers`, or created in moto's MSK).

moto 5.2.5 keeps cluster policies, but only for its own clusters (whose ARNs lack the cluster name), answers
an empty policy where one is absent, and takes any policy text. Here:
- `CurrentVersion` is optimistic concurrency: a Put that names a version other than the policy's (or names
  one when the cluster has no policy) is refused with BadRequestException, the only client error the model
  lists for PutClusterPolicy. A Put without it on a cluster that has a policy follows the reading
  `cluster_policy_put_unversioned`; Get on a cluster without a policy, `cluster_policy_absent`.
- The policy must be a JSON policy document (an object with a Statement) of at most 20 KB (20,480 bytes,
  whitespace counted: the stricter reading of "20 KB").
- `race(cluster_arn)` is the fault hook for the race a read-modify-write meets: right after the next
  GetClusterPolicy of the cluster answers, another writer puts a policy, so the version the caller read is
  stale by the time its Put arrives.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from local.standins.errors import ServiceError
from local.standins.readings import Readings

MAX_POLICY_BYTES = 20 * 1024


def bad_request(message: str) -> ServiceError:
    return ServiceError("BadRequestException", message, 400)


def not_found(message: str) -> ServiceError:
    return ServiceError("NotFoundException", message, 404)


@dataclass
class _Stored:
    policy: str
    version: str


@dataclass
class _Race:
    cluster_arn: str
    policy: str | None  # what the other writer puts (None: the same document again)
    remaining: int


class ClusterPolicies:
    OPERATIONS = frozenset({"PutClusterPolicy", "GetClusterPolicy", "DeleteClusterPolicy"})

    def __init__(self, readings: Callable[[], Readings], knows: Callable[[str, str | None], bool]) -> None:
        self._readings = readings
        self._knows = knows
        self._policies: dict[str, _Stored] = {}
        self._races: list[_Race] = []
        self._writes = 0
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._policies.clear()
            self._races.clear()

    def race(self, cluster_arn: str, policy: str | None = None, times: int = 1) -> None:
        """After each of the next `times` GetClusterPolicy answers for the cluster, another writer puts
        `policy` (default: the document it holds), moving the version the caller just read."""
        if times < 1:
            raise ValueError("times must be >= 1")
        with self._lock:
            self._races.append(_Race(cluster_arn, policy, times))

    def policy_of(self, cluster_arn: str) -> dict[str, Any] | None:
        """The cluster's policy document, parsed (tests and the demo), or None."""
        with self._lock:
            stored = self._policies.get(cluster_arn)
        return None if stored is None else dict(json.loads(stored.policy))

    def handle(self, operation: str, params: dict[str, Any], account: str | None = None) -> dict[str, Any]:
        arn = str(params["ClusterArn"])
        known = self._knows(arn, account)
        with self._lock:
            if operation == "PutClusterPolicy":
                if not known:
                    raise bad_request(f"The specified cluster was not found: {arn}")
                return self._put(arn, params)
            if not known:
                raise not_found(f"The specified cluster was not found: {arn}")
            if operation == "GetClusterPolicy":
                return self._get(arn)
            if operation == "DeleteClusterPolicy":
                if self._policies.pop(arn, None) is None:
                    raise not_found(f"The cluster {arn} has no cluster policy")
                return {}
        raise NotImplementedError(operation)

    def _new_version(self, arn: str) -> str:
        # MSK's versions are opaque upper-case strings (like a cluster's CurrentVersion, "K3AEGXETSR30VB").
        self._writes += 1
        digest = hashlib.sha256(f"{arn}#{self._writes}".encode()).hexdigest().upper()
        return "K" + digest[:13]

    def _put(self, arn: str, params: dict[str, Any]) -> dict[str, Any]:
        policy = str(params["Policy"])
        size = len(policy.encode("utf-8"))
        if size > MAX_POLICY_BYTES:
            raise bad_request(
                f"The cluster policy is {size} bytes; a cluster policy can be at most {MAX_POLICY_BYTES}"
            )
        try:
            document = json.loads(policy)
        except ValueError:
            raise bad_request("The cluster policy is not valid JSON") from None
        if not isinstance(document, dict) or "Statement" not in document:
            raise bad_request("The cluster policy must be a policy document with a Statement")
        stored = self._policies.get(arn)
        given = params.get("CurrentVersion")
        if stored is None and given:
            raise bad_request(f"The cluster {arn} has no cluster policy; version {given} is not current")
        if (
            stored is not None
            and given is None
            and self._readings().cluster_policy_put_unversioned != ("overwrites")
        ):
            raise bad_request(
                f"The cluster {arn} has a cluster policy: give its CurrentVersion to replace it"
            )
        if stored is not None and given is not None and given != stored.version:
            raise bad_request(
                f"The cluster policy version {given} is not the current version {stored.version}"
            )
        version = self._new_version(arn)
        self._policies[arn] = _Stored(policy, version)
        return {"CurrentVersion": version}

    def _get(self, arn: str) -> dict[str, Any]:
        stored = self._policies.get(arn)
        if stored is None:
            if self._readings().cluster_policy_absent == "empty":
                answer: dict[str, Any] = {}
            else:
                raise not_found(f"The cluster {arn} has no cluster policy")
        else:
            answer = {"CurrentVersion": stored.version, "Policy": stored.policy}
        self._run_race(arn)
        return answer

    def _run_race(self, arn: str) -> None:
        race = next((r for r in self._races if r.cluster_arn == arn and r.remaining > 0), None)
        if race is None:
            return
        race.remaining -= 1
        self._races = [r for r in self._races if r.remaining > 0]
        current = self._policies.get(arn)
        policy = race.policy or (current.policy if current else '{"Version":"2012-10-17","Statement":[]}')
        self._policies[arn] = _Stored(policy, self._new_version(arn))
