"""`kafka-lineage`: run and inspect kafka-lineage from a terminal (docs/cli.md).

    kafka-lineage plan    --stack KafkaLineage            # schema-sync's dry run: what it would write
    kafka-lineage sync    --stack KafkaLineage [--schema-arn ARN ...] [--verify]
    kafka-lineage lineage --stack KafkaLineage [--topic [REGISTRY:]TOPIC ...] [--force] [--dry-run]
    kafka-lineage status  --stack KafkaLineage
    kafka-lineage access  --stack KafkaLineage            # access_cli.py: who may read which topic
    kafka-lineage grants  --stack KafkaLineage [--dry-run]
    kafka-lineage doctor  --context cdk.json              # before the first deploy: the account, read only

Against a deployed stack it reads the stack's outputs (CloudFormation DescribeStacks) for the function
names and invokes the function (Lambda Invoke, RequestResponse). Tables by default, `--json` for the result
as the function returned it. Exit codes: 0 success, 1 partial failure (some items failed; `status`: needs
attention), 2 bad input (usage, payload refused, stack or construct not found), 3 the run failed as a whole
(AWS refused a call: one line naming it, commandline.aws_call). The shared parts are commandline.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from . import __version__
from .access_cli import access, grants
from .commandline import (
    EVENT_OPTION,
    OUT,
    aws_call,
    aws_clients,
    clients,
    deployed_options,
    deployment,
    lineage_options,
    lineage_payload,
    payload,
    remember,
    run_deployed,
    use_clients,
)
from .outcome import OK, PARTIAL
from .report import items_table

# The AWS clients' factory, as the command group hands it to every command (`--region`/`--profile` choose
# the session). Tests replace it (stubbed clients).
make_clients = aws_clients


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kafka-lineage")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Run and inspect kafka-lineage: a deployed stack, or an account before the first deploy.

    Exit codes: 0 success; 1 partial failure (some items failed, the rest was done; for status: needs
    attention); 2 bad input (usage, a payload the function refused, stack or construct not found); 3 the run
    failed as a whole (AWS refused the call, the function crashed or timed out).
    """
    use_clients(ctx, _make_clients)


def _make_clients(region: str | None, profile: str | None) -> Any:
    # `make_clients` looked up when a command runs, so that a replaced one is the one used.
    return make_clients(region, profile)


@main.command()
@deployed_options
@click.option("--schema-arn", "schema_arns", multiple=True, help="Only this schema (repeatable).")
@click.option("--verify", is_flag=True, help="Plan a deep verification run.")
@EVENT_OPTION
@click.pass_context
def plan(
    ctx: click.Context, schema_arns: tuple[str, ...], verify: bool, event: str | None, **common: Any
) -> None:
    """schema-sync's dry run: what it would create, revise and delete (nothing is written)."""
    remember(ctx, **common)
    sent = payload(event, {"schemaArns": list(schema_arns), "verify": verify, "dryRun": True})
    run_deployed(ctx, "schema-sync", sent)


@main.command()
@deployed_options
@click.option("--schema-arn", "schema_arns", multiple=True, help="Only this schema (repeatable).")
@click.option("--verify", is_flag=True, help="Deep verification (adopts or removes unmapped assets).")
@click.option("--allow-mass-delete", is_flag=True, help="Lift the deletion fail-safe for this run.")
@EVENT_OPTION
@click.pass_context
def sync(
    ctx: click.Context,
    schema_arns: tuple[str, ...],
    verify: bool,
    allow_mass_delete: bool,
    event: str | None,
    **common: Any,
) -> None:
    """Run schema-sync: every source's schemas, or the ones named."""
    remember(ctx, **common)
    options = {"schemaArns": list(schema_arns), "verify": verify, "allowMassDelete": allow_mass_delete}
    run_deployed(ctx, "schema-sync", payload(event, options))


@main.command()
@deployed_options
@lineage_options
@click.pass_context
def lineage(
    ctx: click.Context,
    topics: tuple[str, ...],
    force: bool,
    dry_run: bool,
    allow_mass_delete: bool,
    event: str | None,
    **common: Any,
) -> None:
    """Run lineage-emission: every mapped topic, or the ones named."""
    remember(ctx, **common)
    run_deployed(ctx, "lineage-emission", lineage_payload(topics, force, dry_run, allow_mass_delete, event))


