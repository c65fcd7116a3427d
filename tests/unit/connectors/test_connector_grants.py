"""The lineage role's DescribeConnector resources: as narrow as the sources' connectors settings allow."""

from __future__ import annotations

from typing import Any

from kafka_lineage.config import Source
from stacks.functions import connector_resource_names

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/orders/11111111-2222"


def source(registry: str = "cdc", **extra: Any) -> Source:
    return Source.model_validate({"registryName": registry, "clusterArn": CLUSTER_ARN, **extra})


def test_every_connector_by_default_and_none_when_off():
    assert connector_resource_names([source()]) == ["connector/*/*"]
    assert connector_resource_names([source(connectors="off")]) == []


def test_include_globs_become_the_connector_name_part_of_the_arn():
    sources = [source(connectors={"include": ["cdc-*", "lake-sink"]}), source("erp", connectors="off")]
    assert connector_resource_names(sources) == ["connector/cdc-*/*", "connector/lake-sink/*"]


def test_a_glob_iam_cannot_express_or_an_unrestricted_source_widens_to_every_connector():
    assert connector_resource_names([source(connectors={"include": ["cdc-[ab]"]})]) == ["connector/*/*"]
    assert connector_resource_names([source(connectors={"include": ["x"]}), source("erp")]) == [
        "connector/*/*"
    ]
    # An exclude list cannot narrow an IAM allow: still every connector
    assert connector_resource_names([source(connectors={"exclude": ["x"]})]) == ["connector/*/*"]
