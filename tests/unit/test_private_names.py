"""No module uses a private name (`_name`) of another of the repository's top-level packages: what one
package offers another is public, so that a private name can change with its module alone (the command
line's helpers that the checkout's `python -m local` uses are kafka_lineage_cdk.commandline's, by name)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The repository's top-level packages (the wheel's, and the checkout's tools) and where their code lives.
PACKAGES = {
    "kafka_lineage": ROOT / "lambdas/kafka_lineage",
    "schema_sync": ROOT / "lambdas/schema_sync",
    "lineage_emission": ROOT / "lambdas/lineage_emission",
    "subscription_grants": ROOT / "lambdas/subscription_grants",
    "asset_type_resource": ROOT / "lambdas/asset_type_resource",
    "stacks": ROOT / "stacks",
    "kafka_lineage_cdk": ROOT / "kafka_lineage_cdk",
    "local": ROOT / "local",
    "bench": ROOT / "bench",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def borrowed(source: str, own: str) -> list[str]:
    """`module.name` for each private name of another of our packages that `source` imports or reads."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # a local name bound to one of our modules -> the module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            for alias in node.names:
                if top in PACKAGES and top != own and _private(alias.name):
                    found.append(f"{node.module}.{alias.name}")
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
            module = modules.get(node.value.id)
            if module is not None and module.split(".")[0] in PACKAGES and module.split(".")[0] != own:
                found.append(f"{module}.{node.attr}")
    return found


def test_the_check_sees_both_ways_of_borrowing():
    # Given code that imports a private name of another package, or reads one through its module
    imported = "from kafka_lineage_cdk.cli import _payload\n"
    read = "from kafka_lineage_cdk import cli\ncli._emit(None, False)\n"
    own = "from local import world\nworld._private()\n"
    # Then both are found in another package, and a package's own private names are its own
    assert borrowed(imported, "local") == ["kafka_lineage_cdk.cli._payload"]
    assert borrowed(read, "local") == ["kafka_lineage_cdk.cli._emit"]
    assert borrowed(own, "local") == []


def test_no_module_borrows_another_packages_private_names():
    # Given every module of every package / Then none uses another package's private name
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for own, folder in PACKAGES.items()
        for path in sorted(folder.rglob("*.py"))
        for name in borrowed(path.read_text(encoding="utf-8"), own)
    }
    assert found == set()
