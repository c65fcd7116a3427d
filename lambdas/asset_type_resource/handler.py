"""CloudFormation custom resources (CDK Provider framework onEvent): the KafkaTopicAssetType asset type, and
the governance check that runs before any type is created (asset_type_resource/governance.py).

Resource properties: DomainId, ProjectId, Spec (smithy/KafkaTopicAssetType.json as a JSON string),
FormRevisions ({form type name: revision}, from the stack's AWS::DataZone::FormType resources) and
RemovalPolicy ("retain" or "destroy"). Returns the revision as the `Revision` attribute.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from aws_lambda_powertools.utilities.typing import LambdaContext

from asset_type_resource.governance import GovernanceRequest, check_governance, raise_for
from asset_type_resource.provision import delete_asset_type, reconcile_asset_type
from kafka_lineage.aws.clients import Clients
from kafka_lineage.engine.function import deployed_environment
from kafka_lineage.observability import logger


def physical_id(domain_id: str, name: str) -> str:
    """Stable across updates that keep domain and name; a new one makes CloudFormation delete the old."""
    return f"{domain_id}:{name}"


GOVERNANCE_RESOURCE_TYPE = "Custom::DataZoneGovernanceCheck"


# The context is Lambda's, or any object with its attributes (tests and the local runs pass their own).
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def make_handler(
    clients: Clients | None = None, environ: Callable[[], Mapping[str, str]] = deployed_environment
) -> Handler:
    """The Lambda handler (the composition root: no wiring, its one client is DataZone's, of `clients`:
    the handler's own when None, one per instance as a wiring's; the Region from `environ`). CloudFormation's
    provider contract has no deadline, lease or follow-up, so the one run handler (engine/function.py) would
    add nothing here."""
    own = Clients() if clients is None else clients

    def invoke(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        if event.get("ResourceType") == GOVERNANCE_RESOURCE_TYPE:
            return governance_check(event, own.client("datazone"), environ().get("AWS_REGION"))
        return asset_type(event, own.client("datazone"))

    return cast(Handler, logger.inject_lambda_context(invoke))


def governance_check(event: dict[str, Any], datazone: Any, region: str | None = None) -> dict[str, Any]:
    """Custom::DataZoneGovernanceCheck: Create and Update fail naming each missing piece."""
    props = event["ResourceProperties"]
    this_id = f"{props['DomainId']}:{props['ProjectId']}:governance"
    if event["RequestType"] == "Delete":
        return {"PhysicalResourceId": event.get("PhysicalResourceId", this_id)}
    if event["RequestType"] not in ("Create", "Update"):
        raise ValueError(f"unexpected RequestType {event['RequestType']!r}")
    request = GovernanceRequest.from_properties(props, region=region)
    report = check_governance(datazone, request)
    for note in report.notes:
        logger.warning(note)
    logger.info(
        "governance check",
        extra={
            "domainVersion": report.domain_version,
            "domainUnit": report.domain_unit_id,
            "problems": list(report.problems),
        },
    )
    raise_for(report)
    data = {"DomainVersion": report.domain_version, "DomainUnitId": report.domain_unit_id or ""}
    return {"PhysicalResourceId": this_id, "Data": data}


def asset_type(event: dict[str, Any], datazone: Any) -> dict[str, Any]:
    request = event["RequestType"]
    props = event["ResourceProperties"]
    domain_id, project_id = props["DomainId"], props["ProjectId"]
    spec = json.loads(props["Spec"])
    name = spec["name"]
    this_id = physical_id(domain_id, name)

    if request in ("Create", "Update"):
        outcome = reconcile_asset_type(
            datazone, domain_id, project_id, spec, props.get("FormRevisions") or {}
        )
        logger.info(
            "asset type ready" if outcome.converged else "asset type kept at its current revision",
            extra={"assetType": name, "revision": outcome.revision, "request": request, "note": outcome.note},
        )
        data = {"Revision": outcome.revision, "Name": name}
        if not outcome.converged:
            # Deploy on: the functions read the type's forms from DataZone, so they keep working with it.
            data["NotConverged"] = outcome.note
        return {"PhysicalResourceId": this_id, "Data": data}

    if request == "Delete":
        # Only delete what this resource made: a failed Create reports some other physical id.
        policy = props.get("RemovalPolicy", "retain")
        if policy == "destroy" and event.get("PhysicalResourceId") == this_id:
            deleted = delete_asset_type(datazone, domain_id, name)
            logger.info(
                "asset type deleted" if deleted else "asset type already gone", extra={"assetType": name}
            )
        else:
            logger.info("asset type retained", extra={"assetType": name, "removalPolicy": policy})
        return {"PhysicalResourceId": event.get("PhysicalResourceId", this_id)}

    raise ValueError(f"unexpected RequestType {request!r}")


handler = make_handler()
