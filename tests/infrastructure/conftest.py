"""Fixtures for the stack tests: a synthesis factory whose output directories live for the module."""

from __future__ import annotations

import os

# Before aws_cdk starts the jsii runtime: its Node 20 end-of-life banner names this variable.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

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
