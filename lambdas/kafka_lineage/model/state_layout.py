"""Where the functions keep their state in SSM, under the state root `MAPPING_PATH` (docs/concepts.md).

The one place that knows the parts below the root, how big one parameter may be, and how packed entries are
grouped into parameters (`hash_group`: the stores save group by group, so the logic orders its work the same
way and writes each parameter about once).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

ASSETS = "assets"  # schema -> asset records (schema-sync)
LINEAGE = "lineage"  # the lineage emission state (lineage-emission)
TABLE_MAPPINGS = "table-mappings"  # explicit topic -> table mappings (the stack and operators)
DRIFT = "drift"  # the last schema drift found per topic (written by lineage, shown on the asset by sync)
# The emission state of the second lineage target, the Glue Data Catalog's graph (lineage-emission, with
# `lineageTargets` holding "glue"): apart from `lineage/`, which holds DataZone's, so that neither store's
# recursive load reads the other's parameters.
GLUE_LINEAGE = "glue-lineage"
CONFIG = "config"  # the state leases, `config/lease/{holder}`
# The data products' state (schema-sync's, beside the asset records it derives from): packed chunks one level
# below `assets/`, where the asset records' store leaves them alone.
PRODUCTS = "products"
PRODUCTS_PATH = f"{ASSETS}/{PRODUCTS}"
# The state leases, one chain of generations per holder (kafka_lineage.aws.lease): the two functions', and
# subscription-grants' one per IAM role (`subscription-grants-<hash of the role ARN>`).
LEASE_PATH = f"{CONFIG}/lease"
SCHEMA_SYNC_HOLDER = "schema-sync"
LINEAGE_HOLDER = "lineage-emission"
ROLE_LEASE_PREFIX = "subscription-grants-"
# SSM standard tier: a String value of at most 4 KB.
MAX_VALUE_BYTES = 4096


def state_path(mapping_path: str, part: str) -> str:
    """The SSM path of one part of the state under the state root (the `MAPPING_PATH` setting)."""
    if part not in (ASSETS, LINEAGE, TABLE_MAPPINGS, DRIFT, GLUE_LINEAGE, CONFIG):
        raise ValueError(f"unknown state part {part!r}")
    return f"{mapping_path.rstrip('/')}/{part}"


def hash_group(key: str, group_bits: int = 8) -> str:
    """The hex group of ``key``: the first ``group_bits`` bits of sha256(key)."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    value = int.from_bytes(digest[:4], "big") >> (32 - group_bits)
    return f"{value:0{(group_bits + 3) // 4}x}"


Value = TypeVar("Value")


def read_entries(
    entries: Mapping[str, Mapping[str, Any]], read: Callable[[str, Mapping[str, Any]], Value]
) -> tuple[dict[str, Value], list[str]]:
    """A packed store's entries, each read as a value by `read(key, entry)`; an entry that cannot be read
    (a member missing or of another type, as another version may have written it) is left out and its key
    listed, so the caller reports it rather than failing the run."""
    values: dict[str, Value] = {}
    unreadable: list[str] = []
    for key, entry in entries.items():
        try:
            values[key] = read(key, entry)
        except (KeyError, TypeError, ValueError):
            unreadable.append(key)
    return values, unreadable
