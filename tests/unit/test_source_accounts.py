"""Sources in other accounts: their settings, their keys, the assumed-role sessions a run reads them with."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kafka_lineage.aws.sessions import SourceSessions, session_name
from kafka_lineage.config import ConfigError, Settings, Source
from kafka_lineage.model.failures import SourceRoleUnavailable
from kafka_lineage.sync.requests import SchemaRef, parse_sync_event
from tests.fixtures import REPO
from tests.unit.fake_clients import FakeClients, aws_error

OWN = "123456789012"
SOURCE = "444455556666"
OTHER = "777788889999"


def entry(account: str = SOURCE, **extra: Any) -> dict[str, Any]:
    return {
        "registryName": "cdc",
        "clusterArn": f"arn:aws:kafka:eu-west-1:{account}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2",
        "roleArn": f"arn:aws:iam::{account}:role/kafka-lineage-source-reader",
        "externalId": "ext-4c1d9e",
        **extra,
    }


def own(**extra: Any) -> dict[str, Any]:
    return {"registryName": "cdc", "clusterArn": entry(OWN)["clusterArn"], **extra}


def settings(*sources: dict[str, Any]) -> Settings:
    return Settings.from_environment(
        {
            "DOMAIN_ID": "dzd_abc123",
            "PROJECT_ID": "prj123",
            "MAPPING_PATH": "/kafka-lineage",
            "SOURCES": json.dumps(list(sources)),
        }
    )


# ------------------------------------------------------------------------------------------------ settings


def test_a_source_with_a_role_is_keyed_by_its_account_and_one_without_by_its_registry_name():
    configured = settings(own(), entry(), entry(OTHER))
    assert [s.key for s in configured.sources] == ["cdc", f"{SOURCE}:cdc", f"{OTHER}:cdc"]
    assert configured.source(f"{SOURCE}:cdc") is configured.sources[1]
    assert configured.source("cdc") is configured.sources[0]


def test_the_same_registry_twice_in_one_account_is_rejected():
    with pytest.raises(ConfigError, match=f"SOURCES: .*same account.*{SOURCE}:cdc"):
        settings(entry(), entry(externalId="another-id"))
    with pytest.raises(ConfigError, match="same account"):
        settings(own(), own())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"roleArn": "arn:aws:iam::444455556666:user/reader"}, "roleArn"),
        ({"roleArn": "arn:aws:iam::4444:role/x"}, "roleArn"),
        ({"roleArn": "arn:aws:iam::444455556666:role/" + "r" * 65}, "roleArn"),
        ({"externalId": "x"}, "externalId"),  # STS: at least 2 characters
        ({"externalId": "e" * 1225}, "externalId"),  # ... at most 1,224
        ({"externalId": "has space"}, "externalId"),  # ... of [\w+=,.@:/-]
        ({"roleArn": "arn:aws:iam::777788889999:role/reader"}, "clusterArn in 444455556666"),
    ],
)
def test_a_malformed_role_or_external_id_fails_naming_the_setting(change: dict[str, Any], message: str):
    with pytest.raises(ConfigError, match=message):
        settings(entry(**change))


def test_an_external_id_without_a_role_is_rejected():
    with pytest.raises(ConfigError, match="externalId is given without roleArn"):
        settings(own(externalId="ext-4c1d9e"))


def test_the_widest_valid_values_are_accepted_and_survive_the_environment_round_trip():
    wide = entry(
        roleArn="arn:aws:iam::444455556666:role/team/data/" + "r" * 64,
        externalId="a" * 1224,
    )
    configured = settings(wide)
    again = Settings.from_environment(configured.to_environment())
    assert again.sources[0].role_arn == wide["roleArn"]
    assert again.sources[0].external_id == wide["externalId"]


def test_an_account_and_registry_name_their_source_and_an_unconfigured_pair_in_a_source_account_none():
    configured = settings(own(), entry())
    assert configured.source_key(SOURCE, "cdc") == f"{SOURCE}:cdc"
    assert configured.source_key(OWN, "cdc") == "cdc"
    # A source account's registry no source names: a key no source has (reported, never read elsewhere)
    assert configured.source_key(SOURCE, "orders") == f"{SOURCE}:orders"
    assert configured.source(configured.source_key(SOURCE, "orders")) is None


def test_a_forwarded_event_and_a_schema_arn_of_a_source_account_name_that_source():
    configured = settings(own(), entry())
    event = json.loads((REPO / "tests/events/glue_register_schema_version_source_account.json").read_text())
    request = parse_sync_event(event, configured.source_key)
    assert request.schemas == (SchemaRef(f"{SOURCE}:cdc", "dbserver1.inventory.customers"),)
    arn = f"arn:aws:glue:eu-west-1:{SOURCE}:schema/cdc/orders"
    assert parse_sync_event({"schemaArns": [arn]}, configured.source_key).schemas == (
        SchemaRef(f"{SOURCE}:cdc", "orders"),
    )
    # The same event from the functions' own account names the own source
    event["account"] = OWN
    assert parse_sync_event(event, configured.source_key).schemas[0].registry_name == "cdc"


# ------------------------------------------------------------------------------------------------ sessions


class FakeSts:
    """STS AssumeRole answering the given expiries in turn (or an error)."""

    def __init__(self, *expiries: timedelta, error: str | None = None) -> None:
        self.expiries = list(expiries)
        self.error = error
        self.requests: list[dict[str, Any]] = []

    def assume_role(self, **request: Any) -> dict[str, Any]:
        self.requests.append(request)
        if self.error:
            raise aws_error(self.error, "not authorized", "AssumeRole")
        n = len(self.requests)
        return {
            "Credentials": {
                "AccessKeyId": f"ASIAEXAMPLE{n:05d}",
                "SecretAccessKey": f"secret{n}",
                "SessionToken": f"token{n}",
                "Expiration": datetime.now(UTC) + self.expiries.pop(0),
            }
        }


@pytest.fixture
def sts() -> FakeSts:
    return FakeSts(timedelta(minutes=5), timedelta(hours=1))


def test_the_role_is_assumed_only_when_first_used_with_the_external_id_and_a_session_naming_the_function(
    sts: FakeSts,
):
    configured = settings(entry())
    runs = SourceSessions(configured, "KafkaLineage-SchemaSyncFunction-AbC123", FakeClients(sts=sts))
    credentials = runs.credentials(configured.sources[0])
    assert sts.requests == []  # deferred: nothing until a request is signed
    assert credentials.get_frozen_credentials().access_key == "ASIAEXAMPLE00001"
    assert sts.requests == [
        {
            "RoleArn": f"arn:aws:iam::{SOURCE}:role/kafka-lineage-source-reader",
            "RoleSessionName": "KafkaLineage-SchemaSyncFunction-AbC123",
            "DurationSeconds": 3600,
            "ExternalId": "ext-4c1d9e",
        }
    ]


def test_credentials_near_their_expiry_are_refreshed_before_use_and_kept_otherwise(sts: FakeSts):
    # Given a first session that expires in 5 minutes (inside botocore's mandatory refresh window)
    configured = settings(entry())
    runs = SourceSessions(configured, "schema-sync", FakeClients(sts=sts))
    credentials = runs.credentials(configured.sources[0])
    assert credentials.get_frozen_credentials().access_key == "ASIAEXAMPLE00001"
    # When the next request signs, then the role is assumed again first; the fresh hour-long keys are kept
    assert credentials.get_frozen_credentials().access_key == "ASIAEXAMPLE00002"
    assert credentials.get_frozen_credentials().access_key == "ASIAEXAMPLE00002"
    assert len(sts.requests) == 2


def test_one_session_per_source_per_run(sts: FakeSts):
    configured = settings(entry())
    runs = SourceSessions(configured, "schema-sync", FakeClients(sts=sts))
    source = configured.sources[0]
    assert runs.client(source, "glue") is runs.client(source, "glue")
    assert runs.credentials(source) is runs.credentials(source)


def test_a_source_without_a_role_uses_the_wirings_own_clients():
    # Given the wiring's clients and a source without a role
    clients = FakeClients(glue="the wiring's glue")
    configured = settings(own())
    # When the run asks for the source's Glue client, then it is the wiring's
    assert SourceSessions(configured, "schema-sync", clients).client(configured.sources[0], "glue") == (
        "the wiring's glue"
    )
    assert clients.asked == ["glue"]


def test_a_role_that_cannot_be_assumed_fails_that_source_clearly_and_sts_is_asked_once():
    fake = FakeSts(error="AccessDenied")
    configured = settings(entry())
    runs = SourceSessions(configured, "schema-sync", FakeClients(sts=fake))
    source = configured.sources[0]
    for _ in range(3):
        with pytest.raises(SourceRoleUnavailable) as raised:
            runs.credentials(source).get_frozen_credentials()
        message = str(raised.value)
        assert message.startswith(f"source {SOURCE}:cdc: cannot assume role arn:aws:iam::{SOURCE}:role/")
        assert "AccessDenied: not authorized" in message
    assert len(fake.requests) == 1
    assert runs.failure(source.key) == message


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        ("schema-sync", "schema-sync"),
        ("a" * 70, "a" * 64),
        ("my function/with:odd#chars", "my-function-with-odd-chars"),
        ("", "kafka-lineage"),
        ("x", "kafka-lineage"),
    ],
)
def test_the_session_name_is_a_valid_role_session_name(function: str, expected: str):
    assert session_name(function) == expected


def test_source_keys_are_what_the_lineage_request_and_the_mapping_accept():
    from kafka_lineage.lineage.requests import parse_emit_event
    from kafka_lineage.lineage.resolve import parse_mappings
    from kafka_lineage.model.table_mapping import MappingParameter

    scope = parse_emit_event({"topics": [{"registryName": f"{SOURCE}:cdc", "topic": "orders"}]})
    assert scope.topics[0].registry_name == f"{SOURCE}:cdc"
    value = json.dumps({"topic": "orders", "database": "db", "table": "t", "registryName": f"{SOURCE}:cdc"})
    mappings, invalid = parse_mappings([MappingParameter("/p/table-mappings/x", value)], "/p/table-mappings")
    assert invalid == []
    assert mappings[0].registry_name == f"{SOURCE}:cdc"
    with pytest.raises(Exception, match="account"):
        parse_emit_event({"topics": [{"registryName": "12:cdc", "topic": "orders"}]})


def test_a_sources_account_is_its_roles_account():
    source = Source.model_validate(entry())
    assert source.role_account == SOURCE
    assert source.account == SOURCE
