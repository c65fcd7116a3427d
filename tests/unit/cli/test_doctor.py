"""`kafka-lineage doctor`: the account checked before the first deploy, through clients that only read.

AWS is botocore's Stubber: each call's parameters are checked against the service models (DataZone, Lake
Formation, CloudTrail, STS) and its answers are shaped as the models say. A call not queued fails the test,
so each test also shows which reads a check makes.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from click.testing import CliRunner

from kafka_lineage.access.model import Naming
from kafka_lineage_cdk import cli
from kafka_lineage_cdk.doctor import STACK_MEMBERS
from kafka_lineage_cdk.outcome import BAD_INPUT, OK, PARTIAL

ROOT = Path(__file__).resolve().parents[3]
REGION, ACCOUNT = "eu-west-1", "111122223333"
DOMAIN, PROJECT, UNIT = "dzd_example01", "prj_lineage01", "unit_streaming"
EXEC_ROLE = f"arn:aws:iam::{ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-{ACCOUNT}-{REGION}"
EXEC_PROFILE = "up_cfnexec"
KEY = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
CLUSTER = f"arn:aws:kafka:{REGION}:{ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8877-665544332211-1"
TRAIL = f"arn:aws:cloudtrail:us-east-1:{ACCOUNT}:trail/organization-trail"
NAMING = Naming.for_stack(DOMAIN, "KafkaTopicAssetType")
GRANTS = {"CREATE_FORM_TYPE": "createFormType", "CREATE_ASSET_TYPE": "createAssetType"}
LAKEHOUSE = {"Table": {"CatalogId": ACCOUNT, "DatabaseName": "lakehouse", "TableWildcard": {}}}


def _context(**overrides: Any) -> dict[str, Any]:
    """The repository's cdk.json context, its placeholders filled in."""
    context = json.loads((ROOT / "cdk.json").read_text())["context"]["kafkaLineage"]
    context.update(domainId=DOMAIN, projectId=PROJECT)
    context["sources"][0]["clusterArn"] = CLUSTER
    context.update(overrides)
    return context


def _cdk_json(tmp_path: Path, context: dict[str, Any], qualifier: str | None = None) -> Path:
    path = tmp_path / "cdk.json"
    extra = {"@aws-cdk/core:bootstrapQualifier": qualifier} if qualifier else {}
    path.write_text(json.dumps({"app": "python3 app.py", "context": {"kafkaLineage": context, **extra}}))
    return path


