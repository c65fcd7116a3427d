"""`kafka-lineage access` and `kafka-lineage grants`: the subscription-grants function of a deployed stack
(docs/access.md, docs/cli.md); cli.py adds them to the command group.

- `access` shows, per consumer role, which topics it may read and which grants failed and why, read from
  DataZone and IAM with clients that can only read (access_view.py says why this design), and the roles
  that hold this stack's policies though `consumerRoles` no longer admits them (unadmitted.py);
- `grants` invokes the function by hand, like `sync` and `lineage`: a reconciling run, or its dry run.

The function is found by its stack output `SubscriptionGrantsFunctionName` (deployed.py).
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape

from .commandline import (
    ERR,
    EVENT_OPTION,
    OUT,
    aws_call,
    clients,
    deployed_options,
    deployment,
    fail,
    payload,
    remember,
    run_deployed,
)
from .outcome import BAD_INPUT, OK, PARTIAL
from .report import items_table

UNADMITTED_TITLE = (
    "not admitted by consumerRoles, still holding this stack's policies (they can read; clean them with "
    "the commands shown, and revoke their subscriptions so the catalog agrees)"
)


def show_unadmitted(items: list[dict[str, Any]]) -> None:
    """A table of the roles, then their commands as plain lines (a table cell would cut them)."""
    OUT.print(items_table(UNADMITTED_TITLE, [{"role": i["role"], "policies": i["policies"]} for i in items]))
    for item in items:
        click.echo(f"# {item['role']}")
        for command in item["clean"]:
            click.echo(command)


@click.command()
@deployed_options
@click.option("--dry-run", is_flag=True, help="The plan only: what the run would write (nothing written).")
@EVENT_OPTION
@click.pass_context
def grants(ctx: click.Context, dry_run: bool, event: str | None, **common: Any) -> None:
    """Run subscription-grants: a reconciling run (pending grants finished, every role's access rendered)."""
    remember(ctx, **common)
    run_deployed(ctx, "subscription-grants", payload(event, {"dryRun": dry_run}))


@click.command()
@deployed_options
@click.option(
    "--role", "roles", multiple=True, help="Only roles matching this ARN pattern (`*` any run; repeatable)."
)
@click.pass_context
def access(ctx: click.Context, roles: tuple[str, ...], **common: Any) -> None:
    """Who may read which topic: DataZone's grants beside IAM's policies (reads only). Exit 1 when a grant
    failed, IAM disagrees with the catalog, or a role no longer admitted still holds this stack's access."""
    from .access_view import NoGrantsFunction, function_settings, read_view
    from .deployed import NotDeployed
    from .doctor import read_only_clients

    reader = read_only_clients(clients(ctx, common["region"], common["profile"]))
    found = deployment(ctx, reader, common["stack"], common["construct"])
    try:
        function_name = found.function("subscription-grants")
        with aws_call(ctx, f"reading the settings of {function_name} (lambda:GetFunctionConfiguration)"):
            settings = function_settings(reader("lambda"), function_name)
    except (NotDeployed, NoGrantsFunction) as error:
        fail(ctx, BAD_INPUT, str(error))
    with aws_call(ctx, "reading the caller's account (sts:GetCallerIdentity)"):
        account = reader("sts").get_caller_identity()["Account"]
    with aws_call(ctx, "reading grants (DataZone) and roles (IAM)"):
        view = read_view(reader, settings, account, roles)
    if common["as_json"]:
        click.echo(json.dumps(view.to_json(), indent=2, sort_keys=True, default=str))
    else:
        OUT.print(items_table("access (standing grants, and whether IAM lets the role read)", view.access))
        for title, items in (
            (
                "left over (our policies give it, no grant does: the reconciling run removes it)",
                view.leftover,
            ),
            ("failed grants", view.failed),
            ("pending grants", view.pending),
            ("grants that name no usable topic", view.unusable),
        ):
            if items:
                OUT.print(items_table(title, items))
        if view.unadmitted:
            show_unadmitted(view.unadmitted)
        if view.unadmitted_error is not None:
            warning = escape(view.unadmitted_error)
            ERR.print(f"[yellow]kafka-lineage: {warning}[/]", highlight=False, soft_wrap=True)
    ctx.exit(PARTIAL if view.attention else OK)
