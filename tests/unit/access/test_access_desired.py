"""A role's access from the grants that stand: what each grant gives, nothing else, in one order."""

from __future__ import annotations

import random

from kafka_lineage.access.desired import role_access, statements
from kafka_lineage.access.model import GrantStatus
from kafka_lineage.access.packing import Budget, pack
from kafka_lineage.access.plan import text
from tests.unit.access.access_builders import CLUSTER, OTHER_CLUSTER, PATH_ROLE, ROLE, grant, settings

TOPIC_ARN = CLUSTER.replace(":cluster/", ":topic/")
GROUP_ARN = CLUSTER.replace(":cluster/", ":group/")


def rendered(grants: list, role: str = ROLE) -> list[dict]:
    return [s.render() for s in statements(role_access(role, grants, settings()))]


def test_two_grants_to_one_role_give_connect_their_topics_their_groups_and_schema_versions() -> None:
    # Given two grants on one cluster to one role
    grants = [grant("dbserver1.inventory.customers", number=1), grant("dbserver1.inventory.orders", number=2)]

    # When the role's access is rendered
    access = rendered(grants)

    # Then one statement per kind, the topics listed in one, and nothing else
    assert [(s["Action"], s["Resource"]) for s in access] == [
        (["glue:GetSchemaVersion"], ["*"]),
        (["kafka-cluster:Connect"], [CLUSTER]),
        (
            ["kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"],
            [f"{TOPIC_ARN}/dbserver1.inventory.customers", f"{TOPIC_ARN}/dbserver1.inventory.orders"],
        ),
        (["kafka-cluster:AlterGroup", "kafka-cluster:DescribeGroup"], [f"{GROUP_ARN}/prj_sales01-*"]),
    ]
    assert all(s["Effect"] == "Allow" and set(s) == {"Sid", "Effect", "Action", "Resource"} for s in access)
    assert len({s["Sid"] for s in access}) == len(access)


def test_a_revoke_keeps_what_another_grant_still_gives() -> None:
    # Given two projects' grants on the same topic to one role, one of them revoked
    kept = grant("orders", number=1, project="prj_a")
    revoked = grant("orders", number=2, project="prj_b", revoke=True)
    other = grant("payments", number=3, project="prj_b", status=GrantStatus.REVOKED)

    # When the role's access is rendered
    access = role_access(ROLE, [kept, revoked, other], settings())

    # Then the topic stays (the other grant gives it), the revoked project's groups and topic go
    (cluster,) = access.clusters
    assert cluster.topics == (f"{TOPIC_ARN}/orders",)
    assert cluster.groups == (f"{GROUP_ARN}/prj_a-*",)
    assert access.grants == (kept.key,)


def test_when_every_grant_is_revoked_the_role_has_no_access_at_all() -> None:
    grants = [grant("orders", revoke=True), grant("payments", number=2, status=GrantStatus.GRANT_FAILED)]

    assert statements(role_access(ROLE, grants, settings())) == ()


def test_a_grant_gives_only_to_its_own_roles_and_a_role_with_a_path_uses_its_name_in_groups() -> None:
    # Given a grant to a role with a path, and one to another role
    grants = [grant("orders", roles=(PATH_ROLE,)), grant("payments", number=2, roles=(ROLE,))]
    templates = settings(consumerGroups=["{roleName}.{projectId}-*"])

    # When the role with a path's access is rendered
    access = role_access(PATH_ROLE, grants, templates)

    # Then it has its own topic only, and its groups carry the role's name, not its path
    (cluster,) = access.clusters
    assert cluster.topics == (f"{TOPIC_ARN}/orders",)
    assert cluster.groups == (f"{GROUP_ARN}/orders-reader.prj_sales01-*",)


def test_the_output_is_the_same_whatever_the_order_of_the_grants() -> None:
    # Given grants over two clusters, roles and projects
    grants = [
        grant(f"topic.{n}", number=n, cluster=(CLUSTER, OTHER_CLUSTER)[n % 2], project=f"prj_{n % 3}")
        for n in range(1, 40)
    ]
    shuffled = list(grants)
    random.Random(7).shuffle(shuffled)

    # When rendered and packed from both orders
    def documents(order: list) -> tuple:
        packed = pack(
            statements(role_access(ROLE, order, settings())), Budget(inline=10_240, managed_slots=10)
        )
        return text(packed.inline or {}), tuple(text(d) for d in packed.managed)

    # Then the documents are the same text
    assert documents(grants) == documents(shuffled)
    assert documents(list(reversed(grants))) == documents(grants)