class Account:
    """Stubbed clients of the target account, handed to the command line in place of boto3's."""

    def __init__(self) -> None:
        self.clients = {
            service: boto3.client(
                service, region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y"
            )
            for service in ("sts", "datazone", "lakeformation", "cloudtrail", "iam")
        }
        self.stubs = {service: Stubber(client) for service, client in self.clients.items()}
        self.stubs["sts"].add_response(
            "get_caller_identity",
            {"Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:user/deployer", "UserId": "AIDAEXAMPLE"},
        )

    def add(self, service: str, operation: str, answer: dict[str, Any], expected: dict[str, Any]) -> None:
        self.stubs[service].add_response(operation, answer, expected)

    def error(self, service: str, operation: str, code: str, expected: dict[str, Any], status: int = 400):
        self.stubs[service].add_client_error(operation, code, code, status, expected_params=expected)

    # --- DataZone
    def domain(self, status: str = "AVAILABLE", key: str | None = None, version: str = "V2") -> None:
        answer = {"id": DOMAIN, "domainExecutionRole": "arn:aws:iam::1:role/dz", "status": status}
        answer.update({"domainVersion": version, **({"kmsKeyIdentifier": key} if key else {})})
        self.add("datazone", "get_domain", answer, {"identifier": DOMAIN})

    def project(self, unit: str | None = UNIT) -> None:
        answer = {"domainId": DOMAIN, "id": PROJECT, "name": "lineage", "createdBy": "admin"}
        answer.update({"domainUnitId": unit} if unit else {})
        self.add("datazone", "get_project", answer, {"domainIdentifier": DOMAIN, "identifier": PROJECT})

    def members(self, *members: tuple[str, str]) -> None:
        answer = {
            "members": [{"memberDetails": {"user": {"userId": u}}, "designation": d} for u, d in members]
        }
        expected = {"domainIdentifier": DOMAIN, "projectIdentifier": PROJECT}
        self.add("datazone", "list_project_memberships", answer, expected)

    def profile(self, role: str, profile_id: str | None) -> None:
        expected = {"domainIdentifier": DOMAIN, "userIdentifier": role, "type": "IAM"}
        if profile_id is None:
            self.error("datazone", "get_user_profile", "ResourceNotFoundException", expected, 404)
        else:
            self.add("datazone", "get_user_profile", {"id": profile_id, "type": "IAM"}, expected)

    def unit(self, owners: tuple[str, ...] = ()) -> None:
        answer: dict[str, Any] = {"id": UNIT, "domainId": DOMAIN, "name": "streaming"}
        answer["owners"] = [{"user": {"userId": owner}} for owner in owners]
        self.add("datazone", "get_domain_unit", answer, {"domainIdentifier": DOMAIN, "identifier": UNIT})

    def grants(self, present: bool) -> None:
        for policy, detail in GRANTS.items():
            self.unit()
            principal = {"project": {"projectDesignation": "OWNER", "projectIdentifier": PROJECT}}
            grant = {"principal": principal, "detail": {detail: {"includeChildDomainUnits": False}}}
            expected = {
                "domainIdentifier": DOMAIN,
                "entityType": "DOMAIN_UNIT",
                "entityIdentifier": UNIT,
                "policyType": policy,
            }
            self.add("datazone", "list_policy_grants", {"grantList": [grant] if present else []}, expected)

    # --- Lake Formation, CloudTrail
    def permissions(self, principal: str, permissions: list[str], resource: dict[str, Any] = LAKEHOUSE):
        who = {"DataLakePrincipalIdentifier": principal}
        entries = (
            [{"Principal": who, "Resource": resource, "Permissions": permissions}] if permissions else []
        )
        answer = {"PrincipalResourcePermissions": entries}
        self.add("lakeformation", "list_permissions", answer, {"Principal": who, "Resource": resource})

    def trail(self, selectors: dict[str, Any] | None = None, logging: bool = True, multi: bool = True):
        trail = {"Name": "organization-trail", "TrailARN": TRAIL, "HomeRegion": "us-east-1"}
        self.add(
            "cloudtrail",
            "describe_trails",
            {"trailList": [{**trail, "IsMultiRegionTrail": multi}]},
            {"includeShadowTrails": True},
        )
        if not multi:
            return
        self.add("cloudtrail", "get_trail_status", {"IsLogging": logging}, {"Name": TRAIL})
        answer = selectors or {"EventSelectors": [{"ReadWriteType": "All", "IncludeManagementEvents": True}]}
        self.add("cloudtrail", "get_event_selectors", {"TrailARN": TRAIL, **answer}, {"TrailName": TRAIL})

    # --- IAM (the consumer-roles check)
    def roles(self, prefix: str, *arns: str) -> None:
        answer = {
            "Roles": [
                {
                    "Path": "/" + arn.split(":role/", 1)[1].rsplit("/", 1)[0] + "/"
                    if arn.count("/") > 1
                    else "/",
                    "RoleName": arn.rsplit("/", 1)[1],
                    "RoleId": "AROAEXAMPLEEXAMPLE01",
                    "Arn": arn,
                    "CreateDate": "2026-01-01T00:00:00Z",
                }
                for arn in arns
            ]
        }
        self.add("iam", "list_roles", answer, {"PathPrefix": prefix})

    def role(self, arn: str, boundary: dict[str, Any] | None = None) -> None:
        name = arn.rsplit("/", 1)[1]
        role: dict[str, Any] = {
            "Path": "/",
            "RoleName": name,
            "RoleId": "AROAEXAMPLEEXAMPLE01",
            "Arn": arn,
            "CreateDate": "2026-01-01T00:00:00Z",
        }
        policy = f"arn:aws:iam::{ACCOUNT}:policy/{name}-boundary"
        if boundary is not None:
            role["PermissionsBoundary"] = {
                "PermissionsBoundaryType": "Policy",
                "PermissionsBoundaryArn": policy,
            }
        self.add("iam", "get_role", {"Role": role}, {"RoleName": name})
        self.add("iam", "list_role_policies", {"PolicyNames": []}, {"RoleName": name})
        self.add("iam", "list_attached_role_policies", {"AttachedPolicies": []}, {"RoleName": name})
        if boundary is not None:
            self.add("iam", "get_policy", {"Policy": {"DefaultVersionId": "v1"}}, {"PolicyArn": policy})
            version = {"Document": json.dumps(boundary), "VersionId": "v1", "IsDefaultVersion": True}
            expected = {"PolicyArn": policy, "VersionId": "v1"}
            self.add("iam", "get_policy_version", {"PolicyVersion": version}, expected)

    # --- the unadmitted check: the domain's targets' roles, this stack's managed policies
    def subscribed(self, *targets: tuple[str, str, tuple[str, ...]]) -> None:
        """ListSubscriptionGrants naming each target (environment, target, its principals), then each
        target read (GetSubscriptionTarget)."""
        items = [
            {
                "id": f"grant{n:04d}",
                "createdBy": "datazone",
                "domainId": DOMAIN,
                "createdAt": "2026-11-30T10:00:00Z",
                "updatedAt": "2026-11-30T10:00:00Z",
                "environmentId": environment,
                "subscriptionTargetId": target,
                "grantedEntity": {"listing": {"id": f"listing{n}", "revision": "1"}},
                "status": "COMPLETED",
                "assets": [{"assetId": f"asset{n}", "assetRevision": "1", "status": "GRANTED"}],
            }
            for n, (environment, target, _) in enumerate(targets)
        ]
        self.add(
            "datazone",
            "list_subscription_grants",
            {"items": items},
            {"domainIdentifier": DOMAIN, "maxResults": 50},
        )
        for environment, target, principals in sorted(targets):
            answer = {
                "id": target,
                "authorizedPrincipals": list(principals),
                "domainId": DOMAIN,
                "projectId": "prjconsumer",
                "environmentId": environment,
                "name": "kafka-topic-consumers",
                "type": "KafkaTopicSubscriptionTarget",
                "createdBy": "someone",
                "createdAt": "2026-11-30T10:00:00Z",
                "applicableAssetTypes": ["KafkaTopicAssetType"],
                "subscriptionTargetConfig": [{"formName": "KafkaTopicConsumers", "content": "{}"}],
                "provider": "kafka-lineage",
            }
            expected = {
                "domainIdentifier": DOMAIN,
                "environmentIdentifier": environment,
                "identifier": target,
            }
            self.add("datazone", "get_subscription_target", answer, expected)

    def our_policies(self, *attached: tuple[str, str]) -> None:
        """This stack's managed policies (ListPolicies under its path), each attached to one role (policy
        ARN, role ARN): ListEntitiesForPolicy, then GetRole for the role's ARN."""
        listed = [
            {"PolicyName": arn.rsplit("/", 1)[1], "Arn": arn, "Path": NAMING.path} for arn, _ in attached
        ]
        expected = {"Scope": "Local", "PathPrefix": NAMING.path, "OnlyAttached": True}
        self.add("iam", "list_policies", {"Policies": listed, "IsTruncated": False}, expected)
        for arn, role in attached:
            roles = {"PolicyRoles": [{"RoleName": role.rsplit("/", 1)[1], "RoleId": "AROAEXAMPLEEXAMPLE02"}]}
            self.add("iam", "list_entities_for_policy", roles, {"PolicyArn": arn, "EntityFilter": "Role"})
        for _, role in sorted(attached, key=lambda pair: pair[1].rsplit("/", 1)[1]):
            answer = {
                "Role": {"Path": "/", "RoleName": role.rsplit("/", 1)[1], "RoleId": "AROAEXAMPLEEXAMPLE02"}
            }
            answer["Role"].update(Arn=role, CreateDate="2026-01-01T00:00:00Z")
            self.add("iam", "get_role", answer, {"RoleName": role.rsplit("/", 1)[1]})

    def nothing_unadmitted(self) -> None:
        self.subscribed()
        self.our_policies()

    def healthy(self, skip: str = "") -> None:
        """Every check's reads, answered as an account ready for the first deploy (but `skip`'s)."""
        if "domain" not in skip:
            self.domain()
            self.project()
            self.members((EXEC_PROFILE, "PROJECT_OWNER"))
            self.profile(EXEC_ROLE, EXEC_PROFILE)
            self.grants(present=True)
        if "lake" not in skip:
            self.permissions("IAM_ALLOWED_PRINCIPALS", ["ALL"])
        if "trail" not in skip:
            self.trail()


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Account]:
    account = Account()
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: account.clients.__getitem__)
    for stub in account.stubs.values():
        stub.activate()
    yield account
    for stub in account.stubs.values():
        stub.assert_no_pending_responses()


