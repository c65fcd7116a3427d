"""The pip-built dependencies layer: Lambda-platform wheels only, cached by requirements, no Docker."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import aws_lambda as lambda_

from stacks import bundling


@pytest.fixture
def requirements(tmp_path: Path) -> Path:
    path = tmp_path / "requirements.txt"
    path.write_text("fastavro==1.13.1\n")
    return path


class FakePip:
    """Stands in for `pip install --target`: records the command, writes one module into the target."""

    def __init__(self, returncode: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.returncode = returncode

    def __call__(self, command: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
        self.commands.append(command)
        target = Path(command[command.index("--target") + 1])
        target.mkdir(parents=True)
        (target / "fastavro.py").write_text("# built for Lambda\n")
        (target / "bin").mkdir()
        (target / "bin" / "fastavro").write_text("#!/this/machine/python\n")
        return subprocess.CompletedProcess(command, self.returncode, "", "no matching distribution")


def test_pip_asks_for_binary_wheels_of_the_lambda_platform_and_python():
    command = bundling.pip_command(Path("/t"), Path("/r.txt"), lambda_.Runtime.PYTHON_3_14, "arm64")
    joined = " ".join(command)
    assert "--only-binary=:all:" in command
    assert "--platform manylinux2014_aarch64" in joined
    assert "--platform manylinux_2_28_aarch64" in joined
    assert "--python-version 3.14" in joined
    assert "--implementation cp" in joined
    assert "--require-hashes" in command
    assert command[-2:] == ["--requirement", "/r.txt"]
    x86 = " ".join(bundling.pip_command(Path("/t"), Path("/r.txt"), lambda_.Runtime.PYTHON_3_13, "x86_64"))
    assert "--platform manylinux2014_x86_64" in x86
    assert "--python-version 3.13" in x86


def test_the_cache_is_built_once_per_requirements_runtime_and_platform(
    tmp_path: Path, requirements: Path, monkeypatch: pytest.MonkeyPatch
):
    # Given no cache yet
    pip = FakePip()
    monkeypatch.setattr(bundling.subprocess, "run", pip)
    # When the layer content is asked for twice
    first = bundling.build_layer_cache(tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "arm64")
    second = bundling.build_layer_cache(
        tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "arm64"
    )
    # Then pip ran once, the cache is keyed by the fingerprint, and console scripts were dropped
    assert len(pip.commands) == 1
    assert first == second
    assert (
        first.name
        == f"layer-{bundling.layer_fingerprint(requirements, lambda_.Runtime.PYTHON_3_14, 'arm64')[:16]}"
    )
    assert (first / "python" / "fastavro.py").is_file()
    assert not (first / "python" / "bin").exists()
    # And a changed requirements file, runtime or architecture builds a new cache
    requirements.write_text("fastavro==1.13.0\n")
    third = bundling.build_layer_cache(tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "arm64")
    fourth = bundling.build_layer_cache(
        tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "x86_64"
    )
    assert len({first, third, fourth}) == 3
    assert len(pip.commands) == 3


def test_a_failed_pip_leaves_no_cache_and_says_why(
    tmp_path: Path, requirements: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(bundling.subprocess, "run", FakePip(returncode=1))
    with pytest.raises(
        RuntimeError, match=r"(?s)pip could not fetch Lambda wheels.*no matching distribution"
    ):
        bundling.build_layer_cache(tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "arm64")
    assert list((tmp_path / "build").iterdir()) == []


def test_local_bundling_fills_the_asset_directory_from_the_cache(
    tmp_path: Path, requirements: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(bundling.subprocess, "run", FakePip())
    local = bundling.PipLayerBundling(tmp_path / "build", requirements, lambda_.Runtime.PYTHON_3_14, "arm64")
    output = tmp_path / "asset"
    output.mkdir()
    assert local.try_bundle(str(output), None) is True  # type: ignore[arg-type]
    assert (output / "python" / "fastavro.py").read_text() == "# built for Lambda\n"


def test_the_fingerprint_follows_the_shipped_lock():
    assert bundling.REQUIREMENTS == bundling.ROOT / "lambdas" / "requirements.lock"
    assert bundling.layer_fingerprint() == bundling.layer_fingerprint(
        bundling.REQUIREMENTS, bundling.RUNTIME, bundling.ARCHITECTURE.name
    )
    assert bundling.python_version() == "3.14"


def _package(root: Path, name: str, files: dict[str, str]) -> Path:
    folder = root / name
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder


def test_the_code_asset_holds_the_function_packages_side_by_side_without_tests_or_caches(tmp_path: Path):
    # Given two function packages as site-packages holds them: beside other distributions, with caches and
    # tests, and a name with the characters Python allows
    site = tmp_path / "site-packages"
    packages = {
        "kafka_lineage": _package(site, "kafka_lineage", {"__init__.py": "", "aws/calls.py": "x = 1\n"}),
        "schema_sync": _package(
            site,
            "schema_sync",
            {
                "__init__.py": "",
                "handler.py": "",
                "__pycache__/handler.cpython-314.pyc": "",
                "tests/t.py": "",
            },
        ),
    }
    _package(site, "boto3", {"__init__.py": ""})
    # When the code is staged
    code = bundling.build_code_cache(tmp_path / "build", packages)
    # Then it holds those packages and nothing else
    staged = sorted(p.relative_to(code).as_posix() for p in code.rglob("*") if p.is_file())
    assert staged == [
        "kafka_lineage/__init__.py",
        "kafka_lineage/aws/calls.py",
        "schema_sync/__init__.py",
        "schema_sync/handler.py",
    ]
    # And the same content is staged once; a change is a new folder
    assert bundling.build_code_cache(tmp_path / "build", packages) == code
    (packages["kafka_lineage"] / "aws" / "calls.py").write_text("x = 2\n")
    changed = bundling.build_code_cache(tmp_path / "build", packages)
    assert changed != code
    assert (changed / "kafka_lineage" / "aws" / "calls.py").read_text() == "x = 2\n"
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == sorted([code.name, changed.name])


def test_the_function_packages_are_found_where_python_imports_them():
    # Given a checkout (PYTHONPATH=lambdas:.) / Then each function package is lambdas/<name>
    found = bundling.function_package_dirs()
    assert set(found) == set(bundling.FUNCTION_PACKAGES)
    assert {folder.parent for folder in found.values()} == {bundling.ROOT / "lambdas"}
    # And a package Python cannot find is named
    with pytest.raises(RuntimeError, match="no_such_functions"):
        bundling.function_package_dirs(["no_such_functions"])