@main.command()
@deployed_options
@click.pass_context
def status(ctx: click.Context, **common: Any) -> None:
    """The stack, its functions and the failure queue: exit 1 when something needs attention."""
    from .deployed import status as read_status

    remember(ctx, **common)
    client = clients(ctx, common["region"], common["profile"])
    found_deployment = deployment(ctx, client, common["stack"], common["construct"])
    calls = "lambda:GetFunctionConfiguration, sqs:GetQueueAttributes"
    with aws_call(ctx, f"reading the state of stack {common['stack']} ({calls})"):
        found = read_status(client, found_deployment.stack, found_deployment)
    attention = (
        not str(found["stack"]["status"]).endswith("_COMPLETE")
        or "ROLLBACK" in str(found["stack"]["status"])
        or any(f["state"] not in ("Active", "") for f in found["functions"])
        or bool(found["failureQueueMessages"])
    )
    if common["as_json"]:
        click.echo(json.dumps({**found, "needsAttention": attention}, indent=2, sort_keys=True, default=str))
    else:
        OUT.print(items_table(f"stack {common['stack']}", [found["stack"]]))
        OUT.print(items_table("functions", found["functions"]))
        queue = Table(title="failure queue (events the functions or rules gave up on)", title_justify="left")
        queue.add_column("messages", justify="right")
        queue.add_row(str(found["failureQueueMessages"]))
        OUT.print(queue)
        OUT.print(items_table("outputs", [{"output": k, "value": v} for k, v in found["outputs"].items()]))
    ctx.exit(PARTIAL if attention else OK)


# --- before the first deploy ---------------------------------------------------------------------------
def _doctor_config(context: Path) -> tuple[Any, str | None]:
    """The validated settings of a cdk.json (or of a file that is the `kafkaLineage` object) and the CDK
    bootstrap qualifier it names, as synth reads them (stacks/config.py load_config)."""
    from stacks import config as config_module

    from .doctor import kafka_lineage_context

    try:
        document = json.loads(context.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise click.BadParameter(f"cannot read {context}: {error}", param_hint="--context") from error
    if not isinstance(document, dict):
        raise click.BadParameter(f"{context} holds no JSON object", param_hint="--context")
    raw, qualifier = kafka_lineage_context(document)
    try:
        return config_module.load_config(raw), qualifier
    except config_module.ConfigError as error:
        raise click.BadParameter(str(error), param_hint="--context") from error


@main.command()
@click.option(
    "--context",
    "context",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("cdk.json"),
    show_default=True,
    help="The cdk.json whose context.kafkaLineage to check, or a JSON file that is that object.",
)
@click.option("--region", default=None, help="The stack's region (default: the AWS configuration's).")
@click.option("--profile", default=None, help="The AWS profile to use (the target account's credentials).")
@click.option(
    "--qualifier",
    default=None,
    help="The CDK bootstrap qualifier (default: the context's @aws-cdk/core:bootstrapQualifier, or "
    "hnb659fds).",
)
@click.option(
    "--execution-role",
    default=None,
    help="The ARN of the role CloudFormation deploys with, when it is not the CDK bootstrap's.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.pass_context
def doctor(
    ctx: click.Context,
    context: Path,
    region: str | None,
    profile: str | None,
    qualifier: str | None,
    execution_role: str | None,
    as_json: bool,
) -> None:
    """Check the account before the first deploy; reads only. Exit 1 when a check fails."""
    from .doctor import FAIL, Finding, Target, execution_role_arn, exit_code, read_only_clients, run_checks

    config, context_qualifier = _doctor_config(context)
    if config.placeholders:
        findings = [
            Finding("config", FAIL, f"{key} still holds its placeholder: set it in {context}")
            for key in config.placeholders
        ]
    else:
        reader = read_only_clients(clients(ctx, region, profile))
        sts = reader("sts")
        if not sts.meta.region_name:
            raise click.UsageError("no region: pass --region or configure one (AWS_REGION)")
        with aws_call(ctx, "reading the caller's identity (sts:GetCallerIdentity)"):
            identity = sts.get_caller_identity()
        partition, account = identity["Arn"].split(":")[1], identity["Account"]
        role = execution_role or execution_role_arn(
            partition, account, sts.meta.region_name, qualifier or context_qualifier
        )
        target = Target(account, partition, sts.meta.region_name, role)
        # Each check reports the reads refused to it; this catches only what no check expected.
        with aws_call(ctx, "checking the account"):
            findings = run_checks(config, target, reader)
    if as_json:
        click.echo(json.dumps([vars(f) for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(f"{finding.status:<4}  {finding.check:<14}  {finding.message}")
    ctx.exit(PARTIAL if exit_code(findings) else OK)


# Registered here, explicitly: the command modules import only commandline.py, never this one.
main.add_command(access)
main.add_command(grants)
