"""Amazon MSK's GetBootstrapBrokers (moto lacks it), for clusters registered from Python."""

from __future__ import annotations

import re
import threading
from typing import Any

from local.standins.errors import ServiceError

# set_brokers keyword -> GetBootstrapBrokers output member (botocore kafka model).
MEMBERS = {
    "plaintext": "BootstrapBrokerString",
    "tls": "BootstrapBrokerStringTls",
    "sasl_scram": "BootstrapBrokerStringSaslScram",
    "sasl_iam": "BootstrapBrokerStringSaslIam",
    "public_tls": "BootstrapBrokerStringPublicTls",
    "public_sasl_scram": "BootstrapBrokerStringPublicSaslScram",
    "public_sasl_iam": "BootstrapBrokerStringPublicSaslIam",
    "vpc_connectivity_tls": "BootstrapBrokerStringVpcConnectivityTls",
    "vpc_connectivity_sasl_scram": "BootstrapBrokerStringVpcConnectivitySaslScram",
    "vpc_connectivity_sasl_iam": "BootstrapBrokerStringVpcConnectivitySaslIam",
}
_CLUSTER_ARN = re.compile(r"arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster/[^/]+/[^/]+")
_BROKER_LIST = re.compile(r"[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*")


class KafkaBrokers:
    def __init__(self) -> None:
        self._clusters: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def set_brokers(self, cluster_arn: str, **strings: str | None) -> None:
        """Register a cluster's bootstrap strings, e.g. `set_brokers(arn, sasl_iam="b-1.x:9098,b-2.x:9098")`;
        keywords are the keys of MEMBERS, values comma-separated host:port lists."""
        if not _CLUSTER_ARN.fullmatch(cluster_arn):
            raise ValueError(f"not an MSK cluster ARN: {cluster_arn!r}")
        unknown = set(strings) - set(MEMBERS)
        if unknown:
            raise ValueError(
                f"unknown bootstrap string kinds {sorted(unknown)}; expected some of {sorted(MEMBERS)}"
            )
        given = {MEMBERS[kind]: value for kind, value in strings.items() if value is not None}
        if not given:
            raise ValueError("give at least one bootstrap string")
        for member, value in given.items():
            if not _BROKER_LIST.fullmatch(value):
                raise ValueError(f"{member} must be comma-separated host:port pairs, got {value!r}")
        with self._lock:
            self._clusters[cluster_arn] = given

    def reset(self) -> None:
        with self._lock:
            self._clusters.clear()

    def knows(self, cluster_arn: str, account: str | None = None) -> bool:
        """Whether the cluster is registered (in `account`, the caller's, when given)."""
        with self._lock:
            known = cluster_arn in self._clusters
        return known and (account is None or cluster_arn.split(":")[4:5] == [account])

    def handle(self, operation: str, params: dict[str, Any], account: str | None = None) -> dict[str, Any]:
        """`account` is the caller's: a cluster is found only in its own account (its ARN's)."""
        if operation != "GetBootstrapBrokers":
            raise NotImplementedError(operation)
        arn = params["ClusterArn"]
        with self._lock:
            found = self._clusters.get(arn)
        if account is not None and arn.split(":")[4:5] != [account]:
            found = None
        if found is None:
            raise ServiceError("NotFoundException", f"The specified cluster was not found: {arn}", 404)
        return dict(found)
