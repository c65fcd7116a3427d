"""Which role subscription-grants reaches a cluster's policy under: its source's `roleArn`, by cluster."""

from __future__ import annotations

import json

from subscription_grants.wiring import cluster_roles, source_roles

SOURCE = "222233334444"
BILLING = f"arn:aws:kafka:eu-west-1:{SOURCE}:cluster/billing.prod-1/abc-1"
CDC = f"arn:aws:kafka:eu-west-1:{SOURCE}:cluster/cdc_2/def-2"


def test_each_cluster_is_reached_through_its_own_sources_role_even_beside_another_in_its_account() -> None:
    # Given two sources in one account, each read through its own role (two source stacks, say)
    sources = [
        {"registryName": "billing", "clusterArn": BILLING, "roleArn": f"arn:aws:iam::{SOURCE}:role/a"},
        {
            "registryName": "cdc",
            "clusterArn": CDC,
            "roleArn": f"arn:aws:iam::{SOURCE}:role/b",
            "externalId": "x-2",
        },
        {"registryName": "local", "clusterArn": "arn:aws:kafka:eu-west-1:123456789012:cluster/l/g-3"},
    ]
    environ = {"SOURCES": json.dumps(sources)}
    # Then each cluster's role is its own source's, with that source's external id
    assert cluster_roles(environ) == {
        BILLING: (f"arn:aws:iam::{SOURCE}:role/a", None),
        CDC: (f"arn:aws:iam::{SOURCE}:role/b", "x-2"),
    }
    # ... and a cluster of that account no entry names falls back to the account's first
    assert source_roles(environ) == {SOURCE: (f"arn:aws:iam::{SOURCE}:role/a", None)}
    assert cluster_roles({"SOURCES": "not json"}) == {}