def _doctor(path: Path, *args: str) -> Any:
    return CliRunner().invoke(cli.main, ["doctor", "--context", str(path), *args], catch_exceptions=False)


def _lines(output: str) -> dict[str, list[tuple[str, str]]]:
    """check -> [(status, message)] of the printed lines."""
    found: dict[str, list[tuple[str, str]]] = {}
    for line in output.splitlines():
        status, check, message = line.split(None, 2)
        found.setdefault(check, []).append((status, message))
    return found


def test_an_account_ready_for_the_first_deploy_passes_every_check(aws: Account, tmp_path: Path):
    # Given an account whose domain, project, grants, tables and trail are as the stack needs them
    aws.healthy()
    # When doctor checks the repository's cdk.json, its placeholders filled in
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then every check is one ok line, and the exit code is 0
    assert done.exit_code == OK, done.output
    lines = _lines(done.stdout)
    assert list(lines) == ["regions", "domain", "project", "grants", "lake-formation", "cloudtrail"]
    assert all(status == "ok" for found in lines.values() for status, _ in found)
    assert lines["domain"] == [("ok", f"{DOMAIN} is AVAILABLE, V2, encrypted with an AWS owned key")]
    assert lines["lake-formation"] == [("ok", "lakehouse: IAM alone governs its tables")]


