"""The subscription-grants function's settings: the domain, the asset type, the state root (for the role
leases) and `ACCESS`. Missing or malformed domain or state root fail fast, naming the variable; a malformed
`ACCESS` does not: every grant then fails with its message as the cause (it names the `access.` setting)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from kafka_lineage.access.arns import ClusterArn
from kafka_lineage.access.model import Naming
from kafka_lineage.access.settings import AccessSettings, AccessSettingsError
from kafka_lineage.config import DEFAULT_ASSET_TYPE_NAME, read_settings
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS

# No new group of roles starts this many seconds before the invocation's deadline.
DEADLINE_MARGIN_SECONDS = 30.0
# A grant pending or in progress for longer than this is stuck (the GrantsStuck metric).
STUCK_SECONDS = 3600.0


@dataclass(frozen=True)
class GrantSettings:
    domain_id: str
    mapping_path: str
    asset_type_name: str = DEFAULT_ASSET_TYPE_NAME
    access: AccessSettings = field(default_factory=AccessSettings)
    access_error: str | None = None
    naming: Naming = field(default_factory=Naming)
    # The accounts of the stack's clusters (SOURCES): swept for roles holding its policies even when no grant
    # names a role there any more (a cluster without roleArn is in the function's own account).
    cluster_accounts: tuple[str, ...] = ()
    deadline_margin_seconds: float = DEADLINE_MARGIN_SECONDS
    lease_wait_seconds: float = LEASE_WAIT_SECONDS  # the engine's one wait for another holder's lease

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> GrantSettings:
        """The settings' variables it is given, read and checked as `Settings` does, and `ACCESS`."""
        given = read_settings(environ, ("domain_id", "mapping_path", "asset_type_name"))
        access, access_error = AccessSettings(), None
        try:
            access = AccessSettings.from_environment(environ)
        except AccessSettingsError as error:
            access_error = f"the ACCESS setting is malformed, so no grant can be fulfilled: {error}"
        asset_type_name = str(given.get("asset_type_name") or DEFAULT_ASSET_TYPE_NAME)
        naming = Naming.for_stack(str(given["domain_id"]), asset_type_name)
        accounts = cluster_accounts(environ.get("SOURCES", ""))
        return cls(
            **given, access=access, access_error=access_error, naming=naming, cluster_accounts=accounts
        )


def cluster_accounts(sources: str) -> tuple[str, ...]:
    """The accounts of the SOURCES entries' clusters (what cannot be read is left out: schema-sync and synth
    validate SOURCES; this is only where to look for roles)."""
    try:
        entries = json.loads(sources or "[]")
    except json.JSONDecodeError:
        return ()
    found: set[str] = set()
    for entry in entries if isinstance(entries, list) else ():
        try:
            found.add(ClusterArn.parse(str(entry.get("clusterArn", ""))).account)
        except (AttributeError, ValueError):
            continue
    return tuple(sorted(found))
