"""MSK cluster policies for the subscription-grants function (the `ClusterPolicies` port), in the cluster's
own account (`kafka_for(cluster_arn)` gives that account's kafka client).

GetClusterPolicy answers `Policy` (JSON text) and `CurrentVersion`; a cluster with no policy answers
NotFoundException (AWS) or an empty policy (moto): both read as None. PutClusterPolicy takes the
`CurrentVersion` read (none for a first policy), so a policy changed in between is refused rather than
overwritten. How MSK refuses a stale version is not documented (PutClusterPolicy declares only
BadRequestException, ForbiddenException and InternalServerErrorException; moto answers BadRequestException
"Version mismatch"): the pessimistic reading is taken, a BadRequest or Conflict on the put is read as a
possible conflict: the policy is read again, and when its version moved the merge is made again from it and
put again, at most ATTEMPTS times; when the version did not move the refusal is raised as it is.
DescribeClusterV2's `ClusterInfo.ClusterType` says whether a cluster is SERVERLESS (no cluster policy).

Removing our statements never drops a statement written meanwhile: while any other statement remains, the
policy without ours is put with `CurrentVersion` (refused when it moved). Only a policy that would be left
with no statement at all is deleted, and DeleteClusterPolicy takes no version (botocore's kafka model: only
`ClusterArn`), so the version is read again right before the delete, and the delete is made only when it has
not moved since the policy was rendered; otherwise the policy is merged again. What remains is the instant
between that read and the delete, which MSK's API cannot close.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from kafka_lineage.model.failures import Conflict, Invalid, NotFound
from kafka_lineage.observability import logger

ATTEMPTS = 4
_ACCOUNT = re.compile(r"arn:[\w-]+:kafka:[a-z0-9-]+:(\d{12}):")

Rendered = tuple[bool, Mapping[str, Any] | None]


def cluster_account(cluster_arn: str) -> str:
    found = _ACCOUNT.match(cluster_arn)
    if found is None:
        raise ValueError(f"{cluster_arn!r} is not an MSK cluster ARN")
    return found[1]


class ClusterPolicyConflict(Conflict):
    """The cluster policy kept changing under every attempt."""


class ClusterPolicies:
    def __init__(self, kafka_for: Callable[[str], Any]) -> None:
        self._kafka_for = kafka_for

    def serverless(self, cluster_arn: str) -> bool:
        info = (
            self._kafka_for(cluster_arn).describe_cluster_v2(ClusterArn=cluster_arn).get("ClusterInfo") or {}
        )
        return str(info.get("ClusterType", "")).upper() == "SERVERLESS"

    def _get(self, cluster_arn: str) -> tuple[Mapping[str, Any] | None, str | None]:
        try:
            found = self._kafka_for(cluster_arn).get_cluster_policy(ClusterArn=cluster_arn)
        except NotFound:
            return None, None
        text, version = found.get("Policy") or "", found.get("CurrentVersion") or None
        if not text:
            return None, version
        parsed = json.loads(text)
        return (parsed if isinstance(parsed, dict) else None), version

    def read(self, cluster_arn: str) -> Mapping[str, Any] | None:
        return self._get(cluster_arn)[0]

    def update(self, cluster_arn: str, render: Callable[[Mapping[str, Any] | None], Rendered]) -> bool:
        kafka = self._kafka_for(cluster_arn)
        for attempt in range(1, ATTEMPTS + 1):
            current, version = self._get(cluster_arn)
            changed, desired = render(current)
            if not changed:
                return False
            try:
                if desired is None:
                    if self._get(cluster_arn)[1] != version:
                        logger.info(
                            "cluster policy changed before the delete", extra={"clusterArn": cluster_arn}
                        )
                        continue
                    kafka.delete_cluster_policy(ClusterArn=cluster_arn)
                else:
                    asked: dict[str, Any] = {
                        "ClusterArn": cluster_arn,
                        "Policy": json.dumps(desired, separators=(",", ":")),
                    }
                    if version:
                        asked["CurrentVersion"] = version
                    kafka.put_cluster_policy(**asked)
                logger.info("cluster policy written", extra={"clusterArn": cluster_arn, "attempt": attempt})
                return True
            except NotFound:
                if desired is None:
                    return True  # deleted already
                raise
            except (Invalid, Conflict) as error:
                if self._get(cluster_arn)[1] == version or attempt == ATTEMPTS:
                    if attempt == ATTEMPTS:
                        raise ClusterPolicyConflict(
                            "PutClusterPolicy",
                            "Conflict",
                            f"the policy of {cluster_arn} changed under each of {ATTEMPTS} attempts",
                        ) from error
                    raise
                logger.info(
                    "cluster policy changed meanwhile: merged again", extra={"clusterArn": cluster_arn}
                )
        raise ClusterPolicyConflict(
            "DeleteClusterPolicy",
            "Conflict",
            f"the policy of {cluster_arn} changed under each of {ATTEMPTS} attempts",
        )
