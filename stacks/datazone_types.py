"""DataZone form types (in CloudFormation) and the asset type (a custom resource: CloudFormation has none)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_datazone as datazone
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from .bundling import ARCHITECTURE, RUNTIME, SMITHY_DIR, function_code
from .resources import SharedResources

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


# Creating form types and asset types is authorised by these domain-unit policies (DataZone
# PolicyGrantDetail; docs/governed-domains.md), besides IAM and project membership.
TYPE_GRANTS = ("CREATE_FORM_TYPE", "CREATE_ASSET_TYPE")
# The deploy-time check of a governed domain (lambdas/asset_type_resource/governance.py).
GOVERNANCE_RESOURCE_TYPE = "Custom::DataZoneGovernanceCheck"


def policy_grant_detail(policy: str) -> datazone.CfnPolicyGrant.PolicyGrantDetailProperty:
    if policy == "CREATE_FORM_TYPE":
        return datazone.CfnPolicyGrant.PolicyGrantDetailProperty(
            create_form_type=datazone.CfnPolicyGrant.CreateFormTypePolicyGrantDetailProperty(
                include_child_domain_units=False
            )
        )
    return datazone.CfnPolicyGrant.PolicyGrantDetailProperty(
        create_asset_type=datazone.CfnPolicyGrant.CreateAssetTypePolicyGrantDetailProperty(
            include_child_domain_units=False
        )
    )


class DataZoneTypes(Construct):
    """One CfnFormType per smithy/*.smithy file and the asset type that pins their revisions.

    In a governed domain, type creation also needs the domain unit's CREATE_FORM_TYPE and CREATE_ASSET_TYPE
    grants for the project: with `domain_unit_id` the construct creates them (before the form types);
    `add_governance_check` adds the deploy-time check that names whatever is still missing.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        shared: SharedResources,
        *,
        asset_type_name: str,
        removal_policy: str,
        domain_unit_id: str | None = None,
        handler_role_name: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        domain_id, project_id, layer = shared.domain_id, shared.project_id, shared.layer
        log_retention, create_membership = shared.log_retention, shared.create_membership
        self.domain_id, self.project_id, self.domain_unit_id = domain_id, project_id, domain_unit_id
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

        # The owning project's grants on its domain unit; all their properties replace on update.
        self.policy_grants: dict[str, datazone.CfnPolicyGrant] = {}
        if domain_unit_id is not None:
            for policy in TYPE_GRANTS:
                self.policy_grants[policy] = datazone.CfnPolicyGrant(
                    self,
                    "Grant" + "".join(word.title() for word in policy.split("_")),
                    domain_identifier=domain_id,
                    entity_type="DOMAIN_UNIT",
                    entity_identifier=domain_unit_id,
                    policy_type=policy,
                    principal=datazone.CfnPolicyGrant.PolicyGrantPrincipalProperty(
                        project=datazone.CfnPolicyGrant.ProjectPolicyGrantPrincipalProperty(
                            project_designation="OWNER", project_identifier=project_id
                        )
                    ),
                    detail=policy_grant_detail(policy),
                )
        for form_type in self.form_types.values():
            for grant in self.policy_grants.values():
                form_type.node.add_dependency(grant)

        handler_log_group = logs.LogGroup(self, "HandlerLogs", retention=log_retention)
        self.handler_role = iam.Role(
            self,
            "HandlerRole",
            role_name=handler_role_name,
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
        # The governance check (add_governance_check) reads the domain, the project, its domain units'
        # grants and the project's members. SAR: GetDomain takes the domain resource type; the others none.
        self.handler_role.add_to_policy(
            iam.PolicyStatement(
                sid="DataZoneGovernanceReadDomain",
                actions=["datazone:GetDomain"],
                resources=[
                    cdk.Stack.of(self).format_arn(
                        service="datazone", resource="domain", resource_name=domain_id
                    )
                ],
            )
        )
        # SAR: GetProject, GetDomainUnit, ListPolicyGrants, ListProjectMemberships and GetUserProfile take no
        # resource type, so only "*" grants them (DataZone's project membership authorises on top).
        self.handler_role.add_to_policy(
            iam.PolicyStatement(
                sid="DataZoneGovernanceRead",
                actions=[
                    "datazone:GetProject",
                    "datazone:GetDomainUnit",
                    "datazone:ListPolicyGrants",
                    "datazone:ListProjectMemberships",
                    "datazone:GetUserProfile",
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
        self.membership: datazone.CfnProjectMembership | None = None
        if create_membership:
            self.membership = datazone.CfnProjectMembership(
                self,
                "HandlerMembership",
                designation="PROJECT_OWNER",
                domain_identifier=domain_id,
                project_identifier=project_id,
                member=datazone.CfnProjectMembership.MemberProperty(
                    user_identifier=self.handler_role.role_arn
                ),
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
                # Changes with every synthesis, so that every deploy updates the resource: DataZone may
                # publish a new revision of a managed form type at any time and takes only the latest
                # (readings.py, managed_form_revision_must_be_latest); an unchanged type costs reads only.
                "ResolvedAt": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
        if self.membership is not None:
            self.asset_type.node.add_dependency(self.membership)
            ignore_membership_identity_lint(self.membership)
        self.asset_type_name: str = spec["name"]
        self.asset_type_revision = self.asset_type.get_att_string("Revision")
        self.governance_check: cdk.CustomResource | None = None

    def add_governance_check(
        self,
        *,
        members: dict[str, tuple[iam.IRole, str]],
        kms_key_arn: str | None,
        membership_mode: str,
        after: list[Construct],
        cluster_regions: tuple[str, ...] = (),
    ) -> cdk.CustomResource:
        """The deploy-time check of what the types and the functions rely on, before any type is created.

        `members`: name -> (role, designation) of each role that must be a project member; `after`: what must
        exist first (the memberships the stack creates). Fails the deploy with one message per missing piece.
        """
        check = cdk.CustomResource(
            self,
            "GovernanceCheck",
            service_token=self.provider.service_token,
            resource_type=GOVERNANCE_RESOURCE_TYPE,
            properties={
                "DomainId": self.domain_id,
                "ProjectId": self.project_id,
                "DomainUnitId": self.domain_unit_id or "",
                "GrantsByStack": "true" if self.policy_grants else "false",
                "KmsKeyArn": kms_key_arn or "",
                "MembershipMode": membership_mode,
                # For an environment-agnostic stack, whose region synth cannot know.
                "ClusterRegions": json.dumps(list(cluster_regions)),
                "Members": json.dumps(
                    [
                        {"name": name, "roleArn": role.role_arn, "designation": designation}
                        for name, (role, designation) in members.items()
                    ]
                ),
            },
        )
        for grant in self.policy_grants.values():
            check.node.add_dependency(grant)
        for construct in after:
            check.node.add_dependency(construct)
        if self.membership is not None:
            check.node.add_dependency(self.membership)
        for form_type in self.form_types.values():
            form_type.node.add_dependency(check)
        self.governance_check = check
        return check
