"""The subscription-grants settings, the consumer-account role setting, the quotas of the grant calls, and
the request parser's shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_lineage.access.reconcile import reconcile
from kafka_lineage.access.settings import AccessSettings, AccessSettingsError
from kafka_lineage.config import ConfigError
from kafka_lineage.grants.requests import parse_request
from kafka_lineage.grants.settings import GrantSettings
from kafka_lineage.model.quotas import quota_of

EVENTS = Path(__file__).resolve().parents[2] / "events"


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"MAPPING_PATH": "/kafka-lineage"}, "DOMAIN_ID"),
        ({"DOMAIN_ID": "not-a-domain", "MAPPING_PATH": "/kafka-lineage"}, "DOMAIN_ID"),
        ({"DOMAIN_ID": "dzd_5x7example", "MAPPING_PATH": "/aws/kafka"}, "MAPPING_PATH"),
    ],
)
def test_a_missing_or_malformed_setting_fails_naming_the_variable(
    environ: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        GrantSettings.from_environment(environ)


def test_an_unset_mapping_path_is_the_default_the_stack_leaves_out() -> None:
    # Given only the domain (the stack writes MAPPING_PATH only when it is not the default)
    loaded = GrantSettings.from_environment({"DOMAIN_ID": "dzd_5x7example"})
    # Then the state root is the settings' default
    assert loaded.mapping_path == "/kafka-lineage"


def test_the_settings_read_the_asset_type_and_access() -> None:
    loaded = GrantSettings.from_environment(
        {
            "DOMAIN_ID": "dzd_5x7example",
            "MAPPING_PATH": "/kafka-lineage/",
            "ASSET_TYPE_NAME": "TopicAssetType",
            "ACCESS": json.dumps({"consumerRoles": "arn:aws:iam::111122223333:role/*"}),
        }
    )
    assert (loaded.mapping_path, loaded.asset_type_name, loaded.access_error) == (
        "/kafka-lineage",
        "TopicAssetType",
        None,
    )
    assert loaded.access.admits_role("arn:aws:iam::111122223333:role/reader")


def test_the_consumer_account_role_is_a_template_of_the_account() -> None:
    settings = AccessSettings.parse(
        {
            "consumerAccountRole": "arn:aws:iam::{account}:role/teams/KafkaLineageConsumer",
            "externalId": "x-1:a/b",
        }
    )
    assert (
        settings.account_role("444455556666") == "arn:aws:iam::444455556666:role/teams/KafkaLineageConsumer"
    )
    assert AccessSettings().account_role("444455556666") is None
    with pytest.raises(AccessSettingsError, match=r"access\.consumerAccountRole"):
        AccessSettings.parse({"consumerAccountRole": "arn:aws:iam::444455556666:role/Fixed"})
    with pytest.raises(AccessSettingsError, match=r"access\.externalId"):
        AccessSettings.parse({"externalId": "x"})


def test_the_grant_calls_are_paced_at_the_subscription_quota_and_get_listing_at_20() -> None:
    for operation in (
        "GetSubscriptionGrant",
        "ListSubscriptionGrants",
        "UpdateSubscriptionGrantStatus",
        "GetSubscriptionTarget",
        "GetEnvironment",
    ):
        quota = quota_of("datazone", operation)
        assert quota is not None
        assert quota.per_second == 3.0
        assert not quota.documented
    assert quota_of("datazone", "GetListing").per_second == 20.0  # type: ignore[union-attr]


def test_reconcile_takes_grants_refused_before() -> None:
    from kafka_lineage.access.model import GrantStatus, RoleState
    from tests.unit.access.access_builders import NAMING, ROLE, grant, settings

    pending = grant("orders", status=GrantStatus.GRANT_PENDING)
    result = reconcile(
        [pending], {ROLE: RoleState(ROLE)}, {}, settings(), NAMING, refused_before={pending.key: "no"}
    )
    assert result.decision.refused == {pending.key: "no"}
    assert all(plan.empty for plan in result.decision.plans)


@pytest.mark.parametrize(
    ("name", "reconciles", "events"),
    [
        ("access/subscription_grant_requested.json", False, 1),
        ("access/subscription_grant_revoke_requested.json", False, 1),
        ("access/subscription_grants_sqs.json", False, 1),
        ("lineage_scheduled.json", True, 0),
    ],
)
def test_the_event_fixtures_parse(name: str, reconciles: bool, events: int) -> None:
    request = parse_request(json.loads((EVENTS / name).read_text()))
    assert (request.reconcile, len(request.events), request.malformed) == (reconciles, events, ())


@pytest.mark.parametrize(
    "payload",
    [[], "x", {"dryRun": "yes"}, {"resumeAfter": 5}, {"Records": []}, {"Records": [{"body": "[]"}]}],
)
def test_malformed_payloads_are_reported(payload: object) -> None:
    assert parse_request(payload).malformed