def test_a_missing_domain_fails_and_the_project_checks_wait_for_it(aws: Account, tmp_path: Path):
    # Given a domain id that GetDomain does not find
    aws.error("datazone", "get_domain", "ResourceNotFoundException", {"identifier": DOMAIN}, 404)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then the domain fails naming the setting, the project's reads are not made, the rest still checked
    assert done.exit_code == PARTIAL
    lines = _lines(done.stdout)
    assert lines["domain"][0][0] == "FAIL"
    assert "check domainId" in lines["domain"][0][1]
    assert "project" not in lines
    assert lines["cloudtrail"][0][0] == "ok"


def test_a_domain_key_the_settings_do_not_name_fails_with_the_deploy_checks_words(aws: Account, tmp_path):
    # Given a domain encrypted with a customer managed key, and no domainKmsKeyArn
    aws.domain(key=KEY)
    aws.project()
    aws.members((EXEC_PROFILE, "PROJECT_OWNER"))
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    aws.grants(present=True)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then the domain check fails with the governance check's cause and fix
    assert done.exit_code == PARTIAL
    assert _lines(done.stdout)["domain"] == [
        (
            "FAIL",
            f"domain {DOMAIN} is encrypted with the customer managed key {KEY}: set domainKmsKeyArn to {KEY} "
            "so that the functions may use it (kms:Decrypt, kms:GenerateDataKey), and let the key policy "
            "allow the account's IAM policies",
        )
    ]


def test_an_execution_role_that_is_no_project_owner_fails_with_the_membership_command(aws, tmp_path):
    # Given a project whose only owner is someone else, and a cdk.json with its own bootstrap qualifier
    role = EXEC_ROLE.replace("hnb659fds", "team42")
    aws.domain()
    aws.project()
    aws.members(("up_someone", "PROJECT_OWNER"))
    aws.profile(role, None)  # the role has no DataZone user profile yet
    aws.grants(present=True)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(), qualifier="team42"))
    # Then the project check names the execution role of that qualifier and the command that adds it
    assert done.exit_code == PARTIAL
    ((status, message),) = _lines(done.stdout)["project"]
    assert status == "FAIL"
    assert message.startswith(
        f"the CDK CloudFormation execution role {role} is not a PROJECT_OWNER of project"
    )
    assert (
        f"aws datazone create-project-membership --domain-identifier {DOMAIN} --project-identifier {PROJECT} "
        f'--member \'{{"userIdentifier":"{role}"}}\' --designation PROJECT_OWNER'
    ) in message


def test_manual_membership_checks_the_stacks_three_roles_by_their_fixed_names(aws: Account, tmp_path):
    # Given projectMembership "manual": the owner made the execution role and two of the roles members
    aws.domain()
    aws.project()
    aws.members(
        (EXEC_PROFILE, "PROJECT_OWNER"), ("up_sync", "PROJECT_CONTRIBUTOR"), ("up_type", "PROJECT_OWNER")
    )
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    roles = {name: f"arn:aws:iam::{ACCOUNT}:role/KafkaLineage-{role}" for name, role, _ in STACK_MEMBERS}
    aws.profile(roles["schema-sync"], "up_sync")
    aws.profile(roles["lineage-emission"], None)
    aws.profile(roles["asset-type-resource"], "up_type")
    aws.grants(present=True)
    aws.permissions("IAM_ALLOWED_PRINCIPALS", ["ALL"])
    aws.trail()
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(projectMembership="manual")))
    # Then only the missing one fails, with its designation
    ((status, message),) = _lines(done.stdout)["project"]
    assert status == "FAIL"
    assert f"the lineage-emission role {roles['lineage-emission']} is not a PROJECT_CONTRIBUTOR" in message


