"""The Lambda code and dependency assets, built without Docker.

CDK's PythonFunction bundles in Docker, which these machines (and many CI runners) lack. Instead pip
downloads the wheels of `lambdas/requirements.lock` (every dependency pinned, with its hashes, resolved
from `lambdas/requirements.txt` by `make lock`) for the Lambda platform (`--platform`, binary wheels only,
so nothing is compiled on the build machine) into a layer, through CDK's local-bundling hook. pip checks
every wheel against the lock's hashes. The result is cached under `build/layer-<hash>/`, keyed by the
lock, the runtime and the architecture, so repeated synths (and the tests) neither download nor copy it
again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

# The functions' packages, top-level both in lambdas/ (a checkout) and in an installed wheel (pyproject.toml:
# the wheel): the code asset is assembled from wherever Python finds them, the same way in both.
FUNCTION_PACKAGES = (
    "kafka_lineage",
    "schema_sync",
    "lineage_emission",
    "subscription_grants",
    "asset_type_resource",
)
# The data the constructs read: the wheel carries them inside this package (stacks/_data, pyproject.toml
# force-include); a checkout keeps them at the repository's top (smithy/, lambdas/requirements.lock). The one
# place that tells the two apart.
_PACKAGED = Path(__file__).resolve().parent / "_data"
INSTALLED = _PACKAGED.is_dir()
ROOT = Path(__file__).resolve().parent.parent
SMITHY_DIR = _PACKAGED / "smithy" if INSTALLED else ROOT / "smithy"
REQUIREMENTS = _PACKAGED / "requirements.lock" if INSTALLED else ROOT / "lambdas" / "requirements.lock"
# The layer and code caches: build/ in a checkout; never inside an installed package (site-packages may be
# read-only, and is no place for 70 MB of wheels), but the user's cache directory. KAFKA_LINEAGE_BUILD_DIR
# overrides.
BUILD_DIR = Path(
    os.environ.get("KAFKA_LINEAGE_BUILD_DIR")
    or (
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kafka-lineage-cdk"
        if INSTALLED
        else ROOT / "build"
    )
)

# One runtime and architecture for every function: the newest Python Lambda runs, on Graviton (arm64),
# which costs less per GB-second than x86_64. The layer's wheels are chosen to match.
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
_PIP_PLATFORMS = {
    "arm64": ("manylinux_2_28_aarch64", "manylinux2014_aarch64"),
    "x86_64": ("manylinux_2_28_x86_64", "manylinux2014_x86_64"),
}

# What the function code asset leaves out of the functions' packages: tests and caches.
CODE_EXCLUDES = ("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache", "tests")


def python_version(runtime: lambda_.Runtime = RUNTIME) -> str:
    """'3.14' for python3.14."""
    return runtime.name.removeprefix("python")


def layer_fingerprint(
    requirements: Path = REQUIREMENTS,
    runtime: lambda_.Runtime = RUNTIME,
    architecture: str = ARCHITECTURE.name,
) -> str:
    """What the layer's content depends on: the lock, the Python version and the platform."""
    digest = hashlib.sha256()
    digest.update(requirements.read_bytes())
    digest.update(f"\0{python_version(runtime)}\0{architecture}".encode())
    return digest.hexdigest()


def pip_command(target: Path, requirements: Path, runtime: lambda_.Runtime, architecture: str) -> list[str]:
    platforms = [arg for platform in _PIP_PLATFORMS[architecture] for arg in ("--platform", platform)]
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        *platforms,
        "--implementation",
        "cp",
        "--python-version",
        python_version(runtime),
        "--only-binary=:all:",
        # Every wheel must match a hash of the lock (and every dependency be pinned in it).
        "--require-hashes",
        "--target",
        str(target),
        "--requirement",
        str(requirements),
    ]


def build_layer_cache(
    cache_root: Path = BUILD_DIR,
    requirements: Path = REQUIREMENTS,
    runtime: lambda_.Runtime = RUNTIME,
    architecture: str = ARCHITECTURE.name,
) -> Path:
    """The layer content (a `python/` tree) for these requirements, built once and then reused."""
    fingerprint = layer_fingerprint(requirements, runtime, architecture)
    cache = cache_root / f"layer-{fingerprint[:16]}"
    if (cache / "python").is_dir():
        return cache
    cache_root.mkdir(parents=True, exist_ok=True)
    # Build next to the cache and rename: an interrupted build never leaves a half-filled cache behind.
    building = Path(tempfile.mkdtemp(prefix=f"{cache.name}-", dir=cache_root))
    try:
        command = pip_command(building / "python", requirements, runtime, architecture)
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            raise RuntimeError(
                f"pip could not fetch Lambda wheels for {requirements} (python{python_version(runtime)}, "
                f"{architecture}); is the package index reachable?\n{' '.join(command)}\n{completed.stderr}"
            )
        # Console scripts are useless in a layer and point at this machine's interpreter.
        shutil.rmtree(building / "python" / "bin", ignore_errors=True)
        try:
            building.rename(cache)
        except OSError:
            if not (cache / "python").is_dir():  # not a concurrent build that won the race
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return cache


