"""A stack update that adds the topic form, end to end on the DataZone stand-in (IAM mode), as the drift
form came: the hourly run revises nothing, the next `verify` run moves each asset onto the new asset type
revision exactly once, with its topic form, no asset created, duplicated or losing a revision."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kafka_lineage.sync.topics import TOPIC_FORM_TYPE, TopicListings
from local import world
from local.deployed import DeployedFunctions
from tests.integration.sync.conftest import CdcWorld, EventCatcher
from tests.integration.sync.test_drift_form_migration import NEW_SMITHY, by_topic, deploy

TOPICS = ("orders", "__debezium-heartbeat.dbserver1", "inventory.parts$#v2")


@pytest.fixture
def old_stack(
    local_aws: Any,
    deployed: DeployedFunctions,
    monkeypatch: pytest.MonkeyPatch,
    fast_retries: None,
    tmp_path: Path,
) -> CdcWorld:
    """The stack as deployed before the topic form: three schemas synced, two with a topic on the cluster."""
    old = tmp_path / "smithy"
    shutil.copytree(NEW_SMITHY, old)
    (old / f"{TOPIC_FORM_TYPE}.smithy").unlink()
    spec = json.loads((old / "KafkaTopicAssetType.json").read_text())
    del spec["forms"][TOPIC_FORM_TYPE]
    (old / "KafkaTopicAssetType.json").write_text(json.dumps(spec))
    local_aws.datazone.add_domain(world.DOMAIN_ID, project_ids=[world.PROJECT_ID])
    assert deploy(deployed, old, "Create")["Revision"] == "1"
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    local_aws.kafka.create_topic(world.CLUSTER_ARN, "orders", 6, 3, {"retention.ms": "604800000"})
    local_aws.kafka.create_topic(world.CLUSTER_ARN, TOPICS[1], 1, 3, {"cleanup.policy": "compact,delete"})
    cdc = CdcWorld(local_aws, EventCatcher(), monkeypatch, deployed)
    cdc.configure()
    for topic in TOPICS:
        cdc.register(topic)
    # The functions before this change did not read topics: their records know none
    with pytest.MonkeyPatch.context() as before_topics:
        before_topics.setattr(TopicListings, "enabled", property(lambda self: False))
        assert cdc.sync()["created"] == 3
    assert all(TOPIC_FORM_TYPE not in asset.forms for asset in cdc.assets())
    cdc.events.drain()
    return cdc


def test_verify_moves_every_asset_onto_the_topic_form_once(old_stack: CdcWorld) -> None:
    cdc = old_stack
    before = by_topic(cdc)

    # When the stack is updated to the model with the topic form
    data = deploy(cdc.deployed, NEW_SMITHY, "Update")
    assert data["Revision"] == "2"

    # Then the hourly run stays as cheap as ever: a listing of the topics, nothing revised, nothing described
    cdc.reset_calls()
    hourly = cdc.sync()
    assert (hourly["updated"], hourly["unchanged"]) == (0, 3), hourly
    assert "kafka:DescribeTopic" not in cdc.calls()
    assert "datazone:CreateAssetRevision" not in cdc.calls()

    # When the verify run looks at every schema
    cdc.reset_calls()
    result = cdc.sync({"verify": True})

    # Then each asset is revised exactly once onto the new type revision; none is created or duplicated
    assert (result["created"], result["updated"], result["deleted"], result["failed"]) == (0, 3, 0, []), (
        result
    )
    assert cdc.aws.call_counts("datazone", ok=True)["datazone:CreateAssetRevision"] == 3
    after = by_topic(cdc)
    assert {a.id for a in after.values()} == {a.id for a in before.values()}
    assert len(cdc.assets()) == 3
    for topic, asset in after.items():
        assert int(asset.revision) == int(before[topic].revision) + 1
        assert asset.type_revision == "2"
        assert {name: asset.forms[name] for name in before[topic].forms} == before[topic].forms
    assert after["orders"].forms[TOPIC_FORM_TYPE] == {
        "partitions": 6,
        "replication_factor": 3,
        "retention_ms": 604800000,
    }
    assert after[TOPICS[1]].forms[TOPIC_FORM_TYPE]["cleanup_policy"] == "compact,delete"
    assert TOPIC_FORM_TYPE not in after[TOPICS[2]].forms  # Kafka has no such topic: reported instead
    assert result["withoutTopic"] == [{"registryName": "cdc", "topic": TOPICS[2]}]

    # And a second verify run revises nothing: the migration happens once
    cdc.reset_calls()
    again = cdc.sync({"verify": True})
    assert (again["updated"], again["unchanged"]) == (0, 3), again
    assert "datazone:CreateAssetRevision" not in cdc.calls()
