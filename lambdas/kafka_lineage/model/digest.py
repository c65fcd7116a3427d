"""One way to fingerprint a description: the sha256 of its canonical JSON, cut to 32 hex digits.

Lineage runs, first hops and drift announcements are told apart by it (and it is stored), so it must
never change for the same description: keys sorted, compact separators, UTF-8 without escapes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def fingerprint(described: Any) -> str:
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