def _link_or_copy(source: str, destination: str) -> None:
    # Hard links make staging the ~70 MB layer instant when cdk.out and build/ share a file system.
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


@jsii.implements(cdk.ILocalBundling)
class PipLayerBundling:
    """CDK local bundling: fill the asset directory from the pip-built cache."""

    def __init__(
        self, cache_root: Path, requirements: Path, runtime: lambda_.Runtime, architecture: str
    ) -> None:
        self._cache_root = cache_root
        self._requirements = requirements
        self._runtime = runtime
        self._architecture = architecture

    def try_bundle(self, output_dir: str, options: cdk.BundlingOptions) -> bool:
        del options  # the jsii interface passes them; pip needs none of them
        cache = build_layer_cache(self._cache_root, self._requirements, self._runtime, self._architecture)
        shutil.copytree(cache / "python", Path(output_dir) / "python", copy_function=_link_or_copy)
        return True


def dependencies_layer(
    scope: Construct,
    construct_id: str,
    *,
    cache_root: Path = BUILD_DIR,
    requirements: Path = REQUIREMENTS,
) -> lambda_.LayerVersion:
    """The functions' third-party dependencies as one layer."""
    architecture = ARCHITECTURE.name
    code = lambda_.Code.from_asset(
        # Only the hash and the bundling matter: the layer is pip's, not this folder's.
        str(requirements.parent),
        # A custom hash computed before bundling lets CDK skip bundling when cdk.out already holds the asset.
        asset_hash_type=cdk.AssetHashType.CUSTOM,
        asset_hash=layer_fingerprint(requirements, RUNTIME, architecture),
        bundling=cdk.BundlingOptions(
            # Never used: local bundling always succeeds or raises. CDK requires an image all the same.
            image=cdk.DockerImage.from_registry(f"public.ecr.aws/sam/build-{RUNTIME.name}"),
            # jsii's Python typing declares keyword options, but the kernel passes one positional struct.
            local=cast(cdk.ILocalBundling, PipLayerBundling(cache_root, requirements, RUNTIME, architecture)),
        ),
    )
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=code,
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description=f"kafka-lineage dependencies (lambdas/requirements.lock), {RUNTIME.name} {architecture}",
    )


def function_package_dirs(names: Sequence[str] = FUNCTION_PACKAGES) -> dict[str, Path]:
    """Each function package's folder, found as Python finds it (without importing it)."""
    found: dict[str, Path] = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError(f"the functions' package {name!r} is not importable: is the wheel installed?")
        found[name] = Path(next(iter(spec.submodule_search_locations)))
    return found


def _code_files(packages: Mapping[str, Path]) -> list[tuple[str, Path]]:
    ignored = shutil.ignore_patterns(*CODE_EXCLUDES)
    files: list[tuple[str, Path]] = []
    for name, folder in sorted(packages.items()):
        for directory, subdirs, names in os.walk(folder):
            skip = ignored(directory, [*subdirs, *names])
            subdirs[:] = sorted(d for d in subdirs if d not in skip)
            base = Path(directory)
            files += [
                (f"{name}/{(base / n).relative_to(folder).as_posix()}", base / n)
                for n in sorted(names)
                if n not in skip
            ]
    return files


def build_code_cache(cache_root: Path = BUILD_DIR, packages: Mapping[str, Path] | None = None) -> Path:
    """The functions' code (their packages, side by side, without tests or caches), staged once per content
    under `code-<hash>`: the asset's folder, the same from a checkout (lambdas/) and from an installed wheel
    (site-packages, which holds much more than the functions)."""
    files = _code_files(packages if packages is not None else function_package_dirs())
    digest = hashlib.sha256()
    for relative, path in files:
        digest.update(f"{relative}\0".encode())
        digest.update(path.read_bytes())
    cache = cache_root / f"code-{digest.hexdigest()[:16]}"
    if cache.is_dir():
        return cache
    cache_root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f"{cache.name}-", dir=cache_root))
    try:
        for relative, path in files:
            (building / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, building / relative)
        try:
            building.rename(cache)
        except OSError:
            if not cache.is_dir():  # not a concurrent build that won the race
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return cache


def function_code() -> lambda_.Code:
    """The functions' own code: their packages without tests, caches or the dependency lists."""
    return lambda_.Code.from_asset(str(build_code_cache()))
