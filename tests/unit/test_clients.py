"""A wiring's clients (kafka_lineage.aws.clients.Clients): one client per service, paced once by the wiring's
pacers, its own per wiring; assumed roles' sessions on the process's one botocore loader."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import botocore.loaders
import pytest
from botocore.credentials import Credentials

from kafka_lineage.aws import clients as clients_module
from kafka_lineage.aws.calls import calls_of
from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.aws.clients import Clients, environment_changed
from kafka_lineage.aws.connectors import MskConnect
from kafka_lineage.aws.delivery import DeliveryPaths
from kafka_lineage.aws.pacing import AdaptiveLimiter, RateLimiter
from kafka_lineage.aws.sessions import SourceSessions
from kafka_lineage.config import Settings
from schema_sync.wiring import Wiring
from tests.unit.fake_clients import CountingLimiter, FakeClient, wired

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"


def catalog_of(wiring: Wiring, configured: Settings) -> Catalog:
    """The catalog adapter of one invocation's ports, as `wiring` builds them."""
    catalog = wiring.adapters(configured, None, "schema-sync").catalog
    assert isinstance(catalog, Catalog)
    return catalog


def ceiling(client: Any, operation: str) -> float:
    """The ceiling of the adaptive limiter that paces `operation` on `client`."""
    limiter = calls_of(client).limiter(operation)
    assert isinstance(limiter, AdaptiveLimiter)
    return limiter.ceiling


def settings(tuning: dict[str, Any] | None = None, role_account: str | None = None) -> Settings:
    source: dict[str, Any] = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}
    if role_account:
        arn = CLUSTER_ARN.replace("123456789012", role_account)
        source = {**source, "clusterArn": arn, "roleArn": f"arn:aws:iam::{role_account}:role/reader"}
    environ = {
        "DOMAIN_ID": "dzd_abc123",
        "PROJECT_ID": "prj123",
        "MAPPING_PATH": "/kafka-lineage",
        "SOURCES": json.dumps([source]),
    }
    if tuning:
        environ["TUNING"] = json.dumps(tuning)
    return Settings.from_environment(environ)


def test_two_wirings_with_different_tuning_in_one_process_keep_their_own_clients_and_pacing():
    # Given two schema-sync wirings in one process (two instances' worth), one at DataZone's quota and
    # one at a raised rate
    slow, fast = Wiring(), Wiring()

    # When each builds its adapters, the raised one last
    slow_catalog = catalog_of(slow, settings({"datazone_rps": 20.0}))
    fast_catalog = catalog_of(fast, settings({"datazone_rps": 200.0}))

    # Then each catalog's DataZone client is its wiring's own, counted apart, paced at its own rate
    assert slow_catalog.datazone is not fast_catalog.datazone
    assert calls_of(slow_catalog.datazone) is not calls_of(fast_catalog.datazone)
    assert ceiling(slow_catalog.datazone, "CreateAsset") == 20.0
    assert ceiling(fast_catalog.datazone, "CreateAsset") == 200.0


def test_a_warm_wiring_keeps_its_clients_and_pacing_and_another_tuning_gets_new_ones():
    # Given a wiring that built one invocation's adapters
    wiring = Wiring()
    first = catalog_of(wiring, settings())

    # When the next invocation builds them at the same TUNING, then the clients and their pacing are kept
    again = catalog_of(wiring, settings())
    assert again.datazone is first.datazone
    assert again.limiter is first.limiter
    # And under another TUNING (a test's), new clients are paced by new pacers (none is paced twice)
    raised = catalog_of(wiring, settings({"datazone_rps": 100.0}))
    assert raised.datazone is not first.datazone
    assert ceiling(raised.datazone, "CreateAsset") == 100.0
    assert wiring.clients.client("datazone") is raised.datazone


def test_a_clients_makes_one_client_per_service_for_threads_asking_at_once(monkeypatch: pytest.MonkeyPatch):
    # Given a slow session (so that threads asking at once would each make one, were it not locked)
    made: list[str] = []
    real = clients_module.new_session

    def slow_session(credentials: Credentials | None = None) -> Any:
        made.append("session")
        time.sleep(0.05)
        return real(credentials)

    monkeypatch.setattr(clients_module, "new_session", slow_session)
    clients = Clients()
    start = threading.Barrier(8)
    found: list[Any] = []

    def ask() -> None:
        start.wait()
        found.append(clients.client("glue"))

    # When eight threads ask for the Glue client at once
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then one client was made, instrumented, and every thread has it; another service has its own
    assert made == ["session"]
    assert all(client is found[0] for client in found)
    assert clients.calls("glue") is calls_of(found[0])
    assert clients.client("ssm") is not found[0]
    assert made == ["session", "session"]


def test_after_the_environment_changed_a_clients_makes_new_clients_and_pacers():
    # Given a wiring's client and pacer
    clients = Clients()
    glue = clients.client("glue")
    pacer = clients.pacer("glue", lambda: RateLimiter(5.0))
    assert clients.client("glue") is glue
    assert clients.pacer("glue", lambda: RateLimiter(5.0)) is pacer

    # When the process's endpoint or credentials change (the local stand-ins: another role)
    environment_changed()

    # Then the next ones are new
    assert clients.client("glue") is not glue
    assert clients.pacer("glue", lambda: RateLimiter(5.0)) is not pacer


def test_an_assumed_roles_session_shares_the_loader_and_parses_no_botocore_data_again(
    monkeypatch: pytest.MonkeyPatch,
):
    # Given a wiring whose own Glue client was made (botocore's data parsed once, in the shared loader)
    clients = Clients()
    clients.client("glue")
    parsed: list[str] = []
    load_file = botocore.loaders.JSONFileLoader.load_file

    def counting(self: Any, file_path: str) -> Any:
        parsed.append(file_path)
        return load_file(self, file_path)

    monkeypatch.setattr(botocore.loaders.JSONFileLoader, "load_file", counting)

    # When a source's role gets its session and Glue client
    configured = settings(role_account="444455556666")
    runs = SourceSessions(configured, "schema-sync", clients)
    glue = runs.client(configured.sources[0], "glue")

    # Then the session is on the process's loader, no file was parsed again, and the client is the role's
    session = runs._session(configured.sources[0])
    assert session._session.get_component("data_loader") is clients_module._LOADER
    assert parsed == []
    assert glue is not clients.client("glue")
    assert glue.meta.config.retries == clients.config.retries


class Kafka(FakeClient):
    SERVICE = "kafka"

    def get_bootstrap_brokers(self, **_: Any) -> dict[str, Any]:
        return {"BootstrapBrokerStringSaslIam": "b-1.cdc.kafka.eu-west-1.amazonaws.com:9098"}

    def list_channels(self, **_: Any) -> dict[str, Any]:
        return {"Channels": []}


def test_two_adapters_given_one_client_each_pace_their_own_calls():
    # Given one kafka client handed to the connectors' reader and to the delivery paths' reader, each with
    # its own limiter (the wiring's)
    kafka = wired(Kafka(), "kafka")
    connectors, delivery = CountingLimiter(), CountingLimiter()
    MskConnect(wired(FakeClient(), "kafkaconnect"), kafka, connectors)
    DeliveryPaths(kafka, wired(FakeClient(), "firehose"), delivery)

    # When each reader's kafka call is made
    kafka.get_bootstrap_brokers(ClusterArn=CLUSTER_ARN)
    kafka.list_channels(ClusterArn=CLUSTER_ARN)

    # Then each is paced by its own reader's limiter (neither took the other's calls over)
    assert (connectors.acquired, delivery.acquired) == (1, 1)
