"""`kafka-lineage lineage --check-glue TABLE`: read back, with the person's own credentials, what the Glue
Data Catalog's lineage graph of their account shows upstream of a table (GetLineageNode, one call per node).

No role of the stack may call glue:GetLineageNode: it reads every node of the account, whatever the
catalog's permissions say (the Glue guide, "Data lineage authorization"). So this check runs as the person,
who needs that permission themselves. The graph follows PostLineageEvent asynchronously (minutes): a table
not found yet may only be pending.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

# A table as `database.table`, `database/table`, or its ARN.
_ARN = re.compile(r"arn:aws[a-z-]*:glue:[a-z0-9-]+:\d{12}:table/[^/]+/[^/]+")
MAX_DEPTH = 8


def table_arn(table: str, account: str, region: str, partition: str = "aws") -> str:
    """The table's ARN, Glue's SourceIdentifier of its lineage node."""
    if _ARN.fullmatch(table):
        return table
    database, separator, name = table.replace("/", ".", 1).partition(".")
    if not separator or not database or not name:
        raise ValueError(f"{table!r}: give the table as database.table, database/table or its ARN")
    return f"arn:{partition}:glue:{region}:{account}:table/{database.lower()}/{name.lower()}"


def walk_upstream(get_node: Callable[[str], dict[str, Any]], identifier: str) -> list[list[dict[str, Any]]]:
    """The nodes upstream of `identifier`, level by level (the table itself first), each node read once."""
    levels: list[list[dict[str, Any]]] = [[get_node(identifier)]]
    seen = {levels[0][0]["Id"]}
    while len(levels) <= MAX_DEPTH:
        ids = [
            ref["Id"] for node in levels[-1] for ref in node.get("UpstreamNodes", []) if ref["Id"] not in seen
        ]
        if not ids:
            break
        seen.update(ids)
        levels.append([get_node(node_id) for node_id in dict.fromkeys(ids)])
    return levels


def check_glue(clients: Callable[[str], Any], table: str) -> tuple[int, list[str]]:
    """(exit code, lines): 0 and the upstream levels when the table's node is found, 1 when it is not (yet),
    3 when AWS refused the call."""
    try:
        identity = clients("sts").get_caller_identity()
        glue = clients("glue")
        region = glue.meta.region_name
        partition = str(identity["Arn"]).split(":")[1]
        arn = table_arn(table, str(identity["Account"]), region, partition)
        levels = walk_upstream(lambda node: dict(glue.get_lineage_node(Identifier=node)), arn)
    except ValueError as error:
        return 2, [str(error)]
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        if code == "EntityNotFoundException":
            return 1, [
                f"{table}: no node in the Glue lineage graph of this account and Region. Lineage is "
                "processed within minutes of a post: check again, then check lineage-emission's result "
                "(its `glue` member) and `lineageTargets`."
            ]
        return 3, [
            f"GetLineageNode refused: {error} (it needs glue:GetLineageNode, granted to no stack role)"
        ]
    except BotoCoreError as error:
        return 3, [f"the Glue lineage graph could not be read: {error}"]
    lines = []
    for depth, level in enumerate(levels):
        for node in level:
            lines.append(
                f"{'  ' * depth}{'<- ' if depth else ''}{node.get('TypeName', '')}: "
                f"{node.get('SourceIdentifier') or node.get('Name') or node['Id']}"
            )
    return 0, lines
