"""The Makefile's test targets run their suites (an empty target would succeed without testing)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.infrastructure.stack_synth import ROOT


def _recipe(target: str) -> list[str]:
    """The commands `make TARGET` would run, the virtual environment taken as installed."""
    answer = subprocess.run(
        ["make", "--dry-run", "--old-file=.venv/.installed", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return answer.stdout.splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("suite", ["unit", "integration", "infrastructure"])
def test_each_suite_target_runs_pytest_on_its_suite(suite: str):
    commands = _recipe(suite)
    assert any("pytest" in c and c.split()[-1] == f"tests/{suite}" for c in commands), commands


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_lints_typechecks_and_runs_the_whole_suite():
    commands = _recipe("test")
    assert any("ruff check" in c for c in commands)
    assert any("ruff format --check" in c for c in commands)
    assert any("mypy" in c for c in commands)
    (suite,) = [c for c in commands if "pytest" in c]
    assert not any(part.startswith("tests") for part in suite.split()), suite  # every test, not one suite
    assert "--cov" in suite.split(), suite  # measured, so pyproject's coverage floor is enforced


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_wheel_checks_the_built_distributions_with_twine_before_installing_them():
    # Given the wheel target's commands
    commands = _recipe("wheel")
    built = next(i for i, c in enumerate(commands) if " -m build " in c)
    checked = next(i for i, c in enumerate(commands) if "twine check --strict" in c)
    installed = next(i for i, c in enumerate(commands) if " install " in c)
    # Then twine reads both distributions strictly after the build and before the wheel is installed
    assert built < checked < installed
    assert commands[checked].split()[-1] == "build/dist/*"
