"""The locks: every pinned requirement is in its lock at the same version, every locked package carries
hashes, the tests run the versions the functions ship, and the venv's Python follows the functions'."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from stacks import bundling
from tests.infrastructure.stack_synth import ROOT

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    """name -> version of every `name==version` line of a requirements file, following `-r` includes."""
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("-r "):
            found.update(pins(path.parent / line.removeprefix("-r ").strip()))
        elif match := _PIN.match(line):
            found[_name(match.group(1))] = match.group(2)
    return found


def locked(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of a lock written by `make lock`."""
    entries: dict[str, tuple[str, int]] = {}
    current = ""
    for line in path.read_text().splitlines():
        if match := _PIN.match(line):
            current = _name(match.group(1))
            entries[current] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and current:
            version, hashes = entries[current]
            entries[current] = (version, hashes + 1)
    return entries


LOCKS = [
    (ROOT / "lambdas" / "requirements.txt", ROOT / "lambdas" / "requirements.lock"),
    (ROOT / "requirements-dev.txt", ROOT / "requirements-dev.lock"),
]


@pytest.mark.parametrize(("requirements", "lock"), LOCKS, ids=["functions", "development"])
def test_every_pinned_requirement_is_locked_at_its_version_with_hashes(requirements: Path, lock: Path):
    # Given the pinned requirements and the lock made from them
    wanted, have = pins(requirements), locked(lock)
    # Then each requirement is locked at the pinned version, and every locked package has hashes
    assert {name: have.get(name, ("missing", 0))[0] for name in wanted} == wanted
    assert [name for name, (_, hashes) in have.items() if hashes == 0] == []


def test_the_tests_run_the_dependency_versions_the_functions_ship():
    # Given both locks / Then every package of the functions' lock has the same version in the development one
    functions = {name: version for name, (version, _) in locked(LOCKS[0][1]).items()}
    development = {name: version for name, (version, _) in locked(LOCKS[1][1]).items()}
    assert {name: development.get(name) for name in functions} == functions


def test_the_layer_is_bundled_from_the_functions_lock():
    assert LOCKS[0][1] == bundling.REQUIREMENTS


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_prefers_the_functions_python():
    # Given the Makefile's report of its interpreters / Then the preferred one is the functions' runtime
    answer = subprocess.run(["make", "-s", "python"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert f"(functions: python{bundling.python_version()};" in answer.stdout
