"""The deployed functions on the stand-ins (local.deployed): each built by its composition root and run under
its role, with no handler module changed. Patching the modules' `handler` (what Lambda loads) would make every
caller, Lambda's follow-ups included, run something other than the shipped handler: it must not come back."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import pytest

from local import world
from local.deployed import ROOTS, DeployedFunctions
from local.standins import LocalAws
from local.standins.iam_roles import FUNCTION_NAMES
from tests.fixtures import FakeContext


def _modules() -> list[ModuleType]:
    """Each function's handler module, and its wiring module where it has one."""
    found = []
    for dotted in FUNCTION_NAMES:
        package = dotted.split(".")[0]
        found.append(importlib.import_module(f"{package}.handler"))
        try:
            found.append(importlib.import_module(f"{package}.wiring"))
        except ModuleNotFoundError:
            continue
    return found


# Taken when this module is imported, before any fixture runs: every attribute of every handler and wiring
# module, by identity.
AS_IMPORTED = {module.__name__: dict(vars(module)) for module in _modules()}


_ABSENT = object()


def changed_attributes() -> list[str]:
    changed: list[str] = []
    for module in _modules():
        before = AS_IMPORTED[module.__name__]
        now = vars(module)
        for name in sorted(set(before) | set(now)):
            if before.get(name, _ABSENT) is not now.get(name, _ABSENT):
                changed.append(f"{module.__name__}.{name}")
    return changed


class Stop(Exception):
    """Raised by a test's wiring to end an invocation once it has seen what it wanted."""


def test_every_function_of_the_stack_has_a_composition_root() -> None:
    assert sorted(ROOTS) == sorted(FUNCTION_NAMES.values())


def test_building_and_running_the_deployed_functions_changes_no_handler_module(
    local_aws: LocalAws, deployed: DeployedFunctions
) -> None:
    # Given the fixtures that every integration test uses (the stand-ins, the deployed functions)
    assert changed_attributes() == []

    # When the custom resource deploys the types under its role, as the worlds' fixtures do
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))

    # Then no attribute of any handler or wiring module was replaced, `handler` least of all
    assert changed_attributes() == []
    assert local_aws.iam.allowed["asset-type-resource datazone:CreateAssetType"] == 1


def test_the_module_handler_is_the_shipped_one_and_runs_under_the_callers_credentials(
    local_aws: LocalAws, deployed: DeployedFunctions
) -> None:
    # Given the deployed functions built (IAM mode on)
    assert deployed.names == sorted(FUNCTION_NAMES.values())

    # When the custom resource's module handler is called directly (no role: the test's key)
    world.bootstrap_catalog(local_aws.datazone)

    # Then no call was made as any function's role: only the deployed handler runs as one
    assert not any(key.startswith("asset-type-resource ") for key in local_aws.iam.allowed)


def test_a_test_wiring_runs_under_the_functions_role_too(
    local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schema_sync.wiring import Wiring

    for key, value in world.environment([world.source_config()]).items():
        monkeypatch.setenv(key, value)
    seen: list[Any] = []

    def lease(_settings: Any, _context: Any) -> Any:
        seen.append(local_aws.iam.role_of(os.environ["AWS_ACCESS_KEY_ID"]))
        raise Stop

    # When schema-sync runs over a test's wiring through the deployed functions
    with pytest.raises(Stop):
        deployed.handler("schema-sync", Wiring(lease=lease))({}, FakeContext())

    # Then that wiring was used, under schema-sync's deployed role
    (role,) = seen
    assert role is not None
    assert role == world.deployed_role(local_aws, "schema-sync", {})
    assert changed_attributes() == []


def test_an_unknown_function_or_a_wiring_for_the_custom_resource_is_refused(
    deployed: DeployedFunctions,
) -> None:
    with pytest.raises(ValueError, match="no deployed function 'schema_sync'"):
        deployed.invoke("schema_sync", {}, FakeContext())
    with pytest.raises(ValueError, match="asset-type-resource has no wiring"):
        deployed.handler("asset-type-resource", wiring=object())
