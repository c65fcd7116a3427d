"""`kafka-lineage`: run and inspect kafka-lineage from a terminal (docs/cli.md).

    kafka-lineage plan    --stack KafkaLineage            # schema-sync's dry run: what it would write
    kafka-lineage sync    --stack KafkaLineage [--schema-arn ARN ...] [--verify]
    kafka-lineage lineage --stack KafkaLineage [--topic [REGISTRY:]TOPIC ...] [--force] [--dry-run]
    kafka-lineage status  --stack KafkaLineage
    kafka-lineage doctor  --context cdk.json              # before the first deploy: the account, read only

Against a deployed stack it reads the stack's outputs (CloudFormation DescribeStacks) for the function
names and invokes the function (Lambda Invoke, RequestResponse). Tables by default, `--json` for the result
as the function returned it. Exit codes: 0 success, 1 partial failure (some items failed; `status`: needs
attention), 2 bad input (usage, payload refused, stack or construct not found), 3 the run failed as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from . import __version__
from .outcome import BAD_INPUT, FAILED, OK, PARTIAL, Outcome
from .report import items_table, outcome_tables

# Tables on stdout; progress and errors on stderr, so `--json` output stays one JSON document.
_out = Console()
_err = Console(stderr=True)
# Tests replace it (CliRunner with stubbed clients); `--region`/`--profile` choose the session.
ClientFactory = Callable[[str], Any]


def aws_clients(region: str | None, profile: str | None) -> ClientFactory:
    import boto3
    from botocore.config import Config

    from .deployed import INVOKE_READ_TIMEOUT

    session = boto3.session.Session(region_name=region, profile_name=profile)
    # TCP keepalive: a connection idle for the minutes a run takes is not dropped on the way (Lambda's
    # advice for long synchronous invocations).
    one_try = Config(
        read_timeout=INVOKE_READ_TIMEOUT,
        retries={"mode": "standard", "total_max_attempts": 1},
        tcp_keepalive=True,
    )

    def client(service: str) -> Any:
        return session.client(service, config=one_try) if service == "lambda" else session.client(service)

    return client


make_clients: Callable[[str | None, str | None], ClientFactory] = aws_clients


@contextmanager
def _progress(message: str) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr while a run lasts (nothing when stderr is not a terminal)."""
    with _err.status(message) as status:

        def update(text: str) -> None:
            status.update(text)

        yield update


def _emit(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(outcome.to_json(), indent=2, sort_keys=True, default=str))
        return
    for table in outcome_tables(outcome):
        _out.print(table)
    if outcome.exit_code == PARTIAL:
        _err.print(f"[yellow]{outcome.function}: {outcome.failures} item(s) failed; the others were done[/]")


