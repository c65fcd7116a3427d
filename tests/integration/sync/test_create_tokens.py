"""CreateAsset tokens derive from the content: a retry with changed content is never a replay of the first."""

from __future__ import annotations

import json

import pytest

from local import world
from tests.integration.sync.conftest import AVRO_VALUE, CdcWorld


def v2() -> str:
    schema = json.loads(AVRO_VALUE)
    schema["fields"].append({"name": "email", "type": ["null", "string"], "default": None})
    return json.dumps(schema)


@pytest.mark.parametrize("replays", [False, True], ids=["token-reuse-conflicts", "token-reuse-replays"])
def test_a_create_retried_with_changed_content_ends_with_the_new_content(
    cdc: CdcWorld, replays: bool
) -> None:
    # Given DataZone answers a reused clientToken with a conflict, or (the pessimistic reading) replays the
    # first answer; and a CreateAsset that was applied while every answer to it was lost
    cdc.aws.set_readings(client_token_replays_changed_request=replays)
    cdc.register("orders")
    cdc.aws.faults.add(service="datazone", operation="CreateAsset", kind="lost_response", times=20)
    with pytest.raises(Exception, match="failed"):
        cdc.sync()
    cdc.aws.faults.clear()

    # When the schema gets a new version before the retry, and the sync runs again
    cdc.register("orders", v2())
    result = cdc.sync()

    # Then the retry was a different request (a conflict on the external identifier, then an adoption),
    # and the one asset carries the new version, not the first request's content
    assert result["adopted"] == 1
    assets = cdc.assets()
    assert [asset.external_identifier for asset in assets] == [world.schema_arn("cdc", "orders")]
    assert assets[0].forms["KafkaSchemaFormType"]["schema_version"] == "2"
    assert cdc.sync()["updated"] == 0