def test_missing_grants_without_domain_unit_id_fail_with_the_add_policy_grant_command(aws, tmp_path):
    # Given a project's domain unit that grants neither policy, and no domainUnitId
    aws.domain()
    aws.project()
    aws.members((EXEC_PROFILE, "PROJECT_OWNER"))
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    aws.grants(present=False)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then each missing grant is a FAIL line with its command, and the setting that lets the stack add it
    grants = _lines(done.stdout)["grants"]
    assert [status for status, _ in grants] == ["FAIL", "FAIL"]
    for (_, message), policy in zip(grants, GRANTS, strict=True):
        assert f"lacks the {policy} policy grant on domain unit {UNIT}" in message
        assert f"aws datazone add-policy-grant --domain-identifier {DOMAIN}" in message
        assert message.endswith(f"-- or set domainUnitId to {UNIT} and the stack adds it")


@pytest.mark.parametrize(("owners", "status"), [((EXEC_PROFILE,), "ok"), (("up_someone",), "FAIL")])
def test_with_domain_unit_id_the_stack_adds_the_grants_when_its_execution_role_owns_the_unit(
    aws: Account, tmp_path: Path, owners: tuple[str, ...], status: str
):
    # Given domainUnitId set, grants not there yet (the stack makes them), and the unit's owners
    aws.domain()
    aws.project()
    aws.members((EXEC_PROFILE, "PROJECT_OWNER"))
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    aws.grants(present=False)
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    aws.unit(owners)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(domainUnitId=UNIT)))
    # Then it passes when the execution role owns the unit, else it names the add-entity-owner command
    ((found, message),) = _lines(done.stdout)["grants"]
    assert found == status
    if status == "FAIL":
        assert (
            f"aws datazone add-entity-owner --domain-identifier {DOMAIN} --entity-type DOMAIN_UNIT "
            f'--entity-identifier {UNIT} --owner \'{{"user":{{"userIdentifier":"{EXEC_ROLE}"}}}}\''
        ) in message
        assert done.exit_code == PARTIAL


def test_a_lake_formation_database_is_a_warning_before_the_lineage_role_exists(aws: Account, tmp_path):
    # Given a database that Lake Formation governs (IAM_ALLOWED_PRINCIPALS holds nothing on its tables)
    aws.healthy(skip="lake")
    aws.permissions("IAM_ALLOWED_PRINCIPALS", [])
    # When doctor runs (projectMembership "stack": CloudFormation names the role at deploy)
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then it is a warning with the grant to make after the deploy, and the exit code stays 0
    assert done.exit_code == OK
    ((status, message),) = _lines(done.stdout)["lake-formation"]
    assert status == "warn"
    assert "after the deploy" in message
    assert "--permissions DESCRIBE" in message
    assert json.dumps(LAKEHOUSE, separators=(",", ":")) in message


@pytest.mark.parametrize(("permissions", "status"), [(["DESCRIBE"], "ok"), (["SELECT"], "FAIL")])
def test_with_fixed_role_names_the_lineage_role_needs_describe_on_a_governed_database(
    aws: Account, tmp_path: Path, permissions: list[str], status: str
):
    # Given projectMembership "manual" (fixed role names) and a database Lake Formation governs
    aws.domain()
    aws.project()
    aws.members(
        (EXEC_PROFILE, "PROJECT_OWNER"),
        ("s", "PROJECT_CONTRIBUTOR"),
        ("l", "PROJECT_CONTRIBUTOR"),
        ("t", "PROJECT_OWNER"),
    )
    aws.profile(EXEC_ROLE, EXEC_PROFILE)
    for (_, role, _), profile in zip(STACK_MEMBERS, "slt", strict=True):
        aws.profile(f"arn:aws:iam::{ACCOUNT}:role/KafkaLineage-{role}", profile)
    aws.grants(present=True)
    aws.permissions("IAM_ALLOWED_PRINCIPALS", [])
    aws.permissions(f"arn:aws:iam::{ACCOUNT}:role/KafkaLineage-LineageEmission", permissions)
    aws.trail()
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(projectMembership="manual")))
    # Then DESCRIBE passes; anything less fails, naming the role in the grant command
    ((found, message),) = _lines(done.stdout)["lake-formation"]
    assert found == status
    assert "KafkaLineage-LineageEmission" in message


