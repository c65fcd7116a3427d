"""Reading a connector's configuration values as its connector does: transform aliases, booleans, Java
regexes and Debezium's comma-separated regex lists; what cannot be read is `Unreadable`, and says why."""

from __future__ import annotations

import re
from collections.abc import Mapping

from kafka_lineage.connectors.javaregex import UnsupportedRegex, compile_java


class Unreadable(Exception):
    """The configuration cannot be read as lineage; the message says why."""


def job_namespace(cluster_name: str) -> str:
    return f"kafka-connect://{cluster_name}"


def aliases(config: Mapping[str, str]) -> list[str]:
    return [alias.strip() for alias in config.get("transforms", "").split(",") if alias.strip()]


def java_regex(pattern: str, setting: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    try:
        return compile_java(pattern, ignore_case=ignore_case)
    except UnsupportedRegex as error:
        raise Unreadable(f"{setting}: {error}") from error


def regex_list(value: str, setting: str) -> list[re.Pattern[str]]:
    """Debezium's RegExSplitter, then CASE_INSENSITIVE patterns (Debezium's Predicates.includes)."""
    return [java_regex(item, setting, ignore_case=True) for item in split_regex_list(value)]


def split_regex_list(value: str) -> list[str]:
    """Split on commas, an escape (`\\x`) kept whole; trim each; `\\,` then reads as a comma."""
    items: list[str] = []
    start = index = 0
    while index < len(value):
        if value[index] == "\\":
            index += 2
            continue
        if value[index] == ",":
            items.append(value[start:index])
            start = index + 1
        index += 1
    items.append(value[start:])
    return [item.strip().replace("\\,", ",") for item in items if item.strip()]


def is_true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"
