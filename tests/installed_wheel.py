"""What `make wheel` checks inside the fresh virtual environment that holds only the installed wheel, run
from a folder with no checkout: the wheel's packages are the ones a checkout imports, by the same names
(pyproject.toml, the wheel), all from site-packages; every module of the command line and of the constructs
imports; the local stand-ins are not there, and the command line does not offer them. Prints the commands of
`kafka-lineage`, for the Makefile to ask each for its --help.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import pkgutil
import sysconfig
from pathlib import Path

DISTRIBUTION = "kafka-datazone-lineage"
PACKAGES = {
    "kafka_lineage_cdk",
    "stacks",
    "kafka_lineage",
    "schema_sync",
    "lineage_emission",
    "subscription_grants",
    "asset_type_resource",
}


def _top_level() -> set[str]:
    files = importlib.metadata.distribution(DISTRIBUTION).files or []
    # The console script's path climbs out of site-packages (../../../bin/kafka-lineage).
    return {
        file.parts[0] for file in files if not file.parts[0].endswith(".dist-info") and file.parts[0] != ".."
    }


def main() -> None:
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    found = _top_level()
    assert found == PACKAGES, f"the wheel's top-level names are {sorted(found)}, not {sorted(PACKAGES)}"
    for name in sorted(PACKAGES):
        spec = importlib.util.find_spec(name)
        assert spec is not None, name
        assert spec.origin is not None, name
        assert Path(spec.origin).resolve().is_relative_to(site), f"{name} comes from {spec.origin}"
    for package in ("kafka_lineage_cdk", "stacks"):
        path = importlib.import_module(package).__path__
        for module in pkgutil.iter_modules(path):
            if module.name != "__main__":
                importlib.import_module(f"{package}.{module.name}")
    from stacks import bundling

    assert bundling.INSTALLED, "stacks/_data is missing from the wheel"
    assert importlib.util.find_spec("local") is None, "the wheel carries local/"
    from kafka_lineage_cdk.cli import main as command_line

    assert "local" not in command_line.commands, "the installed kafka-lineage offers `local`"
    print(*command_line.commands)


if __name__ == "__main__":
    main()
