"""The command line's shared parts, by public names: what `cli.py`, `access_cli.py` and the checkout's
`python -m local` (local/cli.py) build their commands from.

- options and payloads: `EVENT_OPTION`, `payload`, `lineage_options`, `lineage_payload`, `deployed_options`;
- output: `OUT` (tables, stdout) and `ERR` (progress and errors, stderr), `progress`, `emit`, `fail`;
- AWS: the clients (`clients`, from the factory the command group puts on click's context), and
  `aws_call`, which turns a refused call into one line on stderr and exit code 3 (docs/cli.md), never a
  traceback;
- a deployed stack: `deployment` (DescribeStacks, the construct's outputs) and `run_deployed` (Invoke).

Nothing here registers a command: each command module defines its commands and cli.py adds them to the
group, so no module imports another in a circle.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click
from botocore.exceptions import BotoCoreError, ClientError, NoRegionError, ParamValidationError
from rich.console import Console
from rich.markup import escape

from kafka_lineage.model.failures import AwsError

from .deployed import Deployment
from .outcome import BAD_INPUT, FAILED, PARTIAL, Outcome

# Tables on stdout; progress and errors on stderr, so `--json` output stays one JSON document.
OUT = Console()
ERR = Console(stderr=True)
ClientFactory = Callable[[str], Any]
MakeClients = Callable[[str | None, str | None], ClientFactory]
# Where the command group puts its client factory (click's context meta, shared by every subcommand).
CLIENTS = "kafka_lineage_cdk.make_clients"
# Error codes (and SDK errors) that mean the credentials are missing or no longer valid.
CREDENTIAL_ERRORS = frozenset(
    {
        "NoCredentialsError",
        "PartialCredentialsError",
        "CredentialRetrievalError",
        "TokenRetrievalError",
        "SSOTokenLoadError",
        "UnauthorizedSSOTokenError",
        "ExpiredToken",
        "ExpiredTokenException",
        "RequestExpired",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
    }
)


def aws_clients(region: str | None, profile: str | None) -> ClientFactory:
    """boto3's clients of one session (`--region`, `--profile`). Lambda's: one attempt, a long read."""
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


# ------------------------------------------------------------------------------------------------ errors
def fail(ctx: click.Context, code: int, message: str) -> NoReturn:
    """One line on stderr, then exit with `code`."""
    # AWS's messages may hold brackets: escaped, they are text, not rich's markup
    ERR.print(f"[red]kafka-lineage: {escape(' '.join(message.split()))}[/]", highlight=False, soft_wrap=True)
    ctx.exit(code)
    raise AssertionError("unreachable")  # ctx.exit raises


def refusal(error: BaseException) -> str:
    """What AWS (or the SDK, before anything was sent) answered: `Operation: Code: Message`, and what to do
    when the credentials are at fault."""
    if isinstance(error, AwsError):
        text, code = str(error), error.code
    elif isinstance(error, ClientError):
        details = error.response.get("Error") or {}
        code = str(details.get("Code") or "")
        text = f"{error.operation_name}: {code}: {details.get('Message', '')}"
    else:
        code = type(error).__name__
        text = f"{code}: {error}"
    if code in CREDENTIAL_ERRORS:
        text += " (the AWS credentials are missing or expired: refresh them, or pass --profile)"
    return text


@contextmanager
def aws_call(ctx: click.Context, call: str) -> Iterator[None]:
    """Around AWS calls: a refusal (any AWS error, missing or expired credentials, the service out of reach)
    exits 3 with one line naming `call` and AWS's answer; an invalid request or no region is bad input (2)."""
    try:
        yield
    except NoRegionError:
        fail(ctx, BAD_INPUT, f"{call}: no region: pass --region or configure one (AWS_REGION)")
    except ParamValidationError as error:
        fail(ctx, BAD_INPUT, f"{call}: the request is not valid: {error}")
    except (AwsError, ClientError, BotoCoreError) as error:
        fail(ctx, FAILED, f"{call} failed: {refusal(error)}")


def use_clients(ctx: click.Context, make: MakeClients) -> None:
    """The command group's wiring: the factory every subcommand's clients come from."""
    ctx.meta[CLIENTS] = make


def clients(ctx: click.Context, region: str | None, profile: str | None) -> ClientFactory:
    """The clients of `--region`/`--profile`, made once per service. Left as boto3 makes them: a command
    that reads through the functions' adapters instruments them itself (doctor.read_only_clients), once,
    so that the adapters' pacing is the one their hooks use."""
    make: MakeClients = ctx.meta.get(CLIENTS, aws_clients)
    try:
        factory = make(region, profile)
    except BotoCoreError as error:  # ProfileNotFound and the like: the options, not AWS
        fail(ctx, BAD_INPUT, f"the AWS configuration (--profile {profile}): {refusal(error)}")
    made: dict[str, Any] = {}

    def client(service: str) -> Any:
        if service not in made:
            made[service] = factory(service)
        return made[service]

    return client


