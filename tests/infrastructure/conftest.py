"""Fixtures for the stack tests: a synthesis factory whose output directories live for the module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.infrastructure.stack_synth import Synthesized, synthesize


@pytest.fixture(scope="module")
def synth_factory(tmp_path_factory: pytest.TempPathFactory) -> Callable[[dict[str, Any]], Synthesized]:
    """Synthesize a context into a fresh cdk.out; use it from a module-scoped fixture (one synth a module)."""

    def make(context: dict[str, Any]) -> Synthesized:
        return synthesize(context, tmp_path_factory.mktemp("cdk.out"))

    return make
