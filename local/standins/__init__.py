"""Strict local stand-ins for AWS, served over the real wire protocols in front of moto.

    with LocalAws() as aws:                     # serves on 127.0.0.1:<free port>, points boto3 at it
        aws.kafka.set_brokers(cluster_arn, sasl_iam="b-1.x:9098,b-2.x:9098")
        aws.faults.add(service="datazone", operation="CreateAsset", kind="throttle", times=2)
        aws.latency_ms = 20
        ...                                     # code under test calls boto3 as usual
        assert aws.call_counts()["glue:ListSchemas"] == 1

Every request is validated against botocore's model (maxima, patterns, enums, SSM's naming rules) the way
AWS does server-side; undocumented behaviour follows `aws.readings` (see readings.py). In IAM mode
(`aws.iam`, see iam.py) a request signed with a role's key is authorised against that role's policies, as
the stack synthesizes them; the default fake key stays unrestricted. `python -m
local.standins` serves the same in a separate process, driven by `remote.RemoteAws`.
"""

from __future__ import annotations

import os
from collections import Counter
from types import TracebackType
from typing import Any

from local.standins.cloudwatch import CloudWatchMetrics
from local.standins.environment import CLEARED, FAKE_KEY, aws_environment, reset_cached_clients
from local.standins.errors import ServiceError
from local.standins.faults import Call, CallLog, Fault, Faults
from local.standins.firehose import Firehose
from local.standins.glue_catalogs import GlueCatalogs
from local.standins.glue_lineage import GlueLineage
from local.standins.iam import Iam
from local.standins.kafka import KafkaBrokers
from local.standins.kafka_channels import KafkaChannels
from local.standins.kafka_policies import ClusterPolicies
from local.standins.kafkaconnect import KafkaConnect
from local.standins.quotas import Quotas
from local.standins.readings import Readings
from local.standins.server import FrontDoor, ServerThread, Standins

__all__ = [
    "Call",
    "CallLog",
    "CloudWatchMetrics",
    "ClusterPolicies",
    "Fault",
    "Faults",
    "Firehose",
    "GlueCatalogs",
    "GlueLineage",
    "Iam",
    "KafkaBrokers",
    "KafkaChannels",
    "KafkaConnect",
    "LocalAws",
    "Quotas",
    "Readings",
    "ServiceError",
    "aws_environment",
    "reset_cached_clients",
]