# ------------------------------------------------------------------------------------ options, payloads
EVENT_OPTION = click.option(
    "--event", default=None, help="The payload as JSON (or @file); the other options add to it."
)


def payload(event: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The invocation's payload: `--event` (JSON text, or @file), with the options' members added."""
    found: dict[str, Any] = {}
    if event:
        text = Path(event[1:]).read_text(encoding="utf-8") if event.startswith("@") else event
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as error:
            raise click.BadParameter(f"not JSON: {error}", param_hint="--event") from error
        if not isinstance(loaded, dict):
            raise click.BadParameter("the payload must be a JSON object", param_hint="--event")
        found.update(loaded)
    found.update({key: value for key, value in options.items() if value})
    if found.get("verify") and found.get("schemaArns"):  # schema-sync refuses it: say so before invoking
        raise click.UsageError("--verify searches every registry for unmapped assets: not with --schema-arn")
    return found


def topics(values: tuple[str, ...]) -> list[dict[str, str]]:
    """`[REGISTRY:]TOPIC`: Kafka topic names hold no colon; a source account's registry is
    `<account>:<name>`, so the topic is what follows the last colon."""
    found = []
    for value in values:
        registry, colon, topic = value.rpartition(":")
        found.append({"registryName": registry, "topic": topic} if colon else {"topic": topic})
    return found


_LINEAGE_OPTIONS = [
    click.option(
        "--topic", "topics", multiple=True, help="Only this topic, as [REGISTRY:]TOPIC (repeatable)."
    ),
    click.option("--force", is_flag=True, help="Post again even when unchanged."),
    click.option("--dry-run", is_flag=True, help="Report what would be posted; post nothing."),
    click.option("--allow-mass-delete", is_flag=True, help="Lift the retraction fail-safe for this run."),
    EVENT_OPTION,
]


def lineage_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """lineage-emission's options: `--topic`, `--force`, `--dry-run`, `--allow-mass-delete`, `--event`."""
    for option in reversed(_LINEAGE_OPTIONS):
        command = option(command)
    return command


def lineage_payload(
    topic_values: tuple[str, ...], force: bool, dry_run: bool, allow_mass_delete: bool, event: str | None
) -> dict[str, Any]:
    options = {
        "topics": topics(topic_values),
        "force": force,
        "dryRun": dry_run,
        "allowMassDelete": allow_mass_delete,
    }
    return payload(event, options)


def deployed_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of every command against a deployed stack."""
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


def remember(ctx: click.Context, **settings: Any) -> None:
    ctx.obj = settings


# ------------------------------------------------------------------------------------------------ output
@contextmanager
def progress(message: str) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr while a run lasts (nothing when stderr is not a terminal)."""
    with ERR.status(message) as status:

        def update(text: str) -> None:
            status.update(text)

        yield update


def emit(outcome: Outcome, as_json: bool) -> None:
    """A run's outcome: its result as tables (or as JSON), and a line on stderr when items failed."""
    from .report import outcome_tables

    if as_json:
        click.echo(json.dumps(outcome.to_json(), indent=2, sort_keys=True, default=str))
        return
    for table in outcome_tables(outcome):
        OUT.print(table)
    if outcome.exit_code == PARTIAL:
        ERR.print(f"[yellow]{outcome.function}: {outcome.failures} item(s) failed; the others were done[/]")


# ------------------------------------------------------------------------------------- a deployed stack
def deployment(
    ctx: click.Context, client: ClientFactory, stack_name: str, construct: str | None
) -> Deployment:
    """The stack's kafka-lineage (DescribeStacks): exit 2 when it is not there, 3 when AWS refused."""
    from .deployed import NotDeployed, describe_stack, find_deployment

    try:
        with aws_call(ctx, f"reading stack {stack_name} (cloudformation:DescribeStacks)"):
            return find_deployment(describe_stack(client("cloudformation"), stack_name), construct)
    except NotDeployed as error:
        fail(ctx, BAD_INPUT, str(error))


def run_deployed(ctx: click.Context, which: str, sent: dict[str, Any]) -> None:
    """Invoke a deployed function with `sent` and show what it came to; exits with its exit code."""
    from .deployed import NotDeployed, invoke

    settings = ctx.obj
    client = clients(ctx, settings["region"], settings["profile"])
    found = deployment(ctx, client, settings["stack"], settings["construct"])
    try:
        function_name = found.function(which)
    except NotDeployed as error:
        fail(ctx, BAD_INPUT, str(error))
    with (
        aws_call(ctx, f"invoking {function_name} (lambda:Invoke)"),
        progress(f"{which}: invoking {function_name} (a run may take up to 15 minutes)"),
    ):
        outcome = invoke(client("lambda"), which, function_name, sent)
    emit(outcome, settings["as_json"])
    ctx.exit(outcome.exit_code)
