"""The repository's layout as the wheel maps it (pyproject.toml [tool.hatch.build.targets.wheel]).

The wheel ships stacks/ as kafka_lineage_cdk/stacks: an absolute `stacks.` import inside it would work in a
checkout and fail once installed, so the stacks import one another relatively.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_ABSOLUTE = re.compile(r"^\s*(from\s+stacks[\s.]|import\s+stacks\b)", re.MULTILINE)


def test_the_stacks_import_one_another_relatively():
    # Given every module of stacks/ / Then none imports `stacks` by its checkout name
    offenders = [
        path.name for path in sorted((ROOT / "stacks").glob("*.py")) if _ABSOLUTE.search(path.read_text())
    ]
    assert offenders == []


def test_the_wheel_carries_the_stacks_the_functions_and_the_models_beside_the_package():
    # Given the build configuration
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    # Then each directory the stacks read relative to their own files lands at the same place in the package
    assert wheel["sources"] == {
        "stacks": "kafka_lineage_cdk/stacks",
        "lambdas": "kafka_lineage_cdk/lambdas",
        "smithy": "kafka_lineage_cdk/smithy",
    }
    assert set(wheel["only-include"]) == {"kafka_lineage_cdk", "stacks", "lambdas", "smithy"}


def test_the_version_has_one_source():
    # Given pyproject.toml / Then it takes the version from the package, and writes none itself
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "kafka_lineage_cdk/__init__.py"
    assert re.search(
        r'^__version__ = "\d+\.\d+\.\d+"$', (ROOT / "kafka_lineage_cdk/__init__.py").read_text(), re.M
    )
