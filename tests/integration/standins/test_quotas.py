"""The stand-ins' rate quotas (local/standins/quotas.py): per operation, per account, the service's own
throttling error over the limit, a neighbour's share, and off unless a test asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from local.standins import LocalAws
from tests.fixtures import VirtualClock

ONE_TRY = Config(retries={"mode": "standard", "total_max_attempts": 1})
DOMAIN = "dzd_quotas1"


def searches(datazone: Any, count: int) -> list[str]:
    """`count` Search requests at once (no time passes on the virtual clock): the outcome of each (the error
    code with its HTTP status)."""
    outcomes = []
    for _ in range(count):
        try:
            datazone.search(domainIdentifier=DOMAIN, searchScope="ASSET")
            outcomes.append("ok")
        except ClientError as error:
            status = error.response["ResponseMetadata"]["HTTPStatusCode"]
            outcomes.append(error.response["Error"]["Code"] + ("" if status == 429 else f" {status}"))
    return outcomes


@pytest.fixture
def datazone(local_aws: LocalAws) -> Any:
    local_aws.datazone.add_domain(DOMAIN)
    return local_aws.client("datazone", config=ONE_TRY)


def test_off_unless_asked_for(datazone: Any) -> None:
    assert set(searches(datazone, 60)) == {"ok"}


def test_over_its_documented_rate_datazone_answers_throttling_429(
    datazone: Any, quotas: Callable[..., VirtualClock]
) -> None:
    # Given Search's documented 20 TPS enforced, on a clock that does not move by itself
    clock = quotas()

    # When 25 searches come at once, then 20 pass (a second's burst) and the rest are throttled
    assert searches(datazone, 25) == ["ok"] * 20 + ["ThrottlingException"] * 5

    # When half a second passes, then ten more may go
    clock.sleep(0.5)
    assert searches(datazone, 11) == ["ok"] * 10 + ["ThrottlingException"]


def test_a_neighbour_leaves_its_share_of_each_quota(
    datazone: Any, quotas: Callable[..., VirtualClock]
) -> None:
    clock = quotas(neighbour=0.5)
    assert searches(datazone, 12) == ["ok"] * 10 + ["ThrottlingException"] * 2
    clock.sleep(1.0)
    assert searches(datazone, 11).count("ok") == 10


def test_each_operation_has_its_own_bucket(datazone: Any, quotas: Callable[..., VirtualClock]) -> None:
    # Given Search's quota used up
    quotas()
    searches(datazone, 21)

    # When another operation is called, then its own quota answers
    answer = datazone.list_lineage_events(domainIdentifier=DOMAIN)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_glue_and_ssm_throttle_with_their_own_codes(
    local_aws: LocalAws, quotas: Callable[..., VirtualClock]
) -> None:
    # Given the quotas, SSM's reads sharing their documented 40 TPS, Glue at our reading of 20 per operation
    quotas()
    ssm, glue = local_aws.client("ssm", config=ONE_TRY), local_aws.client("glue", config=ONE_TRY)
    ssm.put_parameter(Name="/q/a", Value="1", Type="String")
    for _ in range(20):
        ssm.get_parameter(Name="/q/a")
        ssm.get_parameters_by_path(Path="/q")

    # When one more read of either kind comes, then SSM answers ThrottlingException (400, as json services do)
    with pytest.raises(ClientError) as raised:
        ssm.get_parameter(Name="/q/a")
    assert raised.value.response["Error"]["Code"] == "ThrottlingException"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400

    # And Glue's GetRegistry, over its 20, answers ThrottlingException too
    glue.create_registry(RegistryName="q")
    codes = []
    for _ in range(21):
        try:
            glue.get_registry(RegistryId={"RegistryName": "q"})
        except ClientError as error:
            codes.append(error.response["Error"]["Code"])
    assert codes == ["ThrottlingException"]
    assert local_aws.quotas.throttled["glue:GetRegistry"] == 1
    assert local_aws.call_counts(ok=False)["ssm:GetParameter"] == 1


def test_the_undocumented_rates_can_be_switched_off(
    datazone: Any, local_aws: LocalAws, quotas: Callable[..., VirtualClock]
) -> None:
    # Given the quotas without our readings of the rates AWS does not publish
    quotas(undocumented=False)

    # Then ListLineageEvents (no published rate) is not limited, and Search (20 TPS) still is
    for _ in range(30):
        datazone.list_lineage_events(domainIdentifier=DOMAIN)
    assert searches(datazone, 21)[-1] == "ThrottlingException"
