"""IAM mode's identities: access keys to roles, acting as a role, revoking a grant."""

from __future__ import annotations

import os

import pytest

from local.standins.iam import DEFAULT_KEY, Iam, access_key_of
from local.standins.iam_policy import Request, evaluate, parse_policy
from local.standins.iam_roles import Role


def role(name: str, *actions: str) -> Role:
    document = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": list(actions), "Resource": "*"}],
    }
    return Role(
        name=name,
        role_name=f"KafkaLineage-{name}",
        arn=f"arn:aws:iam::123456789012:role/KafkaLineage-{name}",
        function_name=name,
        function_arn=f"arn:aws:lambda:eu-west-1:123456789012:function:{name}",
        handler=f"{name}.handler",
        statements=parse_policy(document),
        documents=(document,),
    )


def test_the_access_key_is_read_from_the_sigv4_credential():
    header = (
        "AWS4-HMAC-SHA256 Credential=ASIAABCDEFGHIJKLMNOP/20261130/eu-west-1/glue/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=abc"
    )
    assert access_key_of(header) == "ASIAABCDEFGHIJKLMNOP"
    assert access_key_of("") is None


def test_each_role_gets_its_own_temporary_key_and_a_changed_grant_a_new_one():
    iam = Iam("eu-west-1", "123456789012")
    first = iam.credentials_for(role("schema-sync", "glue:GetSchema"))
    again = iam.credentials_for(role("schema-sync", "glue:GetSchema"))
    other = iam.credentials_for(role("schema-sync", "glue:GetSchema", "glue:ListSchemas"))

    assert first == again
    assert first["AWS_ACCESS_KEY_ID"].startswith("ASIA")
    assert len(first["AWS_ACCESS_KEY_ID"]) == 20
    assert other["AWS_ACCESS_KEY_ID"] != first["AWS_ACCESS_KEY_ID"]
    assert DEFAULT_KEY not in (first["AWS_ACCESS_KEY_ID"], other["AWS_ACCESS_KEY_ID"])
    known = iam.role_of(first["AWS_ACCESS_KEY_ID"])
    assert known is not None
    assert known.statements == role("schema-sync", "glue:GetSchema").statements
    assert iam.role_of("ASIANOBODYISSUEDTHIS") is None


def test_acting_as_sets_the_roles_credentials_and_restores_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", DEFAULT_KEY)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    iam = Iam("eu-west-1", "123456789012")
    sync = role("schema-sync", "glue:GetSchema")

    with iam.acting_as(sync) as credentials:
        assert os.environ["AWS_ACCESS_KEY_ID"] == credentials["AWS_ACCESS_KEY_ID"]
        with iam.acting_as(sync):  # nested (or concurrent) runs of the same role share it
            assert os.environ["AWS_SESSION_TOKEN"] == credentials["AWS_SESSION_TOKEN"]
        assert os.environ["AWS_ACCESS_KEY_ID"] == credentials["AWS_ACCESS_KEY_ID"]
        # Another role at the same time cannot be: the environment is the process's
        with (
            pytest.raises(RuntimeError, match="already acting as schema-sync"),
            iam.acting_as(role("lineage-emission", "datazone:PostLineageEvent")),
        ):
            pass

    assert os.environ["AWS_ACCESS_KEY_ID"] == DEFAULT_KEY
    assert "AWS_SESSION_TOKEN" not in os.environ


def test_a_revoked_action_leaves_the_rest_of_the_statement():
    iam = Iam("eu-west-1", "123456789012")
    lineage = role("lineage-emission", "datazone:PostLineageEvent", "datazone:ListLineageEvents")

    iam.revoke("lineage-emission", "datazone:PostLineageEvent")

    statements = iam.statements_of(lineage)
    assert not evaluate(statements, Request("datazone:PostLineageEvent")).allowed
    assert evaluate(statements, Request("datazone:ListLineageEvents")).allowed
    iam.reset()
    assert evaluate(iam.statements_of(lineage), Request("datazone:PostLineageEvent")).allowed


def test_an_action_granted_by_a_wildcard_cannot_be_revoked_silently():
    iam = Iam("eu-west-1", "123456789012")
    iam.revoke("schema-sync", "glue:GetSchema")

    with pytest.raises(ValueError, match="granted by wildcard"):
        iam.statements_of(role("schema-sync", "glue:Get*"))
