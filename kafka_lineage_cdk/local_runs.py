"""The functions run by hand on the local AWS stand-ins (local/), as `make demo` runs them.

Each run starts the stand-ins in this process, deploys the world the demo uses (a DataZone domain with the
project's types, the Glue registry `cdc` holding the Debezium tutorial's inventory topics in Avro, JSON
Schema and Protobuf, an MSK cluster) and invokes the handler with the payload, each function under its own
role as synthesized from the stack (IAM mode). A lineage run syncs first, so that there are topic assets.

The stand-ins and the development dependencies (moto) come with a checkout of the repository (`make venv`),
not with the wheel: there these commands say so and exit with BAD_INPUT.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from .outcome import Outcome

SERVICE = "kafka-lineage"  # the functions' logger (kafka_lineage.model.service.SERVICE)
TABLE_RULE = {
    "database": "lakehouse",
    "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$",
    "table": "{table}",
}
# As the demo: the functions' own logs at WARNING, no metric blobs or traces on the terminal.
QUIET = {
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
}


class StandInsMissing(RuntimeError):
    """local/ or its dependencies are not importable (not a checkout with the development venv)."""


def _require_checkout() -> None:
    try:
        import moto  # noqa: F401

        import local.standins  # noqa: F401
    except ImportError as error:
        raise StandInsMissing(
            f"the local commands need a checkout of the repository and its development venv ({error}): "
            "run them from the checkout (make venv; .venv/bin/kafka-lineage local ...)"
        ) from error


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set variables for the run, and put every variable back afterwards (the world's settings too)."""
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def route_function_logs(stream: IO[str], level: int) -> None:
    """The functions' JSON logs (Powertools, a standard logger named after the service) to `stream`."""
    import kafka_lineage.observability  # noqa: F401  (creates the logger and its handler)

    functions = logging.getLogger(SERVICE)
    functions.setLevel(level)
    for handler in functions.handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(stream)


@contextlib.contextmanager
def _deployed_handlers(aws: Any) -> Iterator[None]:
    """Each handler under its role (world.run_handlers_as_deployed), the original handlers back afterwards."""
    from local import world

    originals: list[tuple[Any, str, Any]] = []

    def patch(module: Any, attribute: str, value: Any) -> None:
        originals.append((module, attribute, getattr(module, attribute)))
        setattr(module, attribute, value)

    world.run_handlers_as_deployed(aws, patch)
    try:
        yield
    finally:
        for module, attribute, value in reversed(originals):
            setattr(module, attribute, value)


def _seed(aws: Any) -> None:
    from local import world

    world.bootstrap_catalog(aws.datazone)
    aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    for spec in world.inventory():
        world.register("cdc", spec)
    os.environ.update(world.environment([world.source_config(tableRule=TABLE_RULE)]))


def _tables() -> None:
    """The lakehouse's Iceberg tables the demo's table rule maps the topics to (local.lineage_view's)."""
    import boto3

    from local.lineage_view import _demo_tables

    glue = boto3.client("glue")
    for database in sorted({database for database, _, _ in _demo_tables()}):
        glue.create_database(DatabaseInput={"Name": database})
    for database, name, columns in _demo_tables():
        glue.create_table(
            DatabaseName=database,
            TableInput={
                "Name": name,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": "ICEBERG"},
                "StorageDescriptor": {"Columns": [{"Name": c, "Type": t} for c, t in columns]},
            },
        )


def _call(function: str, handler_path: str, payload: Mapping[str, Any]) -> Outcome:
    import importlib

    from local.demo import Context

    module = importlib.import_module(handler_path)
    try:
        result = module.handler(dict(payload), Context())
    except Exception as error:  # what Lambda would report as the invocation's error
        return Outcome.from_error(function, type(error).__name__, str(error))
    return Outcome(function, result=result)


def run(
    function: str,
    payload: Mapping[str, Any],
    *,
    revoke: Sequence[str] = (),
    log_stream: IO[str],
    log_level: int = logging.WARNING,
    progress: Callable[[str], None] = lambda _: None,
) -> Outcome:
    """Invoke one function on a fresh local world: `schema-sync`, or `lineage-emission` after a sync.

    `revoke` takes grants out of the functions' roles (`schema-sync=datazone:CreateAsset`), to see what a
    missing permission does."""
    _require_checkout()
    with _environment({key: os.environ.get(key, value) for key, value in QUIET.items()}):
        from local.standins import LocalAws

        route_function_logs(log_stream, log_level)
        with LocalAws() as aws, _deployed_handlers(aws):
            progress("deploying the local world (the stack's roles, the types, the registry cdc)")
            aws.reset()  # the stand-ins' state lives as long as the process: each run starts afresh
            _seed(aws)
            for item in revoke:
                role, _, action = item.partition("=")
                aws.iam.revoke(role.strip(), action.strip())
            if function == "lineage-emission":
                _tables()
                progress("schema-sync: the topics' assets first")
                first = _call("schema-sync", "schema_sync.handler", {})
                if first.result is None:
                    return first
            progress(f"{function}: running")
            handler = "schema_sync.handler" if function == "schema-sync" else "lineage_emission.handler"
            return _call(function, handler, payload)


def demo(log_file: Path | None) -> int:
    """`make demo`: its tables on the terminal, the functions' logs in `log_file` (default
    out/demo/functions.log)."""
    _require_checkout()
    from local import demo as local_demo

    return local_demo.main(log_file)
