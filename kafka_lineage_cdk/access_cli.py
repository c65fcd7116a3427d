"""`kafka-lineage access` and `kafka-lineage grants`: the subscription-grants function of a deployed stack
(docs/access.md, docs/cli.md), registered on the command group by cli.py.

- `access` shows, per consumer role, which topics it may read and which grants failed and why, read from
  DataZone and IAM with clients that can only read (access_view.py says why this design);
- `grants` invokes the function by hand, like `sync` and `lineage`: a reconciling run, or its dry run.

The function is found by its stack output `SubscriptionGrantsFunctionName` (deployed.py).
"""

from __future__ import annotations

import json
from typing import Any

import click

from . import cli
from .outcome import BAD_INPUT, FAILED, OK, PARTIAL
from .report import items_table


@cli.main.command()
@cli._deployed_options
@click.option("--dry-run", is_flag=True, help="The plan only: what the run would write (nothing written).")
@cli._EVENT
@click.pass_context
def grants(ctx: click.Context, dry_run: bool, event: str | None, **common: Any) -> None:
    """Run subscription-grants: a reconciling run (pending grants finished, every role's access rendered)."""
    cli._remember(ctx, **common)
    cli._run_deployed(ctx, "subscription-grants", cli._payload(event, {"dryRun": dry_run}))


@cli.main.command()
@cli._deployed_options
@click.option(
    "--role", "roles", multiple=True, help="Only roles matching this ARN pattern (`*` any run; repeatable)."
)
@click.pass_context
def access(ctx: click.Context, roles: tuple[str, ...], **common: Any) -> None:
    """Who may read which topic: DataZone's grants beside IAM's policies (reads only). Exit 1 when a grant
    failed or IAM disagrees with the catalog."""
    from kafka_lineage.model.failures import AwsError

    from .access_view import NoGrantsFunction, function_settings, read_view
    from .deployed import NotDeployed, describe_stack, find_deployment
    from .doctor import read_only_clients

    clients = read_only_clients(cli.make_clients(common["region"], common["profile"]))
    try:
        deployment = find_deployment(
            describe_stack(clients("cloudformation"), common["stack"]), common["construct"]
        )
        settings = function_settings(clients("lambda"), deployment.function("subscription-grants"))
    except (NotDeployed, NoGrantsFunction) as error:
        cli._err.print(f"[red]kafka-lineage: {error}[/]")
        ctx.exit(BAD_INPUT)
    except AwsError as error:
        cli._err.print(f"[red]kafka-lineage: reading the stack failed: {error}[/]")
        ctx.exit(FAILED)
    try:
        account = clients("sts").get_caller_identity()["Account"]
        view = read_view(clients, settings, account, roles)
    except AwsError as error:  # AWS refused a read (credentials, permissions)
        cli._err.print(f"[red]kafka-lineage: reading grants and roles failed: {error}[/]")
        ctx.exit(FAILED)
    if common["as_json"]:
        click.echo(json.dumps(view.to_json(), indent=2, sort_keys=True, default=str))
    else:
        cli._out.print(
            items_table("access (standing grants, and whether IAM lets the role read)", view.access)
        )
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
                cli._out.print(items_table(title, items))
    ctx.exit(PARTIAL if view.attention else OK)
