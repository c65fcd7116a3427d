"""The repository's layout as the wheel maps it (pyproject.toml [tool.hatch.build.targets.wheel]).

The wheel ships stacks/ as kafka_lineage_cdk/stacks: an absolute `stacks.` import inside it would work in a
checkout and fail once installed, so the stacks import one another relatively.
"""

from __future__ import annotations

import re
import subprocess
import sys
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
    found = re.search(
        r'^__version__ = "([^"]+)"$', (ROOT / "kafka_lineage_cdk/__init__.py").read_text(), re.M
    )
    assert found is not None
    # And it is a semantic version (PEP 440's form of it): X.Y.Z, or X.Y.Z.devN between releases
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", found[1]), found[1]


def test_the_changelog_has_an_unreleased_section_and_one_per_released_version():
    # Given the changelog and the version
    changelog = (ROOT / "CHANGELOG.md").read_text()
    version = re.search(
        r'^__version__ = "([^"]+)"$', (ROOT / "kafka_lineage_cdk/__init__.py").read_text(), re.M
    )
    assert version is not None
    # Then it keeps an Unreleased section, and a released version (no .dev) has its own
    assert "## [Unreleased]" in changelog
    if ".dev" not in version[1]:
        assert f"## [{version[1]}]" in changelog


def test_the_command_line_starts_without_cdk_and_stays_out_of_the_functions_layer():
    # Given a fresh interpreter / When the command line's module is imported
    script = "import sys, kafka_lineage_cdk.cli; print('aws_cdk' in sys.modules, 'jsii' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, cwd=ROOT, capture_output=True, text=True
    )
    # Then CDK's jsii runtime did not start (the constructs load on first use)
    assert done.stdout.split() == ["False", "False"]
    # And the functions' layer does not carry the command line's libraries
    requirements = (ROOT / "lambdas" / "requirements.txt").read_text().lower()
    assert not re.search(r"^(click|rich)\b", requirements, re.MULTILINE)
