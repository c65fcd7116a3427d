"""`kafka-lineage doctor`'s readings: CloudTrail's event selectors as its API reference documents them, the
read-only guard on its clients, and the stack's roles it checks."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from kafka_lineage_cdk.doctor import STACK_MEMBERS, records_glue_writes
from kafka_lineage_cdk.read_only import WriteRefused, read_only

REGION, DOMAIN, PROJECT = "eu-west-1", "dzd_example01", "prj_lineage01"


def _advanced(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"AdvancedEventSelectors": [{"Name": "s", "FieldSelectors": list(fields)}]}


MANAGEMENT = {"Field": "eventCategory", "Equals": ["Management"]}


@pytest.mark.parametrize(
    ("selectors", "records"),
    [
        ({"EventSelectors": [{"ReadWriteType": "WriteOnly"}]}, True),  # management events by default
        (
            {
                "EventSelectors": [
                    {"ReadWriteType": "All", "ExcludeManagementEventSources": ["glue.amazonaws.com"]}
                ]
            },
            False,
        ),
        (_advanced(MANAGEMENT), True),
        (_advanced(MANAGEMENT, {"Field": "readOnly", "Equals": ["false"]}), True),
        (_advanced(MANAGEMENT, {"Field": "readOnly", "Equals": ["true"]}), False),
        (_advanced(MANAGEMENT, {"Field": "eventSource", "NotEquals": ["glue.amazonaws.com"]}), False),
        (_advanced(MANAGEMENT, {"Field": "eventSource", "StartsWith": ["glue."]}), True),
        (_advanced(MANAGEMENT, {"Field": "eventName", "Equals": ["CreateSchema"]}), False),  # not every name
        (_advanced(MANAGEMENT, {"Field": "userIdentity.arn", "NotStartsWith": ["arn:aws:sts::1:"]}), False),
        (_advanced({"Field": "eventCategory", "Equals": ["Data"]}), False),
    ],
)
def test_event_selectors_are_read_as_cloudtrail_documents_them(selectors: dict[str, Any], records: bool):
    # Given a trail's selectors / Then they record Glue's writes only when every event the rule needs passes
    # (a field doctor does not evaluate is read as excluding: the pessimistic reading)
    assert records_glue_writes(selectors) is records


# --- read-only by construction ------------------------------------------------------------------------


def test_a_read_only_client_refuses_every_write_before_it_is_sent():
    # Given a DataZone client whose stubber would answer a GetProject, then a CreateProject (so that only the
    # guard can stop the write)
    client = boto3.client("datazone", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    stub.add_response("get_project", {"domainId": DOMAIN, "id": PROJECT, "name": "p", "createdBy": "x"})
    stub.add_response("create_project", {"domainId": DOMAIN, "id": PROJECT, "name": "p", "createdBy": "x"})
    stub.activate()
    guarded = read_only(client)
    # When a check asks for the write method, or calls the operation below the method
    with pytest.raises(WriteRefused, match="datazone:CreateProject is not a read"):
        guarded.create_project(domainIdentifier=DOMAIN, name="p")
    with pytest.raises(WriteRefused, match="datazone:CreateProject is not a read"):
        guarded._make_api_call("CreateProject", {"domainIdentifier": DOMAIN, "name": "p"})
    # Then a read still goes through, and the write was never answered: its stubbed answer is still queued
    assert guarded.get_project(domainIdentifier=DOMAIN, identifier=PROJECT)["id"] == PROJECT
    with pytest.raises(AssertionError, match="1 responses remaining"):
        stub.assert_no_pending_responses()


def test_every_operation_doctor_calls_is_a_read_of_its_service():
    # Given the operations doctor's checks call (the stubs above queue each) / Then each exists and reads
    session = boto3.session.Session(region_name=REGION)
    called = {
        "sts": ["GetCallerIdentity"],
        "datazone": [
            "GetDomain",
            "GetProject",
            "ListProjectMemberships",
            "GetUserProfile",
            "GetDomainUnit",
            "ListPolicyGrants",
        ],
        "lakeformation": ["ListPermissions"],
        "cloudtrail": ["DescribeTrails", "GetTrailStatus", "GetEventSelectors"],
    }
    for service, operations in called.items():
        model = session._session.get_service_model(service)
        assert set(operations) <= set(model.operation_names)
        assert all(op.startswith(("Get", "List", "Describe", "Search")) for op in operations)


def test_the_stacks_roles_doctor_checks_are_the_ones_the_stack_names():
    # Given the roles whose fixed names projectMembership "manual" gives (stacks/config.py)
    from stacks.config import MEMBER_ROLES

    # Then doctor checks each of them, by that name
    assert sorted(role for _, role, _ in STACK_MEMBERS) == sorted(MEMBER_ROLES)
