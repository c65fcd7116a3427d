"""`python -m local sync | lineage | demo`: the functions run by hand on the local stand-ins (docs/cli.md).

A checkout's commands, as the stand-ins are a checkout's: the wheel carries neither, so the installed
`kafka-lineage` offers no `local` and never imports this folder. They take the options and print the tables
and exit codes of `kafka-lineage`, with its public helpers (kafka_lineage_cdk.commandline): local/ imports
the package, never the reverse.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import click

from kafka_lineage_cdk import commandline
from kafka_lineage_cdk.outcome import FAILED, OK

_LOG_FILE = click.option(
    "--log-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the functions' JSON logs (INFO) to this file; without it, warnings go to stderr.",
)
_REVOKE = click.option(
    "--revoke",
    multiple=True,
    help="Take a grant out of a function's role, e.g. schema-sync=datazone:CreateAsset (repeatable).",
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON, not as tables.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """The functions on the local AWS stand-ins (no account; a checkout with `make venv`).

    Exit codes as kafka-lineage's: 0 success; 1 partial failure; 2 bad input; 3 the run failed as a whole.
    """


def _run_local(
    ctx: click.Context,
    which: str,
    payload: dict[str, Any],
    revoke: tuple[str, ...],
    log_file: Path | None,
    as_json: bool,
) -> None:
    from local.runs import run

    if log_file is not None:
        with (
            log_file.open("a", encoding="utf-8") as stream,
            commandline.progress(f"{which}: starting the stand-ins") as say,
        ):
            outcome = run(
                which, payload, revoke=revoke, log_stream=stream, log_level=logging.INFO, progress=say
            )
    else:
        with commandline.progress(f"{which}: starting the stand-ins") as say:
            outcome = run(which, payload, revoke=revoke, log_stream=sys.stderr, progress=say)
    commandline.emit(outcome, as_json)
    ctx.exit(outcome.exit_code)


@main.command("sync")
@click.option("--dry-run", is_flag=True, help="The plan only (nothing written).")
@click.option("--verify", is_flag=True, help="Deep verification.")
@commandline.EVENT_OPTION
@_REVOKE
@_LOG_FILE
@_JSON
@click.pass_context
def local_sync(
    ctx: click.Context,
    dry_run: bool,
    verify: bool,
    event: str | None,
    revoke: tuple[str, ...],
    log_file: Path | None,
    as_json: bool,
) -> None:
    """schema-sync on the stand-ins' world (the demo's registry cdc)."""
    payload = commandline.payload(event, {"dryRun": dry_run, "verify": verify})
    _run_local(ctx, "schema-sync", payload, revoke, log_file, as_json)


@main.command("lineage")
@commandline.lineage_options
@_REVOKE
@_LOG_FILE
@_JSON
@click.pass_context
def local_lineage(
    ctx: click.Context,
    topics: tuple[str, ...],
    force: bool,
    dry_run: bool,
    allow_mass_delete: bool,
    event: str | None,
    **local: Any,
) -> None:
    """lineage-emission on the stand-ins' world, after a schema-sync there."""
    payload = commandline.lineage_payload(topics, force, dry_run, allow_mass_delete, event)
    _run_local(ctx, "lineage-emission", payload, **local)


@main.command("demo")
@click.option(
    "--log-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where the functions' JSON logs go (default out/demo/functions.log); the terminal shows the tables.",
)
@click.pass_context
def local_demo(ctx: click.Context, log_file: Path | None) -> None:
    """`make demo`: the whole pipeline on the stand-ins, step by step."""
    # Imported here: the demo sets its quiet logging defaults when it loads.
    from local import demo

    ctx.exit(OK if demo.main(log_file) == 0 else FAILED)
