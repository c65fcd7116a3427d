"""The evaluator's wildcard reasoning against brute force: on a small alphabet, every string up to a length
is tried, so "could match some resource" and "surely covers every resource" are checked, not assumed."""

from __future__ import annotations

import functools
import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_lineage.access.evaluate import _covers, _intersects

ALPHABET = "ab"
PATTERNS = st.text(alphabet="ab*?", min_size=0, max_size=4)
# Two patterns of at most 4 characters share a word, if any, of at most 8 (their fixed characters laid
# side by side): every word up to 8 characters is tried.
WORDS = ["".join(chars) for size in range(9) for chars in itertools.product(ALPHABET, repeat=size)]


@functools.cache
def matched(pattern: str) -> frozenset[str]:
    regex = re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern))
    return frozenset(word for word in WORDS if regex.fullmatch(word))


@settings(max_examples=500, deadline=None)
@given(PATTERNS, PATTERNS)
def test_two_patterns_intersect_exactly_when_some_string_matches_both(left: str, right: str) -> None:
    # When the evaluator says whether two patterns meet
    meet = _intersects(left, right)

    # Then some word matches both exactly when it says so
    assert meet == bool(matched(left) & matched(right))


@settings(max_examples=500, deadline=None)
@given(PATTERNS, PATTERNS)
def test_a_pattern_covers_another_only_when_every_string_of_the_other_matches_it(
    outer: str, inner: str
) -> None:
    # When the evaluator says `outer` covers `inner`, every word `inner` matches is matched by `outer`
    if _covers(outer, inner):
        assert matched(inner) <= matched(outer)


def test_covering_is_recognised_in_the_shapes_boundaries_use() -> None:
    assert _covers("arn:aws:kafka:*:*:group/*", "arn:aws:kafka:eu-west-1:1:group/c/u/prj-*")
    assert _covers("*", "anything*?")
    assert _covers("a?*", "ab*")
    assert not _covers("a?*", "a*")  # "a" alone is not matched by a?*
