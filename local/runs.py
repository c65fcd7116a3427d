"""The functions run by hand on the local AWS stand-ins, as `make demo` runs them (`python -m local`,
local/cli.py).

Each run starts the stand-ins in this process, deploys the world the demo uses (a DataZone domain with the
project's types, the Glue registry `cdc` holding the Debezium tutorial's inventory topics in Avro, JSON
Schema and Protobuf, an MSK cluster) and invokes the handler with the payload, each function under its own
role as synthesized from the stack (IAM mode). A lineage run syncs first, so that there are topic assets.

The checkout's tool, as the stand-ins are: the wheel carries neither, and its `kafka-lineage` has no `local`.
It imports the package (kafka_lineage_cdk's Outcome), never the other way round.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from kafka_lineage_cdk.outcome import Outcome

if TYPE_CHECKING:
    from local.deployed import DeployedFunctions

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


class Context:
    """The Lambda context a handler run by hand gets (the demo's and these runs')."""

    function_name = "demo"
    memory_limit_in_mb = 512
    aws_request_id = "00000000-0000-4000-8000-00000000demo"

    @property
    def invoked_function_arn(self) -> str:
        # local.world is imported late: its imports start the functions' logging, which QUIET configures.
        from local import world

        return f"arn:aws:lambda:{world.REGION}:{world.ACCOUNT}:function:demo"

    def get_remaining_time_in_millis(self) -> int:
        return 900_000


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


def _seed(aws: Any, deployed: DeployedFunctions) -> None:
    from local import world

    world.bootstrap_catalog(aws.datazone, deployed.handler("asset-type-resource"))
    aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    for spec in world.inventory():
        world.register("cdc", spec)
    os.environ.update(world.environment([world.source_config(tableRule=TABLE_RULE)]))


def _tables() -> None:
    """The lakehouse's Iceberg tables the demo's table rule maps the topics to (lineage_view.demo_tables)."""
    import boto3

    from local.lineage_view import demo_tables

    glue = boto3.client("glue")
    for database in sorted({database for database, _, _ in demo_tables()}):
        glue.create_database(DatabaseInput={"Name": database})
    for database, name, columns in demo_tables():
        glue.create_table(
            DatabaseName=database,
            TableInput={
                "Name": name,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": "ICEBERG"},
                "StorageDescriptor": {"Columns": [{"Name": c, "Type": t} for c, t in columns]},
            },
        )


def _call(deployed: DeployedFunctions, function: str, payload: Mapping[str, Any]) -> Outcome:
    try:
        result = deployed.invoke(function, dict(payload), Context())
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
    with _environment({key: os.environ.get(key, value) for key, value in QUIET.items()}):
        from local.deployed import DeployedFunctions
        from local.standins import LocalAws

        route_function_logs(log_stream, log_level)
        with LocalAws() as aws:
            progress("deploying the local world (the stack's roles, the types, the registry cdc)")
            aws.reset()  # the stand-ins' state lives as long as the process: each run starts afresh
            # Each function under its role (IAM mode), built as its module builds the deployed handler.
            deployed = DeployedFunctions(aws)
            _seed(aws, deployed)
            for item in revoke:
                role, _, action = item.partition("=")
                aws.iam.revoke(role.strip(), action.strip())
            if function == "lineage-emission":
                _tables()
                progress("schema-sync: the topics' assets first")
                first = _call(deployed, "schema-sync", {})
                if first.result is None:
                    return first
            progress(f"{function}: running")
            return _call(deployed, function, payload)
