"""The functions' environment variables named in the prose of docs/configuration.md and docs/deploy.md,
generated from the settings model (`kafka_lineage.config.environment_variables`, what
`Settings.to_environment` writes) and the stack's own additions (`stacks.lineage_stack.EXTRA_ENVIRONMENT`).

A mkdocs hook (mkdocs.yml `hooks:`); tests/unit/test_environment_reference.py compares the list with what
`Settings.to_environment` writes when every setting is set. `python docs/gen_environment.py` prints it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import Generated, ensure_paths, fill, marker, page_uri

ensure_paths()

from kafka_lineage.config import environment_variables  # noqa: E402
from stacks.lineage_stack import EXTRA_ENVIRONMENT  # noqa: E402

MARKER = marker("environment variables", "gen_environment.py")
PAGES = ("configuration.md", "deploy.md")


def variables() -> tuple[str, ...]:
    """Every variable the stack sets on both functions: the settings', then the stack's own."""
    return (*environment_variables().values(), *EXTRA_ENVIRONMENT)


def environment_list() -> str:
    """The variables as the prose names them, in one line."""
    settings = ", ".join(f"`{name}`" for name in environment_variables().values())
    extra = ", ".join(f"`{name}`" for name in EXTRA_ENVIRONMENT)
    return f"{settings}; and the stack's own {extra}"


GENERATED = tuple(Generated(page, MARKER, environment_list) for page in PAGES)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs hook: fill the environment list of configuration.md and deploy.md."""
    return fill(markdown, page_uri(page), GENERATED)


if __name__ == "__main__":
    print(environment_list())
