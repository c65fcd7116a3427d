"""EventBridge schedules of the `kafkaLineage` context (`schedules`), checked as EventBridge would check them
at deploy time: `rate(N unit)`, a six-field `cron(...)` with every field in range, or `"off"`."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

from kafka_lineage.config import SETTINGS_MODEL

SCHEDULE_OFF = "off"
# EventBridge schedule expressions: rate(value unit) or a six-field cron(...).
_RATE = re.compile(r"rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)")
_CRON = re.compile(r"cron\((\S+ ){5}\S+\)")
# EventBridge cron fields (Scheduler / EventBridge "Cron expressions" reference): name, range, names allowed.
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minutes", 0, 59, ()),
    ("hours", 0, 23, ()),
    ("day-of-month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("day-of-week", 1, 7, _DAYS),
    ("year", 1970, 2199, ()),
)


def _cron_value(token: str, low: int, names: tuple[str, ...]) -> int | None:
    """The number a cron token stands for (a name counts from `low`), or None when it is not a value."""
    if token.upper() in names:
        return names.index(token.upper()) + low
    return int(token) if token.isdigit() else None


def _check_cron_field(text: str, name: str, low: int, high: int, names: tuple[str, ...]) -> str | None:
    """Why a cron field is out of range, or None. Checks every number, range bound and step."""
    for part in text.split(","):
        base, _, step = part.partition("/")
        if step and (not step.isdigit() or not 1 <= int(step) <= high):
            return f"{name} step {step!r} is not 1-{high}"
        if base in ("*", "?") or (name.startswith("day-of") and _cron_special(base, name, low, high)):
            continue
        for bound in base.split("-"):
            value = _cron_value(bound, low, names)
            if value is None or not low <= value <= high:
                allowed = f"{low}-{high}" + (f" or {names[0]}-{names[-1]}" if names else "")
                return f"{name} {bound!r} is outside {allowed}"
    return None


def _cron_special(base: str, name: str, low: int, high: int) -> bool:
    """L, W and # in the day fields (`L`, `15W`, `LW`, `5L`, `3#2`), with their numbers in range."""
    token = base.upper()
    if name == "day-of-month":
        number = token.rstrip("LW")
        numbered = token.endswith("W") and number.isdigit() and low <= int(number) <= high
        return token in ("L", "LW") or numbered
    if "#" in token:
        day, _, nth = token.partition("#")
        return day.isdigit() and low <= int(day) <= high and nth.isdigit() and 1 <= int(nth) <= 5
    number = token.rstrip("L")
    return token == "L" or (token.endswith("L") and number.isdigit() and low <= int(number) <= high)


def _check_cron(value: str, key: str) -> None:
    fields = value[len("cron(") : -1].split()
    for text, (name, low, high, names) in zip(fields, _CRON_FIELDS, strict=True):
        problem = _check_cron_field(text, name, low, high, names)
        if problem:
            raise ValueError(f"{key} {value!r}: {problem} (EventBridge would refuse it at deploy time)")
    day_of_month, day_of_week = fields[2], fields[4]
    # EventBridge: one of day-of-month and day-of-week must be "?".
    if (day_of_month == "?") == (day_of_week == "?"):
        raise ValueError(f"{key} {value!r}: exactly one of day-of-month and day-of-week must be '?'")


def _schedule(value: str | None, key: str) -> str | None:
    # "off" rather than only null: jsii drops null members of context objects passed from Python.
    if value is None or value.strip().lower() == SCHEDULE_OFF:
        return None
    value = value.strip()
    if not (_RATE.fullmatch(value) or _CRON.fullmatch(value)):
        raise ValueError(
            f'{key} {value!r} is not an EventBridge schedule: use rate(N unit), a 6-field cron(...) or "off"'
        )
    if (match := _RATE.fullmatch(value)) and (match.group(1) == "1") == match.group(2).endswith("s"):
        raise ValueError(
            f"{key} {value!r}: EventBridge wants rate(1 hour) but rate(2 hours) (singular for 1)"
        )
    if _CRON.fullmatch(value):
        _check_cron(value, key)
    return value


class Schedules(BaseModel):
    """EventBridge schedules; "off" turns one off."""

    model_config = SETTINGS_MODEL

    # Hourly full sync, a daily deep verification, and lineage a while after each sync.
    sync: str | None = Field(
        default="cron(0 * * * ? *)", description="The full sync of every source (hourly by default)."
    )
    verify: str | None = Field(
        default="cron(40 3 * * ? *)",
        description='The deep verification, `{"verify": true}` (daily by default): every schema inspected, '
        "unmapped assets adopted or removed.",
    )
    lineage: str | None = Field(
        default="cron(20 * * * ? *)",
        description="The lineage run of every mapped topic (hourly, a while after each sync, by default).",
    )
    grants: str | None = Field(
        default="cron(50 * * * ? *)",
        description="The reconciling run of subscription-grants (hourly by default; only with `access`): it "
        "finishes grants DataZone's best-effort events left pending, and puts back access changed by hand.",
    )

    @field_validator("sync", "verify", "lineage", "grants")
    @classmethod
    def _valid(cls, value: str | None) -> str | None:
        return _schedule(value, "schedule")