def _payload(event: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The invocation's payload: `--event` (JSON text, or @file), with the options' members added."""
    payload: dict[str, Any] = {}
    if event:
        text = Path(event[1:]).read_text(encoding="utf-8") if event.startswith("@") else event
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as error:
            raise click.BadParameter(f"not JSON: {error}", param_hint="--event") from error
        if not isinstance(loaded, dict):
            raise click.BadParameter("the payload must be a JSON object", param_hint="--event")
        payload.update(loaded)
    payload.update({key: value for key, value in options.items() if value})
    if payload.get("verify") and payload.get("schemaArns"):  # schema-sync refuses it: say so before invoking
        raise click.UsageError("--verify searches every registry for unmapped assets: not with --schema-arn")
    return payload


def _topics(values: tuple[str, ...]) -> list[dict[str, str]]:
    """`[REGISTRY:]TOPIC`: Kafka topic names hold no colon; a source account's registry is
    `<account>:<name>`, so the topic is what follows the last colon."""
    topics = []
    for value in values:
        registry, colon, topic = value.rpartition(":")
        topics.append({"registryName": registry, "topic": topic} if colon else {"topic": topic})
    return topics


def _run_deployed(ctx: click.Context, which: str, payload: dict[str, Any]) -> None:
    from .deployed import NotDeployed, describe_stack, find_deployment, invoke

    settings = ctx.obj
    clients = make_clients(settings["region"], settings["profile"])
    try:
        stack = describe_stack(clients("cloudformation"), settings["stack"])
        deployment = find_deployment(stack, settings["construct"])
    except NotDeployed as error:
        _err.print(f"[red]kafka-lineage: {error}[/]")
        ctx.exit(BAD_INPUT)
    function_name = deployment.function(which)
    try:
        with _progress(f"{which}: invoking {function_name} (a run may take up to 15 minutes)"):
            outcome = invoke(clients("lambda"), which, function_name, payload)
    except Exception as error:  # AWS refused the call (credentials, permissions, throttling)
        _err.print(f"[red]kafka-lineage: invoking {function_name} failed: {error}[/]")
        ctx.exit(FAILED)
    _emit(outcome, settings["as_json"])
    ctx.exit(outcome.exit_code)


def _deployed_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(
        [
            click.option(
                "--stack", "stack", required=True, help="The deployed stack's name (CloudFormation)."
            ),
            click.option(
                "--construct",
                default=None,
                help="The KafkaLineage construct's id, when the stack holds more than one.",
            ),
            click.option(
                "--region", default=None, help="The stack's region (default: the AWS configuration's)."
            ),
            click.option("--profile", default=None, help="The AWS profile to use."),
            click.option("--json", "as_json", is_flag=True, help="Print the result as JSON, not as tables."),
        ]
    ):
        command = option(command)
    return command


def _remember(ctx: click.Context, **settings: Any) -> None:
    ctx.obj = settings


_EVENT = click.option(
    "--event", default=None, help="The payload as JSON (or @file); the other options add to it."
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kafka-lineage")
def main() -> None:
    """Run and inspect kafka-lineage: a deployed stack, or an account before the first deploy.

    Exit codes: 0 success; 1 partial failure (some items failed, the rest was done; for status: needs
    attention); 2 bad input (usage, a payload the function refused, stack or construct not found); 3 the run
    failed as a whole (AWS refused the call, the function crashed or timed out).
    """


@main.command()
@_deployed_options
@click.option("--schema-arn", "schema_arns", multiple=True, help="Only this schema (repeatable).")
@click.option("--verify", is_flag=True, help="Plan a deep verification run.")
@_EVENT
@click.pass_context
def plan(
    ctx: click.Context, schema_arns: tuple[str, ...], verify: bool, event: str | None, **common: Any
) -> None:
    """schema-sync's dry run: what it would create, revise and delete (nothing is written)."""
    _remember(ctx, **common)
    payload = _payload(event, {"schemaArns": list(schema_arns), "verify": verify, "dryRun": True})
    _run_deployed(ctx, "schema-sync", payload)


@main.command()
@_deployed_options
@click.option("--schema-arn", "schema_arns", multiple=True, help="Only this schema (repeatable).")
@click.option("--verify", is_flag=True, help="Deep verification (adopts or removes unmapped assets).")
@click.option("--allow-mass-delete", is_flag=True, help="Lift the deletion fail-safe for this run.")
@_EVENT
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
    _remember(ctx, **common)
    options = {"schemaArns": list(schema_arns), "verify": verify, "allowMassDelete": allow_mass_delete}
    _run_deployed(ctx, "schema-sync", _payload(event, options))


_LINEAGE_OPTIONS = [
    click.option(
        "--topic", "topics", multiple=True, help="Only this topic, as [REGISTRY:]TOPIC (repeatable)."
    ),
    click.option("--force", is_flag=True, help="Post again even when unchanged."),
    click.option("--dry-run", is_flag=True, help="Report what would be posted; post nothing."),
    click.option("--allow-mass-delete", is_flag=True, help="Lift the retraction fail-safe for this run."),
    _EVENT,
]


def _lineage_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_LINEAGE_OPTIONS):
        command = option(command)
    return command