@pytest.mark.parametrize(
    ("selectors", "logging", "multi"),
    [
        ({"EventSelectors": [{"ReadWriteType": "ReadOnly", "IncludeManagementEvents": True}]}, True, True),
        ({"EventSelectors": [{"ReadWriteType": "All", "IncludeManagementEvents": False}]}, True, True),
        (None, False, True),  # the trail is not logging
        (None, True, False),  # a single-region trail of another region
    ],
    ids=["read-only", "no-management-events", "stopped", "other-region"],
)
def test_no_logging_trail_of_glue_writes_in_the_region_fails_naming_create_cloud_trail(
    aws: Account, tmp_path: Path, selectors: dict[str, Any] | None, logging: bool, multi: bool
):
    # Given a trail that does not record Glue's write management events in the stack's region
    aws.healthy(skip="trail")
    aws.trail(selectors, logging=logging, multi=multi)
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then the trail check fails, and its fix is the setting that makes the stack create one
    ((status, message),) = _lines(done.stdout)["cloudtrail"]
    assert (status, done.exit_code) == ("FAIL", PARTIAL)
    assert message.endswith(
        "set createCloudTrail to true in cdk.json (the stack then creates a trail of write management events)"
    )


def test_create_cloud_trail_needs_no_trail_and_reads_none(aws: Account, tmp_path: Path):
    # Given createCloudTrail set, and no CloudTrail answers queued (a read would fail the test)
    aws.healthy(skip="trail")
    # When doctor runs / Then the check passes without reading CloudTrail
    done = _doctor(_cdk_json(tmp_path, _context(createCloudTrail=True)))
    assert _lines(done.stdout)["cloudtrail"] == [
        ("ok", "createCloudTrail is set: the stack creates its trail")
    ]


def test_a_cluster_in_another_region_fails_with_the_deploy_checks_words(aws: Account, tmp_path: Path):
    # Given a second source whose cluster is in us-east-1, while the stack deploys to eu-west-1
    context = _context()
    other = {
        **context["sources"][0],
        "registryName": "orders",
        "clusterArn": CLUSTER.replace(REGION, "us-east-1"),
    }
    context["sources"].append(other)
    aws.healthy()
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, context))
    # Then the regions check names that source and the fix
    assert _lines(done.stdout)["regions"] == [
        (
            "FAIL",
            f"kafkaLineage.sources[1].clusterArn is in us-east-1, but the stack deploys to {REGION}: "
            "deploy a stack in us-east-1 for that cluster",
        )
    ]


def test_the_two_accounts_governance_settings_read_no_table_of_their_own(aws: Account, tmp_path: Path):
    # Given docs/two-accounts/governance.json (the kafkaLineage object itself): the source reads its tables
    # through its role, in its own account, so this account's Lake Formation holds none of them
    path = tmp_path / "governance.json"
    shutil.copy(ROOT / "docs" / "two-accounts" / "governance.json", path)
    settings = json.loads(path.read_text())
    path.write_text(json.dumps({**settings, "domainId": DOMAIN, "projectId": PROJECT}))
    aws.healthy(skip="lake")
    # When doctor runs on that file
    done = _doctor(path, "--json")
    # Then every check passes, as JSON, and Lake Formation is not asked
    assert done.exit_code == OK, done.output
    findings = json.loads(done.stdout)
    assert {f["check"]: f["status"] for f in findings}["lake-formation"] == "ok"
    assert {
        "check": "lake-formation",
        "status": "ok",
        "message": "the lineage function reads no database in this account",
    } in findings


def test_placeholders_fail_before_any_aws_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Given the repository's cdk.json as shipped, and no AWS at all
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: pytest.fail("AWS was called"))
    # When doctor runs / Then each placeholder key is a FAIL line
    done = _doctor(ROOT / "cdk.json")
    assert done.exit_code == PARTIAL
    assert [message.split()[0] for _, message in _lines(done.stdout)["config"]] == [
        "kafkaLineage.domainId",
        "kafkaLineage.projectId",
        "kafkaLineage.sources[0].clusterArn",
    ]


def test_settings_synth_would_refuse_are_bad_input(tmp_path: Path):
    # Given a context with a key the model does not know
    done = CliRunner().invoke(
        cli.main, ["doctor", "--context", str(_cdk_json(tmp_path, _context(sourcez=[])))]
    )
    # Then doctor refuses it as synth would, naming the key, with the usage exit code
    assert done.exit_code == BAD_INPUT
    assert "sourcez" in done.output


def test_a_refused_read_fails_its_check_and_names_the_call(aws: Account, tmp_path: Path):
    # Given a caller that may read the domain and project but not DataZone's user profiles
    aws.domain()
    aws.project()
    aws.members((EXEC_PROFILE, "PROJECT_OWNER"))
    expected = {"domainIdentifier": DOMAIN, "userIdentifier": EXEC_ROLE, "type": "IAM"}
    aws.error("datazone", "get_user_profile", "AccessDeniedException", expected, 403)
    aws.grants(present=True)
    aws.healthy(skip="domain")
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context()))
    # Then the project check fails naming the refused call (it cannot tell, which is no pass); the others run
    ((status, message),) = _lines(done.stdout)["project"]
    assert (status, done.exit_code) == ("FAIL", PARTIAL)
    assert message.startswith("datazone:GetUserProfile was refused")
    assert _lines(done.stdout)["grants"][0][0] == "ok"


