"""The package's layout (pyproject.toml [tool.hatch.build.targets.wheel] says why it is this one): each module
has one import name, the same in a checkout and in the installed wheel; nothing shipped edits the import
path; and the package never imports the checkout's tools (local/, bench/, tests/).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from stacks import bundling

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
WHEEL = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
# The checkout's import roots, as the Makefile, pytest and an editable install set them.
MAKEFILE_PATH = re.search(r"^export PYTHONPATH := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
CHECKOUT_TOOLS = ("local", "bench", "tests", "docs", "examples")


def _shipped_packages() -> dict[str, Path]:
    """Top-level name in the wheel -> its folder in the checkout (`sources` strips lambdas/)."""
    shipped = {}
    for entry in WHEEL["only-include"]:
        folder = ROOT / entry
        name = entry
        for source in WHEEL["sources"]:
            name = name.removeprefix(f"{source}/")
        shipped[name] = folder
    return shipped


def _shipped_modules() -> list[Path]:
    return sorted(
        path
        for folder in _shipped_packages().values()
        for path in folder.rglob("*.py")
        if "tests" not in path.relative_to(folder).parts
    )


def test_the_wheel_ships_top_level_packages_under_the_names_a_checkout_imports_them_by():
    # Given the wheel's packages and the checkout's import roots
    assert MAKEFILE_PATH is not None
    roots = MAKEFILE_PATH[1].split(":")
    assert set(roots) == set(PYPROJECT["tool"]["pytest"]["ini_options"]["pythonpath"])
    assert set(roots) == set(WHEEL["dev-mode-dirs"]) == {".", "lambdas"}
    # Then each shipped folder is a package directly under one of those roots, and Python finds it there by
    # the name the wheel gives it: one name, installed or not
    for name, folder in _shipped_packages().items():
        assert "." not in name, name
        assert "/" not in name, name
        assert (folder / "__init__.py").is_file(), folder
        assert folder.parent.relative_to(ROOT).as_posix() in roots or folder.parent == ROOT
        spec = importlib.util.find_spec(name)
        assert spec is not None, name
        assert spec.origin == str(folder / "__init__.py"), name
    # And the code asset is built from exactly the functions' packages of the wheel
    functions = {name for name, folder in _shipped_packages().items() if folder.parent == ROOT / "lambdas"}
    assert functions == set(bundling.FUNCTION_PACKAGES)
    # And no checkout tool ships
    assert not set(_shipped_packages()) & set(CHECKOUT_TOOLS)


def test_the_data_the_constructs_read_ride_inside_the_stacks_package():
    # Given the files the wheel adds beside the packages
    forced = WHEEL["force-include"]
    # Then they land under stacks/_data, where stacks.bundling looks for them in an installed wheel
    assert forced == {
        "smithy": "stacks/_data/smithy",
        "lambdas/requirements.lock": "stacks/_data/requirements.lock",
    }
    assert not bundling.INSTALLED  # this is a checkout: the same files at the repository's top
    assert bundling.SMITHY_DIR == ROOT / "smithy"
    assert bundling.REQUIREMENTS == ROOT / "lambdas" / "requirements.lock"


def _path_edits(tree: ast.AST) -> list[int]:
    """Lines that touch the import path: sys.path, a package's __path__, site.addsitedir, .pth writing."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("path", "meta_path", "path_hooks")
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.Name) and node.id == "__path__" and isinstance(node.ctx, ast.Store):
            lines.append(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr == "addsitedir":
            lines.append(node.lineno)
    return lines


def _imported(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
        ):
            names.append(ast.unparse(node.args[0]).strip("'\"f"))
    return names


@pytest.mark.parametrize("path", _shipped_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_shipped_module_edits_the_import_path_or_names_a_second_home(path: Path):
    # Given a module the wheel ships
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # Then it leaves the import path alone
    assert _path_edits(tree) == []
    # And imports no checkout tool, nor a module by a name the wheel does not give it
    for name in _imported(tree):
        top = name.split(".")[0]
        assert top not in CHECKOUT_TOOLS, name
        assert not name.startswith(("kafka_lineage_cdk.stacks", "kafka_lineage_cdk.lambdas", "lambdas.")), (
            name
        )


def test_the_command_line_imports_nothing_of_the_checkout_and_offers_no_local():
    # Given a fresh interpreter with the checkout's import roots / When every module of the package loads
    script = (
        "import importlib, json, pkgutil, sys, kafka_lineage_cdk as k\n"
        "for m in pkgutil.iter_modules(k.__path__):\n"
        "    if m.name != '__main__': importlib.import_module(f'kafka_lineage_cdk.{m.name}')\n"
        "from kafka_lineage_cdk.cli import main\n"
        "print(json.dumps([sorted(main.commands), sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    commands, modules = json.loads(done.stdout)
    # Then none of the checkout's tools came with them, and `local` is no command of the installed
    # kafka-lineage (a checkout runs it as `python -m local`)
    assert [m for m in modules if m.split(".")[0] in CHECKOUT_TOOLS] == []
    assert "local" not in commands
    assert {"plan", "sync", "lineage", "status", "doctor", "access", "grants"} <= set(commands)


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


MAX_MODULE_LINES = 500


def test_every_shipped_module_stays_within_500_lines():
    # Given every module the wheel ships (the functions' code, the constructs, the command line)
    # Then none is over 500 lines: past that, a module mixes concerns a newcomer must hold at once
    over = {
        path.relative_to(ROOT).as_posix(): lines
        for path in _shipped_modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert over == {}, f"shipped modules over {MAX_MODULE_LINES} lines (split them by concern): {over}"


HANDLER_MODULES = sorted((ROOT / "lambdas").glob("*/handler.py"))


@pytest.mark.parametrize("path", HANDLER_MODULES, ids=[p.parent.name for p in HANDLER_MODULES])
def test_no_handler_module_reads_the_process_environment(path: Path) -> None:
    # Given a function's handler module
    tree = ast.parse(path.read_text())
    # Then it reads no setting from os.environ: settings reach the run through the wiring (its `environ`)
    reads = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ("environ", "getenv")
        and getattr(node.value, "id", "") == "os"
    ]
    assert reads == [], f"{path.relative_to(ROOT)} reads os.environ at lines {reads}"
    assert len(HANDLER_MODULES) == 4