def _lineage_payload(
    topics: tuple[str, ...], force: bool, dry_run: bool, allow_mass_delete: bool, event: str | None
) -> dict[str, Any]:
    options = {
        "topics": _topics(topics),
        "force": force,
        "dryRun": dry_run,
        "allowMassDelete": allow_mass_delete,
    }
    return _payload(event, options)


@main.command()
@_deployed_options
@_lineage_options
@click.option(
    "--check-glue",
    "check_glue",
    default=None,
    metavar="TABLE",
    help="Instead of running: read back, with your own credentials (glue:GetLineageNode), what the Glue "
    "lineage graph shows upstream of TABLE (database.table or its ARN).",
)
@click.pass_context
def lineage(
    ctx: click.Context,
    topics: tuple[str, ...],
    force: bool,
    dry_run: bool,
    allow_mass_delete: bool,
    event: str | None,
    check_glue: str | None,
    **common: Any,
) -> None:
    """Run lineage-emission: every mapped topic, or the ones named."""
    _remember(ctx, **common)
    if check_glue is not None:
        from .glue_check import check_glue as read_back

        code, lines = read_back(make_clients(common["region"], common["profile"]), check_glue)
        (_out if code == 0 else _err).print("\n".join(lines), markup=False)
        ctx.exit(code)
    _run_deployed(ctx, "lineage-emission", _lineage_payload(topics, force, dry_run, allow_mass_delete, event))


@main.command()
@_deployed_options
@click.pass_context
def status(ctx: click.Context, **common: Any) -> None:
    """The stack, its functions and the failure queue: exit 1 when something needs attention."""
    from .deployed import NotDeployed, describe_stack, find_deployment
    from .deployed import status as read_status

    _remember(ctx, **common)
    clients = make_clients(common["region"], common["profile"])
    try:
        stack = describe_stack(clients("cloudformation"), common["stack"])
        deployment = find_deployment(stack, common["construct"])
        found = read_status(clients, stack, deployment)
    except NotDeployed as error:
        _err.print(f"[red]kafka-lineage: {error}[/]")
        ctx.exit(BAD_INPUT)
    except Exception as error:  # AWS refused a read
        _err.print(f"[red]kafka-lineage: reading the stack's state failed: {error}[/]")
        ctx.exit(FAILED)
    attention = (
        not str(found["stack"]["status"]).endswith("_COMPLETE")
        or "ROLLBACK" in str(found["stack"]["status"])
        or any(f["state"] not in ("Active", "") for f in found["functions"])
        or bool(found["failureQueueMessages"])
    )
    if common["as_json"]:
        click.echo(json.dumps({**found, "needsAttention": attention}, indent=2, sort_keys=True, default=str))
    else:
        _out.print(items_table(f"stack {common['stack']}", [found["stack"]]))
        _out.print(items_table("functions", found["functions"]))
        queue = Table(title="failure queue (events the functions or rules gave up on)", title_justify="left")
        queue.add_column("messages", justify="right")
        queue.add_row(str(found["failureQueueMessages"]))
        _out.print(queue)
        _out.print(items_table("outputs", [{"output": k, "value": v} for k, v in found["outputs"].items()]))
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
        clients = read_only_clients(make_clients(region, profile))
        sts = clients("sts")
        if not sts.meta.region_name:
            raise click.UsageError("no region: pass --region or configure one (AWS_REGION)")
        try:
            identity = sts.get_caller_identity()
        except Exception as error:  # no credentials, or AWS refused them
            _err.print(f"[red]kafka-lineage: reading the caller's identity failed: {error}[/]")
            ctx.exit(FAILED)
        partition, account = identity["Arn"].split(":")[1], identity["Account"]
        role = execution_role or execution_role_arn(
            partition, account, sts.meta.region_name, qualifier or context_qualifier
        )
        target = Target(account, partition, sts.meta.region_name, role)
        findings = run_checks(config, target, clients)
    if as_json:
        click.echo(json.dumps([vars(f) for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(f"{finding.status:<4}  {finding.check:<14}  {finding.message}")
    ctx.exit(PARTIAL if exit_code(findings) else OK)


from . import access_cli  # noqa: E402,F401  (registers `access` and `grants` on main)
