"""The subscription-grants run on in-memory fakes: events, the reconciling run, guards, dry runs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.grants.requests import parse_request
from kafka_lineage.grants.result import GrantsResult
from kafka_lineage.grants.run import GrantRun
from kafka_lineage.grants.settings import DEADLINE_MARGIN_SECONDS, GrantSettings
from tests.unit.grants.fakes import ACCOUNT, CLUSTER, DOMAIN, NOW, ROLE, FakeWorld

EVENTS = Path(__file__).resolve().parents[2] / "events" / "access"
FIXTURES = EVENTS
TOPIC = "dbserver1.inventory.customers"


def event(name: str, grant_id: str = "grant0001") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EVENTS / name).read_text())
    if "detail" in loaded:
        loaded["detail"]["metadata"]["id"] = grant_id
    return loaded


def access(**overrides: Any) -> AccessSettings:
    return AccessSettings.parse({"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/*"], **overrides})


def settings(**overrides: Any) -> GrantSettings:
    return GrantSettings(
        **{"domain_id": DOMAIN, "mapping_path": "/kafka-lineage", "access": access(), **overrides}
    )


def run(world: FakeWorld, payload: Any, remaining: float = 900.0, **overrides: Any) -> GrantsResult:
    config = settings(**overrides)
    deadline = Deadline(lambda: remaining, config.deadline_margin_seconds)
    return GrantRun(config, world.ports(), now=lambda: NOW).execute(parse_request(payload), deadline)


def test_a_grant_event_gives_the_role_its_topic_and_reports_granted() -> None:
    # Given a pending grant of one topic to a role without policies
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    # When DataZone's event arrives
    result = run(world, event("subscription_grant_requested.json"))
    # Then the role may read that topic, and the grant moved IN_PROGRESS then GRANTED
    topic_arn = CLUSTER.replace(":cluster/", ":topic/") + f"/{TOPIC}"
    assert topic_arn in world.iam.resources(ROLE)
    assert [u[2] for u in world.datazone.updates] == ["GRANT_IN_PROGRESS", "GRANTED"]
    assert result.to_dict()["counts"]["granted"] == 1
    assert result.granted.items[0]["grantId"] == "grant0001"
    assert world.leases.taken == [ROLE]


def test_one_grant_from_event_to_granted_takes_at_most_12_datazone_and_iam_calls() -> None:
    # Given a pending grant, a role with no policy yet
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    # When the event is handled
    run(world, event("subscription_grant_requested.json"))
    # Then DataZone and IAM saw at most 12 calls (the figure is printed for the report)
    calls = world.datazone.calls + world.iam.calls
    total = sum(calls.values())
    print(f"\none grant, event to GRANTED: {total} DataZone and IAM calls: {dict(sorted(calls.items()))}")
    assert sum(calls.values()) <= 12
    assert calls["UpdateSubscriptionGrantStatus"] == 2
    assert calls["PutRolePolicy"] == 1


def test_a_redelivered_event_writes_nothing() -> None:
    # Given a grant already fulfilled
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    run(world, event("subscription_grant_requested.json"))
    writes, updates = world.iam_writes(), len(world.datazone.updates)
    world.leases.taken.clear()
    # When the same event is delivered again
    result = run(world, event("subscription_grant_requested.json"))
    # Then no IAM write, no status update, no lease
    assert world.iam_writes() == writes
    assert len(world.datazone.updates) == updates
    assert world.leases.taken == []
    assert result.unchanged == 1
    assert result.granted.total == 0


def test_another_domains_event_is_ignored_without_a_call() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    result = run(world, event("subscription_grant_other_domain.json"))
    assert result.ignored.total == 1
    assert "dzd_otherdomain9" in result.ignored.items[0]["reason"]
    assert sum(world.calls().values()) == 0


def test_a_grant_on_another_asset_type_is_ignored_and_writes_nothing() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, asset_type="S3ObjectCollectionAssetType")
    world.iam.add_role(ROLE)
    result = run(world, event("subscription_grant_requested.json"))
    assert result.ignored.total == 1
    assert "KafkaTopicAssetType" in result.ignored.items[0]["reason"]
    assert world.iam_writes() == 0
    assert world.datazone.updates == []


def test_an_sqs_record_wrapping_the_event_is_fulfilled_too() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    result = run(world, json.loads((EVENTS / "subscription_grants_sqs.json").read_text()))
    assert result.granted.total == 1
    assert world.datazone.status_of("grant0001") == "GRANTED"


def test_a_revoke_keeps_what_another_grant_still_gives() -> None:
    # Given two projects' grants of the same topic to one role, both granted
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, status="GRANTED", environment="env_sales01", project="prj_sales01")
    world.datazone.add_grant(2, TOPIC, status="GRANTED", environment="env_ops02", project="prj_ops02")
    world.iam.add_role(ROLE)
    run(world, {})
    groups_before = {r for r in world.iam.resources(ROLE) if ":group/" in r}
    assert len(groups_before) == 2
    # When the first is revoked
    world.datazone.set_state("grant0001", "REVOKE_PENDING")
    result = run(world, event("subscription_grant_revoke_requested.json"))
    # Then the topic stays (the other grant gives it), the revoked project's groups go, the revoke is reported
    resources = world.iam.resources(ROLE)
    assert any(r.endswith(f"/{TOPIC}") for r in resources)
    assert {r for r in resources if ":group/" in r} == {g for g in groups_before if "prj_ops02" in g}
    assert [u[2] for u in world.datazone.updates] == ["REVOKE_IN_PROGRESS", "REVOKED"]
    assert result.revoked.total == 1


def test_the_last_revoke_takes_the_access_away() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, status="GRANTED")
    world.iam.add_role(ROLE)
    run(world, {})
    assert world.iam.roles[ROLE].inline
    world.datazone.set_state("grant0001", "REVOKE_PENDING")
    run(world, event("subscription_grant_revoke_requested.json"))
    assert world.iam.roles[ROLE].inline == {}
    assert world.iam.roles[ROLE].attached == []
    assert world.datazone.status_of("grant0001") == "REVOKED"


def test_120_grants_to_one_role_stay_within_iams_limits() -> None:
    # Given 120 pending grants of distinct topics to one role
    world = FakeWorld()
    for n in range(1, 121):
        world.datazone.add_grant(n, f"dbserver1.inventory.table_{n:04d}")
    world.iam.add_role(ROLE)
    # When the reconciling run finishes them
    result = run(world, {})
    # Then every grant is GRANTED, every topic reachable, and IAM's limits held (the fake refuses past them)
    assert result.granted.total == 120
    assert result.failed.total == 0
    assert all(world.datazone.status_of(f"grant{n:04d}") == "GRANTED" for n in range(1, 121))
    resources = world.iam.resources(ROLE)
    assert all(
        any(r.endswith(f"/dbserver1.inventory.table_{n:04d}") for r in resources) for n in range(1, 121)
    )
    role = world.iam.roles[ROLE]
    assert sum(len(doc) for doc in role.inline.values()) <= 10_240
    assert len(role.attached) <= 10
    assert role.attached
    assert all(len(world.iam.policies[p].default()) <= 6_144 for p in role.attached)
    # And a second run finds nothing to do
    writes = world.iam_writes()
    again = run(world, {})
    assert world.iam_writes() == writes
    assert again.unchanged == 120


def test_a_role_denied_by_its_boundary_fails_with_the_boundary_named_and_nothing_written() -> None:
    boundary = json.loads((FIXTURES / "sus_project_role_boundary.json").read_text())
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE, boundary=boundary)
    result = run(world, event("subscription_grant_requested.json"))
    assert world.iam_writes() == 0
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    cause = world.datazone.updates[-1][3] or ""
    assert "permissions boundary" in cause
    assert "ConsumerBoundary" in cause
    assert result.failed.total == 1
    assert not result.raises


def test_a_role_outside_the_allow_list_fails_naming_the_setting_and_nothing_is_written() -> None:
    other = f"arn:aws:iam::{ACCOUNT}:role/other-team"
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, roles=(other,))
    world.iam.add_role(other)
    result = run(world, event("subscription_grant_requested.json"), access=access(consumerRoles=[ROLE]))
    assert world.iam_writes() == 0
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "access.consumerRoles" in (world.datazone.updates[-1][3] or "")
    assert result.failed.total == 1
    # and the role is not even read: the deployed role may read only the roles consumerRoles admits, so a
    # read would fail with AccessDenied and hide the cause that names the setting
    assert world.iam.calls["GetRole"] == 0


def test_without_access_settings_every_grant_fails_naming_consumer_roles() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    environ = {"DOMAIN_ID": DOMAIN, "MAPPING_PATH": "/kafka-lineage"}
    loaded = GrantSettings.from_environment(environ)
    result = GrantRun(loaded, world.ports()).execute(
        parse_request(event("subscription_grant_requested.json")),
        Deadline(lambda: 900.0, DEADLINE_MARGIN_SECONDS),
    )
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "access.consumerRoles" in (world.datazone.updates[-1][3] or "")
    assert world.iam_writes() == 0
    assert result.failed.total == 1


def test_a_malformed_access_setting_fails_pending_grants_and_touches_no_role() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, status="GRANTED")
    world.datazone.add_grant(2, "orders", status="GRANT_PENDING")
    world.iam.add_role(ROLE)
    environ = {
        "DOMAIN_ID": DOMAIN,
        "MAPPING_PATH": "/kafka-lineage",
        "ACCESS": '{"consumerRoles": 5}',
    }
    result = GrantRun(GrantSettings.from_environment(environ), world.ports()).execute(
        parse_request({}), Deadline(lambda: 900.0, DEADLINE_MARGIN_SECONDS)
    )
    assert world.iam_writes() == 0
    assert world.datazone.status_of("grant0001") == "GRANTED"
    assert world.datazone.status_of("grant0002") == "GRANT_FAILED"
    assert "access.consumerRoles" in (result.failed.items[0]["cause"])


def test_a_policy_deleted_by_hand_is_restored_by_the_schedule_without_status_updates() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    run(world, event("subscription_grant_requested.json"))
    updates = len(world.datazone.updates)
    world.iam.roles[ROLE].inline.clear()  # someone deleted it in the console
    scheduled = json.loads(
        (Path(__file__).resolve().parents[2] / "events" / "lineage_scheduled.json").read_text()
    )
    run(world, scheduled)
    assert any(r.endswith(f"/{TOPIC}") for r in world.iam.resources(ROLE))
    assert len(world.datazone.updates) == updates


def test_a_reconciling_run_with_nothing_to_do_writes_nothing() -> None:
    world = FakeWorld()
    for n in range(1, 4):
        world.datazone.add_grant(n, f"topic.{n}")
    world.iam.add_role(ROLE)
    run(world, {})
    writes, updates = world.iam_writes(), len(world.datazone.updates)
    world.leases.taken.clear()
    result = run(world, {})
    assert world.iam_writes() == writes
    assert len(world.datazone.updates) == updates
    assert world.leases.taken == []
    assert result.unchanged == 3


def test_a_dry_run_writes_nothing_and_reports_the_plan() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    result = run(world, {"dryRun": True})
    assert world.iam_writes() == 0
    assert world.datazone.updates == []
    assert world.leases.taken == []
    out = result.to_dict()
    assert out["dryRun"] is True
    assert {"grantId": "grant0001", "status": "GRANTED"}.items() <= out["planned"][0].items()
    assert any(item.get("writes") == ["PutRolePolicy"] for item in out["planned"])


def test_grants_stuck_for_over_an_hour_are_counted_by_the_reconciling_run() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC, status="GRANT_IN_PROGRESS", updated=NOW.replace(hour=8))
    world.datazone.add_grant(2, "orders", status="GRANT_PENDING", updated=NOW)
    world.datazone.add_grant(3, "payments", status="GRANTED", updated=NOW.replace(hour=1))
    world.iam.add_role(ROLE)
    result = run(world, {})
    assert result.stuck == 1
    assert result.to_dict()["counts"]["stuck"] == 1


def test_a_malformed_event_is_reported_not_raised() -> None:
    world = FakeWorld()
    malformed = event("subscription_grant_requested.json")
    malformed["detail"] = {}
    result = run(world, malformed)
    assert result.malformed
    assert "detail.metadata" in result.to_dict()["error"]
    assert not result.raises
    assert sum(world.calls().values()) == 0


def test_unknown_option_keys_are_refused_by_name() -> None:
    result = run(FakeWorld(), {"dryRun": True, "force": True})
    assert "force" in result.to_dict()["error"]


def test_a_dry_run_on_a_grant_event_writes_nothing() -> None:
    # Given a pending grant, and its event with "dryRun": true beside the envelope
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    payload = {**event("subscription_grant_requested.json"), "dryRun": True}
    # When the function runs it
    result = run(world, payload)
    # Then it plans the grant and writes nothing: no IAM write, no status update
    assert result.dry_run
    assert result.writes == 0
    writes = ("UpdateSubscriptionGrantStatus", "PutRolePolicy", "AttachRolePolicy", "CreatePolicy")
    assert not [name for name in world.calls() if name.endswith(writes)]
    assert world.iam_writes() == 0


def test_options_beside_an_event_are_honoured_or_refused_by_name() -> None:
    # resumeAfter belongs to the function's own follow-up of a reconciling run, never to a grant event
    payload = {**event("subscription_grant_requested.json"), "resumeAfter": "x"}
    result = run(FakeWorld(), payload)
    assert "resumeAfter: not accepted with a Subscription Grant Requested event" in result.to_dict()["error"]
    # and an unknown key beside the envelope is refused, naming it
    payload = {**event("subscription_grant_requested.json"), "dryrun": True}
    assert "'dryrun'" in run(FakeWorld(), payload).to_dict()["error"]


def test_a_grant_whose_target_is_gone_fails_naming_the_target() -> None:
    # Given a pending grant whose subscription target no longer exists
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.datazone.targets.clear()
    # When its event arrives (and when the schedule runs)
    result = run(world, event("subscription_grant_requested.json"))
    # Then it fails with a cause naming the target, and no IAM is touched
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "target_env_sales01" in (world.datazone.updates[-1][3] or "")
    assert result.failed.total == 1
    assert world.iam_writes() == 0


def test_an_asset_without_a_topic_in_its_forms_fails_saying_which_form() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    listing = world.datazone.listings[("listing0001", "1")]
    asset = listing.assets[0]
    world.datazone.listings[("listing0001", "1")] = replace(
        listing, assets=(replace(asset, forms={"MskSourceReferenceFormType": {"cluster_arn": CLUSTER}}),)
    )
    world.iam.add_role(ROLE)
    run(world, {})
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "KafkaSchemaFormType.kafka_topic" in (world.datazone.updates[-1][3] or "")
    assert world.iam_writes() == 0


def test_a_topic_name_no_arn_can_carry_fails_rather_than_widening_the_grant() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, "orders.*")
    world.iam.add_role(ROLE)
    run(world, event("subscription_grant_requested.json"))
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "is not a Kafka topic name" in (world.datazone.updates[-1][3] or "")
    assert world.iam_writes() == 0


def test_weird_but_legal_names_are_granted() -> None:
    # `__` heartbeat topics, dots, dashes, underscores, a 249-character topic; a role path with + = , @
    role = f"arn:aws:iam::{ACCOUNT}:role/teams/stream-ing/reader+ops=1,a@b"
    world = FakeWorld()
    long_topic = "t" * 249
    world.datazone.add_grant(1, "__debezium-heartbeat.dbserver1", roles=(role,))
    world.datazone.add_grant(2, long_topic, roles=(role,), environment="env_x")
    world.iam.add_role(role)
    result = run(world, {})
    assert result.granted.total == 2
    resources = world.iam.resources(role)
    assert any(r.endswith("/__debezium-heartbeat.dbserver1") for r in resources)
    assert any(r.endswith("/" + long_topic) for r in resources)


def test_a_grant_that_lists_no_asset_yet_is_left_to_the_schedule() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.datazone.records["grant0001"] = replace(world.datazone.records["grant0001"], assets=())
    world.iam.add_role(ROLE)
    result = run(world, event("subscription_grant_requested.json"))
    assert result.ignored.total == 1
    assert "reconciling run" in result.ignored.items[0]["reason"]
    assert world.iam_writes() == 0
    assert world.datazone.updates == []


def test_datazone_refusing_the_functions_reads_fails_the_grant_with_its_cause_and_writes_nothing() -> None:
    from kafka_lineage.model.failures import AccessDenied

    # Given DataZone refusing the function's reads (the pessimistic reading of its authorization: IAM alone
    # not enough, as for a caller that is no member of any project)
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    world.datazone.refuse_reads = AccessDenied(
        "GetSubscriptionGrant", "AccessDeniedException", "User is not permitted to perform operation"
    )
    # When the grant's event arrives
    result = run(world, event("subscription_grant_requested.json")).to_dict()
    # Then the event is a failure naming DataZone's answer, not retried as transient, and nothing is written
    [failure] = result["failed"]
    assert failure["grantId"] == "grant0001"
    assert "AccessDeniedException" in failure["cause"]
    assert "errors" not in result
    assert world.iam_writes() == 0
    assert world.datazone.updates == []
