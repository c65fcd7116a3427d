"""`kafka-lineage doctor`'s network check: each cluster whose topics a role of another account may be
granted lets that account's clients reach its brokers.

A grant writes permissions, never connections. A Kafka client in another account than the cluster's reaches
the brokers through MSK multi-VPC private connectivity (MSK developer guide, "Amazon MSK multi-VPC private
connectivity in a single Region"), which the cluster's owner turns on per authentication scheme; the grants'
consumers authenticate with IAM. Its requirements: a provisioned cluster (MSK Serverless has none: its
ConnectivityInfo carries no VpcConnectivity in the kafka service model), Apache Kafka 2.7.1 or later, no
`kafka.t3.small` brokers, the client in the cluster's Region, and IAM access control on the cluster.

Reads: DescribeClusterV2 (`ClusterInfo.Provisioned.BrokerNodeGroupInfo.ConnectivityInfo.VpcConnectivity.
ClientAuthentication.Sasl.Iam.Enabled`), for each source cluster of the caller's account that some role
the function can be granted to (`access.consumerRoles`, reached through `consumerAccountRole` in another
account) lives outside of. A cluster in another account (a source read through its role) is its owner's to
check: the finding gives the command to run there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from kafka_lineage.model.failures import AwsError

from .findings import FAIL, OK, WARN, Finding, Target

CHECK = "network"
MIN_KAFKA = (2, 7, 1)
UNSUPPORTED_INSTANCE = "kafka.t3.small"
VPC_CONNECTIVITY_QUERY = "ClusterInfo.Provisioned.BrokerNodeGroupInfo.ConnectivityInfo.VpcConnectivity"


def grantable_accounts(access: Any, own: str) -> set[str]:
    """The accounts whose roles may be granted topics (`*`: any), as the stack grants the function
    (stacks/grants.py): another account's only through `consumerAccountRole`."""
    accounts = {_account(pattern) for pattern in access.consumer_roles}
    if access.consumer_account_role is None:
        accounts = {own} if accounts & {own, "*"} else set()
    return accounts


def network(clients: Callable[[str], Any], config: Any, target: Target) -> list[Finding]:
    access = config.deployment.access
    if access is None:
        return []
    accounts = grantable_accounts(access, target.account)
    findings: list[Finding] = []
    for cluster in sorted({source.cluster_arn for source in config.settings.sources}):
        owner = cluster.split(":")[4]
        others = sorted(accounts - {owner})
        if not others:
            continue
        # A pattern naming any account may never be used across accounts: to do, not a failure.
        severity = FAIL if [a for a in others if a != "*"] else WARN
        who = "roles of any account" if others == ["*"] else f"roles of account(s) {', '.join(others)}"
        if owner != target.account:
            findings.append(
                Finding(
                    CHECK,
                    WARN,
                    f"{cluster} is in account {owner}, which these credentials do not read: {who} may be "
                    "granted its topics, so its owner checks there that multi-VPC private connectivity is "
                    f"on for IAM: aws kafka describe-cluster-v2 --cluster-arn {cluster} --query "
                    f"'{VPC_CONNECTIVITY_QUERY}'",
                )
            )
            continue
        try:
            info = clients("kafka").describe_cluster_v2(ClusterArn=cluster).get("ClusterInfo") or {}
        except AwsError as error:
            message = f"kafka:{error.operation} on {cluster} failed ({error}): the check cannot tell"
            findings.append(Finding(CHECK, FAIL, message))
            continue
        problem = connectivity_problem(cluster, info)
        if problem is None:
            findings.append(
                Finding(CHECK, OK, f"{cluster}: multi-VPC private connectivity is on for IAM ({who})")
            )
        else:
            findings.append(Finding(CHECK, severity, f"{who} may be granted the topics of {problem}"))
    return findings or [
        Finding(CHECK, OK, "no role of another account than its cluster's may be granted: nothing to reach")
    ]


def connectivity_problem(cluster: str, info: Mapping[str, Any]) -> str | None:
    """Why a client of another account cannot reach the cluster's brokers with IAM, and the fix; None when
    it can."""
    if str(info.get("ClusterType", "")).upper() == "SERVERLESS":
        return (
            f"{cluster}, an MSK Serverless cluster, which has no multi-VPC private connectivity (nor a "
            "cluster policy): grants to them fail; grant roles of the cluster's account, or use a "
            "provisioned cluster"
        )
    provisioned = info.get("Provisioned") or {}
    nodes = provisioned.get("BrokerNodeGroupInfo") or {}
    vpc = (nodes.get("ConnectivityInfo") or {}).get("VpcConnectivity") or {}
    schemes = vpc.get("ClientAuthentication") or {}
    if ((schemes.get("Sasl") or {}).get("Iam") or {}).get("Enabled"):
        return None
    first: list[str] = []
    version = str((provisioned.get("CurrentBrokerSoftwareInfo") or {}).get("KafkaVersion") or "")
    if version and _version(version) < MIN_KAFKA:
        first.append(f"upgrade Apache Kafka {version} to 2.7.1 or later")
    if nodes.get("InstanceType") == UNSUPPORTED_INSTANCE:
        first.append(f"move its brokers off {UNSUPPORTED_INSTANCE}")
    auth = provisioned.get("ClientAuthentication") or {}
    if not ((auth.get("Sasl") or {}).get("Iam") or {}).get("Enabled"):
        first.append("turn on IAM access control on the cluster")
    wanted = json.loads(json.dumps(schemes))  # keep the schemes already on
    wanted.setdefault("Sasl", {})["Iam"] = {"Enabled": True}
    connectivity = json.dumps({"VpcConnectivity": {"ClientAuthentication": wanted}}, separators=(",", ":"))
    fix = (
        f"aws kafka update-connectivity --cluster-arn {cluster} --current-version "
        f"{info.get('CurrentVersion') or '<CurrentVersion>'} --connectivity-info '{connectivity}'"
    )
    before = f"first {', then '.join(first)}; then " if first else ""
    return (
        f"{cluster}, whose multi-VPC private connectivity is not on for IAM, so their clients cannot reach "
        f"its brokers (the grant gives permissions, not a connection): {before}its owner turns it on with: "
        f"{fix}"
    )


def _version(text: str) -> tuple[int, ...]:
    """`3.6.0`, `2.8.2.tiered`, `3.6.0.1` -> its leading numbers."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split(".tiered", maxsplit=1)[0])[:3])


def _account(pattern: str) -> str:
    parts = pattern.split(":")
    return parts[4] if len(parts) > 5 else "*"
