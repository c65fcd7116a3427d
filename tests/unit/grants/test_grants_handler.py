"""The subscription-grants handler: a malformed event is reported, a transient failure raises after the rest,
a busy role hands the event on, an unfinished reconciling run continues; fakes come in through `build`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from kafka_lineage.engine.function import Function
from kafka_lineage.grants.ports import GrantPorts
from kafka_lineage.grants.settings import GrantSettings
from kafka_lineage.model.failures import LeaseBusy, Throttled
from kafka_lineage.model.iam import IamCall
from subscription_grants.handler import GrantsFailed
from subscription_grants.wiring import Wiring
from tests.fixtures import load_event
from tests.unit.grants.fakes import ACCOUNT, DOMAIN, ROLE, FakeWorld
from tests.unit.grants.test_grants_run import event

ENVIRON = {
    "DOMAIN_ID": DOMAIN,
    "MAPPING_PATH": "/kafka-lineage",
    "ACCESS": json.dumps({"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/*"]}),
}


class Context:
    function_name = "kafka-lineage-subscription-grants"
    invoked_function_arn = f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:kafka-lineage-subscription-grants"
    aws_request_id = "5b1d2c3e-0000-4000-8000-000000000001"

    def __init__(self, remaining_ms: list[int] | None = None) -> None:
        self.remaining_ms = remaining_ms or []

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms.pop(0) if len(self.remaining_ms) > 1 else (self.remaining_ms or [900_000])[0]


def invoke(
    world: FakeWorld, payload: Any, handed: list[dict[str, Any]] | None = None, ms: list[int] | None = None
) -> dict[str, Any]:
    def build(settings: GrantSettings, context: Any, environ: Mapping[str, str]) -> GrantPorts:
        return world.ports()

    def continue_with(arn: str, follow_up: dict[str, Any]) -> bool:
        (handed if handed is not None else []).append(follow_up)
        return True

    wiring = Wiring(ports=build, hand_on=continue_with, environ=lambda: ENVIRON)
    return Function(wiring, GrantsFailed)(payload, Context(ms))


def test_a_malformed_event_returns_its_error_and_does_not_raise() -> None:
    world = FakeWorld()
    result = invoke(world, {"Records": [{"body": "{not json"}]})
    assert "not JSON" in result["error"]
    assert sum(world.calls().values()) == 0


def test_a_transient_failure_raises_after_the_other_grants_are_done() -> None:
    # Given two grants to two roles, and IAM throttling every write to the first role
    world = FakeWorld()
    other = f"arn:aws:iam::{ACCOUNT}:role/zz-reader"
    world.datazone.add_grant(1, "orders", roles=(ROLE,))
    world.datazone.add_grant(2, "payments", roles=(other,), environment="env_zz")
    world.iam.add_role(ROLE)
    world.iam.add_role(other)

    def throttle(role: str, call: IamCall) -> None:
        if role == ROLE:
            raise Throttled("PutRolePolicy", "Throttling", "Rate exceeded")

    world.iam.on_write = throttle
    # When the reconciling run goes
    with pytest.raises(GrantsFailed) as raised:
        invoke(world, {})
    # Then the other grant was fulfilled, the throttled one left IN_PROGRESS for the next run, and it raised
    assert world.datazone.status_of("grant0002") == "GRANTED"
    assert world.datazone.status_of("grant0001") == "GRANT_IN_PROGRESS"
    reported = json.loads(str(raised.value))
    assert reported["counts"]["granted"] == 1
    assert "Throttling" in reported["errors"][0]


def test_a_permanent_iam_refusal_fails_the_grant_with_the_cause_and_does_not_raise() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, "orders")
    world.iam.add_role(ROLE)
    from kafka_lineage.model.failures import AccessDenied

    world.iam.fail_write = AccessDenied(
        "PutRolePolicy", "AccessDenied", "not authorized to perform iam:PutRolePolicy"
    )
    result = invoke(world, event("subscription_grant_requested.json"))
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "iam:PutRolePolicy" in (world.datazone.updates[-1][3] or "")
    assert result["counts"]["failed"] == 1
    assert "errors" not in result


def test_a_busy_role_hands_the_same_event_on() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, "orders")
    world.iam.add_role(ROLE)

    class Busy:
        @staticmethod
        def mark() -> float:
            return 0.0

        def hold(self, roles: Any, wait_seconds: float) -> Any:
            raise LeaseBusy(f"{roles} held")

    world.leases = Busy()
    handed: list[dict[str, Any]] = []
    payload = event("subscription_grant_requested.json")
    result = invoke(world, payload, handed)
    assert result["deferred"] == "busy"
    assert result["continued"] is True
    assert handed == [payload]
    assert world.iam_writes() == 0
    assert world.datazone.updates == []


def test_an_unfinished_reconciling_run_hands_on_where_to_resume() -> None:
    world = FakeWorld()
    for n in range(1, 4):
        role = f"arn:aws:iam::{ACCOUNT}:role/reader-{n}"
        world.datazone.add_grant(n, f"topic.{n}", roles=(role,), environment=f"env_{n}")
        world.iam.add_role(role)
    handed: list[dict[str, Any]] = []
    # When the deadline leaves time for one group only (then 20 s: under the 30 s margin)
    result = invoke(world, {}, handed, ms=[900_000, 20_000])
    # Then the follow-up is handed where to resume
    resume = f"arn:aws:iam::{ACCOUNT}:role/reader-1"
    assert result["incomplete"] is True
    assert result["continued"] is True
    assert result["resumeAfter"] == resume
    assert handed == [{"dryRun": False, "resumeAfter": resume}]
    assert result["counts"]["granted"] == 1


def test_a_run_that_could_start_nothing_does_not_hand_on_forever() -> None:
    world = FakeWorld()
    world.datazone.add_grant(1, "orders")
    world.iam.add_role(ROLE)
    handed: list[dict[str, Any]] = []
    result = invoke(world, {}, handed, ms=[20_000])
    assert result["incomplete"] is True
    assert "continued" not in result
    assert handed == []
    assert world.iam_writes() == 0


def test_the_deployed_handler_builds_its_adapters_and_reports_a_malformed_event(monkeypatch: Any) -> None:
    # Given the function's environment and Lambda's context (the real composition root builds the adapters)
    from subscription_grants.handler import handler

    for name, value in ENVIRON.items():
        monkeypatch.setenv(name, value)

    class LambdaContext(Context):
        memory_limit_in_mb = 256
        log_group_name = "/aws/lambda/kafka-lineage-subscription-grants"
        log_stream_name = "2026/11/20/[$LATEST]0123"

    # When it gets something that is not a grant event
    glue = load_event("glue_create_schema")
    result = handler(glue, LambdaContext())
    # Then it says so and does not raise (no AWS call is made for it)
    assert "unexpected EventBridge event: source 'aws.glue'" in result["error"]


def test_the_wiring_reads_the_functions_account_and_the_sources_roles_by_cluster_account() -> None:
    from kafka_lineage.engine.function import function_account
    from subscription_grants.wiring import source_roles

    assert function_account(Context()) == ACCOUNT
    sources = [
        {
            "registryName": "cdc",
            "clusterArn": "arn:aws:kafka:eu-west-1:222233334444:cluster/cdc/abc-1",
            "roleArn": "arn:aws:iam::222233334444:role/KafkaLineageSource",
            "externalId": "x-1",
        },
        {"registryName": "local", "clusterArn": f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/local/def-2"},
    ]
    assert source_roles({"SOURCES": json.dumps(sources)}) == {
        "222233334444": ("arn:aws:iam::222233334444:role/KafkaLineageSource", "x-1")
    }
    assert source_roles({"SOURCES": "not json"}) == {}
