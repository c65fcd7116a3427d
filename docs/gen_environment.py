"""The functions' environment variables named in the prose of docs/configuration.md and docs/deploy.md,
generated from the settings model (`kafka_lineage.config.environment_variables`, what
`Settings.to_environment` writes) and the stack's own additions (`stacks.lineage_stack.EXTRA_ENVIRONMENT`).

The pages' Cog blocks write it (`make docs-gen`); tests/unit/test_environment_reference.py compares the list
with what `Settings.to_environment` writes when every setting is set. `python docs/gen_environment.py` prints
it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import ensure_paths

ensure_paths()

from kafka_lineage.config import environment_variables  # noqa: E402
from stacks.lineage_stack import EXTRA_ENVIRONMENT  # noqa: E402

PAGES = ("configuration.md", "deploy.md")


def variables() -> tuple[str, ...]:
    """Every variable the stack sets on both functions: the settings', then the stack's own."""
    return (*environment_variables().values(), *EXTRA_ENVIRONMENT)


def environment_list() -> str:
    """The variables as the prose names them, in one line."""
    settings = ", ".join(f"`{name}`" for name in environment_variables().values())
    extra = ", ".join(f"`{name}`" for name in EXTRA_ENVIRONMENT)
    return f"{settings}; and the stack's own {extra}"


if __name__ == "__main__":
    print(environment_list())