class LocalAws:
    """The stand-ins in this process: `start()` serves them and points boto3 at them; `stop()` undoes both."""

    def __init__(
        self,
        readings: Readings | None = None,
        region: str = "eu-west-1",
        account: str = "123456789012",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.standins = Standins(readings or Readings(), region, account)
        self._host, self._port = host, port
        self._server: ServerThread | None = None
        self._saved_env: dict[str, str | None] | None = None

    # ----------------------------------------------------------------------------------------------- state

    @property
    def region(self) -> str:
        return self.standins.region

    @property
    def account(self) -> str:
        return self.standins.account

    @property
    def readings(self) -> Readings:
        """Mutable: `aws.readings.deleted_schemas_linger = 2` takes effect on the next request."""
        return self.standins.readings

    def set_readings(self, **changes: Any) -> Readings:
        return self.standins.set_readings(**changes)

    @property
    def faults(self) -> Faults:
        return self.standins.faults

    @property
    def calls(self) -> CallLog:
        return self.standins.calls

    def call_counts(self, service: str | None = None, ok: bool | None = None) -> Counter[str]:
        """Calls per "service:Operation" (e.g. "glue:ListSchemas"), optionally of one service or outcome."""
        return self.standins.calls.counts(service, ok)

    @property
    def quotas(self) -> Quotas:
        """The rate quotas (quotas.py): `aws.quotas.enable(neighbour=0.5, clock=virtual.monotonic)`."""
        return self.standins.quotas

    @property
    def kafka(self) -> KafkaBrokers:
        return self.standins.kafka

    @property
    def channels(self) -> KafkaChannels:
        """MSK Data Delivery channels: `aws.channels.create(cluster_arn, name, request)` adds one."""
        return self.standins.channels

    @property
    def cluster_policies(self) -> ClusterPolicies:
        """MSK cluster policies: `aws.cluster_policies.race(cluster_arn)` moves the version between a
        caller's GetClusterPolicy and its PutClusterPolicy."""
        return self.standins.cluster_policies

    @property
    def cloudwatch(self) -> CloudWatchMetrics:
        """ListMetrics with its two-week window: `aws.cloudwatch.advance(days=15)` ages metrics out."""
        return self.standins.cloudwatch

    @property
    def firehose(self) -> Firehose:
        """Firehose delivery streams (created with CreateDeliveryStream; `set_status` for the rest)."""
        return self.standins.firehose

    @property
    def glue_catalogs(self) -> GlueCatalogs:
        """Federated Glue catalogs: `aws.glue_catalogs.add_table(account, catalog, db, table, columns)`."""
        return self.standins.glue_catalogs

    @property
    def glue_lineage(self) -> GlueLineage:
        """The Glue Data Catalog's lineage graphs: `aws.glue_lineage.settle(account, region)` processes
        what was accepted; `accepted(account, region)` counts the posts."""
        return self.standins.glue_lineage

    @property
    def kafkaconnect(self) -> KafkaConnect:
        """MSK Connect: `aws.kafkaconnect.create(name, config, bootstrap_servers)` adds a connector."""
        return self.standins.kafkaconnect

    @property
    def datazone(self) -> Any:
        """The DataZoneBackend (local/standins/datazone/), or None while that package is missing."""
        return self.standins.datazone

    @property
    def iam(self) -> Iam:
        """IAM mode (iam.py): off until `aws.iam.enable()`; then role-signed requests are authorised."""
        return self.standins.iam

    @property
    def latency_ms(self) -> float:
        return self.standins.latency_ms

    @latency_ms.setter
    def latency_ms(self, value: float) -> None:
        self.standins.latency_ms = float(value)

    def reset(self) -> None:
        """Forget moto's data, stand-in state, faults, calls and latency; readings back to those given."""
        self.standins.reset()
        reset_cached_clients()

    # ----------------------------------------------------------------------------------------- lifecycle

    @property
    def endpoint_url(self) -> str:
        if self._server is None:
            raise RuntimeError("LocalAws is not serving; call start() or serve() first")
        return self._server.url

    def serve(self) -> LocalAws:
        """Start the HTTP server only (the environment stays as it is)."""
        if self._server is None:
            self._server = ServerThread(FrontDoor(self.standins), self._host, self._port)
            self._server.start()
        return self

    def shutdown(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def environment(self) -> dict[str, str]:
        """Environment variables that point a boto3 process (this one or a child) at the stand-ins."""
        return aws_environment(self.endpoint_url, self.region)

    def activate(self) -> None:
        """Point this process's boto3 at the stand-ins; `deactivate()` restores the environment."""
        if self._saved_env is not None:
            return
        wanted = self.environment()
        touched = {*wanted, *CLEARED, *(k for k in os.environ if k.startswith("AWS_ENDPOINT_URL_"))}
        self._saved_env = {key: os.environ.get(key) for key in touched}
        for key in touched:
            os.environ.pop(key, None)
        os.environ.update(wanted)
        reset_cached_clients()

    def deactivate(self) -> None:
        if self._saved_env is None:
            return
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env = None
        reset_cached_clients()

    def start(self) -> LocalAws:
        self.serve()
        self.activate()
        return self

    def stop(self) -> None:
        self.deactivate()
        self.shutdown()

    def client(self, service: str, account: str | None = None, **config: Any) -> Any:
        """A boto3 client for `service` aimed at the stand-ins, whatever the environment says; unrestricted,
        in `account` when given (keys from moto's STS AssumeRole, which keys state by the role's account,
        as AWS does: how tests seed and inspect another account)."""
        import boto3

        keys = {"aws_access_key_id": FAKE_KEY, "aws_secret_access_key": FAKE_KEY}
        if account is not None and account != self.account:
            credentials = self.client("sts").assume_role(
                RoleArn=f"arn:aws:iam::{account}:role/local-seeding", RoleSessionName="local-seeding"
            )["Credentials"]
            keys = {
                "aws_access_key_id": credentials["AccessKeyId"],
                "aws_secret_access_key": credentials["SecretAccessKey"],
                "aws_session_token": credentials["SessionToken"],
            }
        return boto3.session.Session().client(
            service, endpoint_url=self.endpoint_url, region_name=self.region, **keys, **config
        )

    def __enter__(self) -> LocalAws:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