# --- consumer-roles: who `access.consumerRoles` admits, and whom a boundary keeps from any grant ---------


def test_without_access_the_consumer_roles_check_reads_nothing(aws: Account, tmp_path: Path):
    # Given the repository's cdk.json, which sets no `access`
    aws.healthy()
    # When doctor runs, Then it makes no IAM call (the stubs would fail on one) and prints no such check
    done = _doctor(_cdk_json(tmp_path, _context()))
    assert "consumer-roles" not in _lines(done.stdout)


def test_a_role_whose_boundary_denies_kafka_fails_naming_the_boundary_and_the_rest_pass(
    aws: Account, tmp_path: Path
):
    boundary = json.loads((ROOT / "tests/events/access/sagemaker_project_role_boundary.json").read_text())
    ok_role = f"arn:aws:iam::{ACCOUNT}:role/analytics/orders-reader"
    bounded = f"arn:aws:iam::{ACCOUNT}:role/analytics/datazone_usr_role_proj.1@x=y"
    outside = f"arn:aws:iam::{ACCOUNT}:role/analytics-other/someone"
    # Given `access` admitting roles under /analytics/, in this account and in another one
    access = {
        "consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/analytics/*", "arn:aws:iam::444455556666:role/*"],
        "consumerGroups": ["{projectId}-*"],
    }
    aws.healthy()
    # And two roles under that path (one carrying a Unified Studio project boundary), one beside it
    aws.roles("/analytics/", ok_role, bounded, outside)
    aws.role(ok_role)
    aws.role(bounded, boundary)
    aws.nothing_unadmitted()
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(access=access)))
    # Then the bounded role fails, naming its boundary and the statement; the summary counts the admitted
    lines = _lines(done.stdout)["consumer-roles"]
    assert done.exit_code == PARTIAL, done.output
    failed = [message for status, message in lines if status == "FAIL"]
    assert len(failed) == 1
    assert bounded in failed[0]
    boundary_arn = f"arn:aws:iam::{ACCOUNT}:policy/datazone_usr_role_proj.1@x=y-boundary"
    assert f"{boundary_arn} of role {bounded} denies kafka-cluster:" in failed[0]
    assert "NoStreamingOrSchemaRegistry" in failed[0]
    assert (
        "warn",
        f"arn:aws:iam::{ACCOUNT}:role/analytics/*: 1 of 2 admitted role(s) may receive grants",
    ) in (lines)
    # And the other account's pattern is left to that account
    assert any("444455556666" in message and status == "ok" for status, message in lines)


def test_an_empty_allow_list_warns_that_every_grant_will_fail(aws: Account, tmp_path: Path):
    aws.healthy()
    aws.nothing_unadmitted()
    done = _doctor(_cdk_json(tmp_path, _context(access={"consumerRoles": []})))
    [(status, message)] = _lines(done.stdout)["consumer-roles"]
    assert status == "warn"
    assert "access.consumerRoles is empty" in message


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [
        ("arn:aws:iam::111122223333:role/analytics/*", "/analytics/"),
        ("arn:aws:iam::111122223333:role/analytics/team-*", "/analytics/"),
        ("arn:aws:iam::*:role/a/b/c", "/a/b/"),
        ("arn:aws:iam::111122223333:role/*", "/"),
        ("arn:aws:iam::111122223333:role/reader", "/"),
        ("arn:aws:iam::111122223333:role/ana*/x/*", "/"),
    ],
)
def test_the_listing_starts_at_the_patterns_path_up_to_its_first_wildcard(pattern: str, prefix: str):
    from kafka_lineage_cdk.doctor_access import path_prefix

    assert path_prefix(pattern) == prefix


# --- unadmitted: roles that hold this stack's policies though consumerRoles leaves them out -------------


