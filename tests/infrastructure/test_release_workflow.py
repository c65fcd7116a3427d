"""The release workflow (.github/workflows/release.yml): a tag `vX.Y.Z` publishes what `make wheel` built and
checked, only when the tag is the package's version, with PyPI's trusted publishing and pinned actions."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no types (mkdocs brings it)

from tests.infrastructure.stack_synth import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
_PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def _workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _steps(job: str) -> list[dict[str, Any]]:
    return list(_workflow()["jobs"][job]["steps"])


def test_a_pushed_v_tag_and_nothing_else_starts_a_release():
    # Given the workflow / Then only tags matching v* trigger it (PyYAML reads the key `on` as True)
    triggers = _workflow()[True]
    assert triggers == {"push": {"tags": ["v*"]}}


def test_every_action_is_pinned_by_commit():
    # Given every step that uses an action / Then it names a full commit, not a movable tag or branch
    uses = [step["uses"] for job in _workflow()["jobs"] for step in _steps(job) if "uses" in step]
    assert uses, "the workflow uses no action"
    assert [u for u in uses if not _PINNED.match(u)] == []


def test_only_the_publish_job_may_ask_for_an_identity_token():
    # Given the workflow's permissions
    workflow = _workflow()
    # Then the default is read-only, and the identity token (trusted publishing) is the publish job's alone
    assert workflow["permissions"] == {"contents": "read"}
    assert "permissions" not in workflow["jobs"]["build"]
    assert workflow["jobs"]["publish"]["permissions"] == {"id-token": "write"}
    assert workflow["jobs"]["publish"]["needs"] == "build"


def test_the_publish_job_uploads_with_trusted_publishing_and_no_stored_token():
    # Given the publish step
    (publish,) = [
        s for s in _steps("publish") if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")
    ]
    # Then it passes no password or token: PyPI exchanges the job's identity token for an upload token
    assert set(publish.get("with", {})) <= {"packages-dir", "print-hash", "verbose"}
    assert "secrets." not in WORKFLOW.read_text()
    assert _workflow()["jobs"]["publish"]["environment"]["name"] == "pypi"


def test_the_build_job_runs_make_wheel_which_checks_the_distributions_with_twine():
    # Given the build job / Then it builds with the Makefile's target, which runs `twine check --strict`
    assert any(step.get("run", "").strip() == "make wheel" for step in _steps("build"))
    assert any("upload-artifact" in step.get("uses", "") for step in _steps("build"))


def _tag_check() -> str:
    (step,) = [s for s in _steps("build") if s.get("name", "").startswith("The tag is the package's version")]
    return str(step["run"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(
    ("tag", "version", "changelog", "passes"),
    [
        ("v1.2.3", "1.2.3", "## [1.2.3] - 2026-12-03\n", True),
        ("v1.2.4", "1.2.3", "## [1.2.3] - 2026-12-03\n", False),  # the tag is not the version
        ("1.2.3", "1.2.3", "## [1.2.3] - 2026-12-03\n", False),  # no v
        ("v1.2.3.dev0", "1.2.3.dev0", "## [1.2.3.dev0] - 2026-12-03\n", False),  # a development version
        ("v1.2.3", "1.2.3", "## [Unreleased]\n", False),  # the changelog has no section for it
        ("v10.20.30", "10.20.30", "## [Unreleased]\n\n## [10.20.30] - 2026-12-03\n", True),
    ],
)
def test_the_tag_check_refuses_a_tag_that_is_not_the_released_version(
    tmp_path: Path, tag: str, version: str, changelog: str, passes: bool
):
    # Given a checkout whose package has `version` and whose changelog has `changelog`
    (tmp_path / "kafka_lineage_cdk").mkdir()
    (tmp_path / "kafka_lineage_cdk" / "__init__.py").write_text(f'__version__ = "{version}"\n')
    (tmp_path / "CHANGELOG.md").write_text(f"# Changelog\n\n{changelog}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    # When the workflow's check runs for the pushed tag
    env = {**os.environ, "TAG": tag, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": ""}
    done = subprocess.run(
        ["bash", "-e", "-c", _tag_check()], check=False, cwd=tmp_path, env=env, capture_output=True, text=True
    )
    # Then it passes only for v + the package's release version with its changelog section
    assert (done.returncode == 0) is passes, done.stdout + done.stderr
