"""Where the functions keep their state in SSM, under the state root `MAPPING_PATH` (docs/concepts.md).

The one place that knows the parts below the root, how big one parameter may be, and how packed entries are
grouped into parameters (`hash_group`: the stores save group by group, so the logic orders its work the same
way and writes each parameter about once).
"""

from __future__ import annotations

import hashlib

ASSETS = "assets"  # schema -> asset records (schema-sync)
LINEAGE = "lineage"  # the lineage emission state (lineage-emission)
TABLE_MAPPINGS = "table-mappings"  # explicit topic -> table mappings (the stack and operators)
DRIFT = "drift"  # the last schema drift found per topic (written by lineage, shown on the asset by sync)
CONFIG = "config"  # the state leases, `config/lease/{holder}`
# The state leases, one chain of generations per holder (kafka_lineage.aws.lease): the two functions', and
# subscription-grants' one per IAM role (`subscription-grants-<hash of the role ARN>`).
LEASE_PATH = f"{CONFIG}/lease"
SCHEMA_SYNC_HOLDER = "schema-sync"
LINEAGE_HOLDER = "lineage-emission"
ROLE_LEASE_PREFIX = "subscription-grants-"
# SSM standard tier: a String value of at most 4 KB.
MAX_VALUE_BYTES = 4096


def state_path(state_root: str, part: str) -> str:
    """The SSM path of one part of the state under the state root (the `MAPPING_PATH` setting)."""
    if part not in (ASSETS, LINEAGE, TABLE_MAPPINGS, DRIFT, CONFIG):
        raise ValueError(f"unknown state part {part!r}")
    return f"{state_root.rstrip('/')}/{part}"


def hash_group(key: str, group_bits: int = 8) -> str:
    """The hex group of ``key``: the first ``group_bits`` bits of sha256(key)."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    value = int.from_bytes(digest[:4], "big") >> (32 - group_bits)
    return f"{value:0{(group_bits + 3) // 4}x}"