def test_roles_that_consumer_roles_no_longer_admits_fail_with_the_commands_that_clean_them(
    aws: Account, tmp_path: Path
):
    admitted = f"arn:aws:iam::{ACCOUNT}:role/analytics/orders-reader"
    legacy = f"arn:aws:iam::{ACCOUNT}:role/legacy/old-reader"
    etl = f"arn:aws:iam::{ACCOUNT}:role/etl/etl-prod"
    managed = f"arn:aws:iam::{ACCOUNT}:policy{NAMING.path}{NAMING.managed_name('etl-prod', 1)}"
    # Given consumerRoles narrowed to /analytics/ (no role there yet)
    access = {"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/analytics/*"]}
    aws.healthy()
    aws.roles("/analytics/")
    # And a subscription target naming an admitted role and legacy/old-reader, which holds our inline
    # policy; and etl-prod, named by no grant, holding one of our managed policies
    aws.subscribed(("env1", "target1", (admitted, legacy)))
    aws.our_policies((managed, etl))
    aws.add("iam", "get_role", {"Role": _role_of(etl)}, {"RoleName": "etl-prod"})
    aws.add("iam", "list_role_policies", {"PolicyNames": []}, {"RoleName": "etl-prod"})
    attached = {
        "AttachedPolicies": [{"PolicyName": NAMING.managed_name("etl-prod", 1), "PolicyArn": managed}]
    }
    aws.add("iam", "list_attached_role_policies", attached, {"RoleName": "etl-prod"})
    versions = [{"VersionId": "v3", "IsDefaultVersion": True, "CreateDate": "2026-01-01T00:00:00Z"}]
    aws.add("iam", "list_policy_versions", {"Versions": versions}, {"PolicyArn": managed})
    version = {"PolicyVersion": {"Document": "{}", "VersionId": "v3"}}
    aws.add("iam", "get_policy_version", version, {"PolicyArn": managed, "VersionId": "v3"})
    aws.add("iam", "get_role", {"Role": _role_of(legacy)}, {"RoleName": "old-reader"})
    aws.add("iam", "list_role_policies", {"PolicyNames": [NAMING.inline_name]}, {"RoleName": "old-reader"})
    inline = {"RoleName": "old-reader", "PolicyName": NAMING.inline_name, "PolicyDocument": "{}"}
    aws.add("iam", "get_role_policy", inline, {"RoleName": "old-reader", "PolicyName": NAMING.inline_name})
    aws.add("iam", "list_attached_role_policies", {"AttachedPolicies": []}, {"RoleName": "old-reader"})
    # When doctor runs
    done = _doctor(_cdk_json(tmp_path, _context(access=access)))
    # Then each of the two fails, naming what it holds and the commands that remove it; doctor exits 1
    assert done.exit_code == PARTIAL, done.output
    [(status_etl, etl_line), (status_legacy, legacy_line)] = _lines(done.stdout)["unadmitted"]
    assert (status_etl, status_legacy) == ("FAIL", "FAIL")
    assert etl_line.startswith(f"{etl} still holds this stack's access ({managed})")
    assert (
        f"aws iam detach-role-policy --role-name etl-prod --policy-arn {managed} && "
        f"aws iam delete-policy --policy-arn {managed}"
    ) in etl_line
    assert (
        f"aws iam delete-role-policy --role-name old-reader --policy-name {NAMING.inline_name}" in legacy_line
    )
    assert admitted not in done.stdout.split("unadmitted", 1)[1]


def test_nothing_unadmitted_is_one_ok_line(aws: Account, tmp_path: Path):
    access = {"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/analytics/*"]}
    aws.healthy()
    aws.roles("/analytics/")
    aws.nothing_unadmitted()
    done = _doctor(_cdk_json(tmp_path, _context(access=access)))
    assert _lines(done.stdout)["unadmitted"] == [
        ("ok", "no role that access.consumerRoles leaves out holds this stack's policies")
    ]


def _role_of(arn: str) -> dict[str, Any]:
    path = "/" + arn.split(":role/", 1)[1].rsplit("/", 1)[0] + "/"
    name = arn.rsplit("/", 1)[1]
    return {
        "Path": path,
        "RoleName": name,
        "RoleId": "AROAEXAMPLEEXAMPLE03",
        "Arn": arn,
        "CreateDate": "2026-01-01T00:00:00Z",
    }


@pytest.mark.parametrize("code", ["ExpiredToken", "InvalidClientTokenId", "AccessDenied"])
def test_credentials_sts_refuses_exit_3_naming_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str
):
    # Given credentials STS refuses (expired, unknown, or a caller denied)
    sts = boto3.client("sts", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(sts)
    stub.add_client_error("get_caller_identity", code, f"{code} from STS", 403)
    stub.activate()
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: {"sts": sts}.__getitem__)
    # When doctor runs / Then it exits 3, one line naming GetCallerIdentity and STS's answer, no check run
    done = _doctor(_cdk_json(tmp_path, _context()))
    assert done.exit_code == 3
    assert done.stdout == ""
    [line] = [line for line in done.stderr.splitlines() if line.strip()]
    assert "sts:GetCallerIdentity" in line
    assert f"{code} from STS" in line
