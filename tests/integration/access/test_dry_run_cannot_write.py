"""subscription-grants' dry run over writer ports that fail on any call (DataZone's grant status, IAM, the
cluster policies): it plans the pending grant and passes. The same ports in a real run are reached."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kafka_lineage.grants.ports import GRANT_WRITERS, GrantPorts
from subscription_grants.handler import GrantsFailed
from subscription_grants.wiring import Wiring, build
from tests.integration.access.conftest import FUNCTION, ORDERS, AccessWorld, grants_context
from tests.integration.failing_writers import failing


def wiring_over_failing_writers(reached: list[str]) -> Wiring:
    def ports(settings: Any, context: Any, environ: Mapping[str, str]) -> GrantPorts:
        return failing(build(settings, context, environ), GRANT_WRITERS, reached)

    return Wiring(ports=ports)


def test_given_writer_ports_that_fail_on_any_call_when_a_dry_run_reconciles_then_it_plans_and_passes(
    access: AccessWorld,
) -> None:
    # Given a pending grant, and writer ports that fail on any call
    role = access.role("orders-reader")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    reached: list[str] = []
    handler = access.deployed.handler(FUNCTION, wiring_over_failing_writers(reached))
    access.reset_calls()
    # When a dry reconciling run goes
    result = handler({"dryRun": True}, grants_context())
    # Then the grant is planned, nothing failed, no writer was reached, and no lease was written
    assert {"grantId": grant, "status": "GRANTED"}.items() <= result["planned"][0].items()
    assert result["failed"] == []
    assert reached == []
    assert access.writes() == {}
    assert access.calls()["ssm:PutParameter"] == 0
    assert access.status(subscription) == "GRANT_PENDING"


def test_given_the_same_failing_writers_when_a_real_run_reconciles_then_they_are_reached(
    access: AccessWorld,
) -> None:
    # Given the same pending grant and writer ports
    role = access.role("orders-reader")
    access.subscribe(access.consumer([role]), ORDERS)
    reached: list[str] = []
    handler = access.deployed.handler(FUNCTION, wiring_over_failing_writers(reached))
    # When a real run goes, then it fails on the writers (the dry run's pass is no accident)
    with pytest.raises(GrantsFailed, match=r"catalog\.set_status was called"):
        handler({}, grants_context())
    assert reached
