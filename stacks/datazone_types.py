"""DataZone form types (in CloudFormation) and the asset type (a custom resource: CloudFormation has none)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_datazone as datazone
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from .bundling import ARCHITECTURE, RUNTIME, function_code

ROOT = Path(__file__).resolve().parent.parent
SMITHY_DIR = ROOT / "smithy"
ASSET_TYPE_FILE = SMITHY_DIR / "KafkaTopicAssetType.json"
MANAGED_FORM_PREFIX = "amazon.datazone."
# botocore datazone FormName / FormTypeName / Smithy shapes.
_FORM_NAME = re.compile(r"(?![0-9_])\w+|_\w*[a-zA-Z0-9]\w*")
_SMITHY_MAX = 100_000
_ASSET_TYPE_MAX_FORMS = 10


class SpecError(ValueError):
    """smithy/ does not describe a consistent set of form types and asset type."""


def read_form_models(smithy_dir: Path = SMITHY_DIR) -> dict[str, str]:
    """Form type name -> Smithy model, one per smithy/*.smithy file, unchanged."""
    models: dict[str, str] = {}
    for path in sorted(smithy_dir.glob("*.smithy")):
        text = path.read_text(encoding="utf-8")
        if not re.search(rf"^\s*structure\s+{re.escape(path.stem)}\s*\{{", text, re.MULTILINE):
            raise SpecError(f"{path}: the structure name must equal the file name ({path.stem})")
        if len(text) > _SMITHY_MAX:
            raise SpecError(f"{path}: {len(text)} characters, DataZone takes at most {_SMITHY_MAX}")
        models[path.stem] = text
    if not models:
        raise SpecError(f"no form types (*.smithy) in {smithy_dir}")
    return models


def read_asset_type_spec(path: Path = ASSET_TYPE_FILE, form_types: set[str] | None = None) -> dict[str, Any]:
    """smithy/KafkaTopicAssetType.json, checked against DataZone's rules and the custom form types."""
    spec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    forms = spec.get("forms")
    if not isinstance(spec.get("name"), str) or not isinstance(forms, dict) or not forms:
        raise SpecError(f"{path}: needs a 'name' and a non-empty 'forms' object")
    if len(forms) > _ASSET_TYPE_MAX_FORMS:
        raise SpecError(f"{path}: {len(forms)} forms, an asset type takes at most {_ASSET_TYPE_MAX_FORMS}")
    for form_name, form in forms.items():
        if not _FORM_NAME.fullmatch(form_name):
            raise SpecError(f"{path}: form name {form_name!r} is not a DataZone FormName (no dots)")
        type_name = form.get("typeName") if isinstance(form, dict) else None
        if not isinstance(type_name, str):
            raise SpecError(f"{path}: form {form_name!r} needs a 'typeName'")
        managed = type_name.startswith(MANAGED_FORM_PREFIX)
        if not managed and form_types is not None and type_name not in form_types:
            raise SpecError(
                f"{path}: form {form_name!r} uses {type_name!r}, which no smithy/*.smithy defines"
            )
        if not isinstance(form.get("required", False), bool):
            raise SpecError(f"{path}: form {form_name!r}: 'required' must be true or false")
    return spec


def ignore_membership_identity_lint(membership: datazone.CfnProjectMembership) -> None:
    """cfn-lint E3019 misreads several memberships of one project as duplicates.

    The resource's real primary identifier (aws-cloudformation-resource-providers-datazone,
    aws-datazone-projectmembership.json) also holds MemberIdentifier, which CloudFormation derives from
    `Member`; cfn-lint drops read-only properties and compares only domain and project.
    """
    membership.add_metadata("cfn-lint", {"config": {"ignore_checks": ["E3019"]}})
    # CDK's built-in template validation runs the same rule and does not read that metadata.
    cdk.Validations.of(membership).acknowledge(
        cdk.Acknowledgment(
            id="CloudFormation-Validate::E3019",
            reason="The real primary identifier includes MemberIdentifier, derived from Member",
        )
    )


class DataZoneTypes(Construct):
    """One CfnFormType per smithy/*.smithy file and the asset type that pins their revisions."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        domain_id: str,
        project_id: str,
        asset_type_name: str,
        layer: lambda_.ILayerVersion,
        removal_policy: str,
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        models = read_form_models()
        # The functions find the type by ASSET_TYPE_NAME (assetTypeName): create it under that name.
        spec = {**read_asset_type_spec(form_types=set(models)), "name": asset_type_name}

        self.form_types: dict[str, datazone.CfnFormType] = {}
        for name, model in models.items():
            self.form_types[name] = datazone.CfnFormType(
                self,
                name,
                domain_identifier=domain_id,
                owning_project_identifier=project_id,
                name=name,
                model=datazone.CfnFormType.ModelProperty(smithy=model),
                status="ENABLED",
            )
            # A retained asset type keeps using its form types, and DataZone refuses to delete a form type
            # in use: they share the asset type's removal policy (with "destroy", the asset type goes first).
            self.form_types[name].apply_removal_policy(
                cdk.RemovalPolicy.RETAIN if removal_policy == "retain" else cdk.RemovalPolicy.DESTROY
            )

        handler_log_group = logs.LogGroup(self, "HandlerLogs", retention=log_retention)
        self.handler_role = iam.Role(
            self,
            "HandlerRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Creates the KafkaTopicAssetType asset type in DataZone (custom resource)",
        )
        handler_log_group.grant_write(self.handler_role)
        # SAR: these DataZone actions take no resource type, so only "*" grants them; DataZone then
        # authorises each call by the role's project membership (PROJECT_OWNER, below).
        self.handler_role.add_to_policy(
            iam.PolicyStatement(
                sid="DataZoneAssetType",
                actions=[
                    "datazone:CreateAssetType",
                    "datazone:GetAssetType",
                    "datazone:GetFormType",
                    # Stack deletion under "destroy"; and, whatever the policy, replacing an asset type no
                    # asset uses when DataZone refuses a new revision (CreateAssetType on an existing name).
                    "datazone:DeleteAssetType",
                ],
                resources=["*"],
            )
        )
        handler = lambda_.Function(
            self,
            "Handler",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler="asset_type_resource.handler.handler",
            code=function_code(),
            layers=[layer],
            role=self.handler_role,
            timeout=cdk.Duration.minutes(2),
            memory_size=256,
            log_group=handler_log_group,
            logging_format=lambda_.LoggingFormat.JSON,
            description="CloudFormation custom resource: the KafkaTopicAssetType DataZone asset type",
        )
        # Creating an asset type in a project takes project ownership (as AWS's DSF construct does).
        membership = datazone.CfnProjectMembership(
            self,
            "HandlerMembership",
            designation="PROJECT_OWNER",
            domain_identifier=domain_id,
            project_identifier=project_id,
            member=datazone.CfnProjectMembership.MemberProperty(user_identifier=self.handler_role.role_arn),
        )

        framework_log_group = logs.LogGroup(self, "ProviderLogs", retention=log_retention)
        self.provider_role = iam.Role(
            self,
            "ProviderRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="CDK custom-resource provider framework for the asset type",
        )
        framework_log_group.grant_write(self.provider_role)
        self.provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=handler,
            log_group=framework_log_group,
            framework_on_event_role=self.provider_role,
        )
        self.asset_type = cdk.CustomResource(
            self,
            "AssetType",
            service_token=self.provider.service_token,
            resource_type="Custom::DataZoneAssetType",
            properties={
                "DomainId": domain_id,
                "ProjectId": project_id,
                # A JSON string: CloudFormation would turn the booleans of a nested object into strings.
                "Spec": json.dumps(spec, sort_keys=True, separators=(",", ":")),
                "FormRevisions": {name: form.attr_revision for name, form in self.form_types.items()},
                "RemovalPolicy": removal_policy,
            },
        )
        self.asset_type.node.add_dependency(membership)
        ignore_membership_identity_lint(membership)
        self.asset_type_name: str = spec["name"]
        self.asset_type_revision = self.asset_type.get_att_string("Revision")
