"""A dry run's writer ports refuse (engine/dry.py), and each run's list of writers names real methods of
its ports, so a renamed writer cannot slip out of the guard."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import pytest

from kafka_lineage.engine.dry import DryRunWrites, WroteInDryRun, dry_bundle, refusing
from kafka_lineage.grants import ports as grant_ports
from kafka_lineage.lineage import ports as lineage_ports
from kafka_lineage.lineage.world import LINEAGE_WRITERS, LineageWorld
from kafka_lineage.sync import ports as sync_ports


class Store:
    def __init__(self) -> None:
        self.saved: list[Any] = []

    def load(self) -> dict[str, int]:
        return {"a": 1}

    def save(self, changes: Any) -> int:
        self.saved.append(changes)
        return 1


@dataclass
class Bundle:
    store: Store
    other: Store | None = None


def test_given_a_refusing_port_when_read_then_it_reads_and_when_written_then_it_records_and_raises() -> None:
    # Given a store behind a refusing recorder
    store, writes = Store(), DryRunWrites()
    dry = refusing(store, {"save"}, "store", writes)
    # When it is read, then the read goes through
    assert dry.load() == {"a": 1}
    # When it is written, then the call is kept, refused, and never reaches the store
    with pytest.raises(WroteInDryRun, match=r"store\.save"):
        dry.save({"a": 2})
    assert writes.attempted == ["store.save"]
    assert store.saved == []


def test_given_a_bundle_when_made_dry_then_its_writers_refuse_and_an_absent_port_stays_absent() -> None:
    bundle = Bundle(Store())
    dry = dry_bundle(bundle, {"store": {"save"}, "other": {"save"}})
    assert dry.other is None
    with pytest.raises(WroteInDryRun):
        dry.store.save({})
    assert bundle.store.saved == []


def test_given_a_writer_that_names_no_port_when_made_dry_then_it_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="gone"):
        dry_bundle(Bundle(Store()), {"gone": {"save"}})


PORT_TYPES: list[tuple[str, dict[str, frozenset[str]], type, Any]] = [
    ("sync", sync_ports.SYNC_WRITERS, sync_ports.SyncAdapters, sync_ports),
    ("products", sync_ports.PRODUCT_WRITERS, sync_ports.ProductAdapters, sync_ports),
    ("lineage", LINEAGE_WRITERS, LineageWorld, lineage_ports),
    ("grants", grant_ports.GRANT_WRITERS, grant_ports.GrantPorts, grant_ports),
]


@pytest.mark.parametrize(("run", "writers", "bundle", "module"), PORT_TYPES, ids=[p[0] for p in PORT_TYPES])
def test_every_writer_named_is_a_method_of_its_port(
    run: str, writers: dict[str, frozenset[str]], bundle: type, module: Any
) -> None:
    # Given each bundle's ports, typed by their protocols
    hints = inspect.get_annotations(
        bundle, eval_str=True, globals={**vars(module), **vars(inspect.getmodule(bundle))}
    )
    for port, methods in writers.items():
        # Then each writer method is one the port's protocol declares
        declared = hints[port]
        types = [t for t in getattr(declared, "__args__", (declared,)) if t is not type(None)]
        for method in methods:
            assert any(hasattr(t, method) for t in types), f"{run}: {port}.{method} is not on {declared}"
