"""Properties of the field diff over generated schema versions."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_lineage.drift import diff_fields
from local import debezium

COLUMNS = debezium.synthetic_columns(40)
# Positions into COLUMNS: a version keeps a subset, in order (as a table's columns evolve).
subsets = st.sets(st.integers(min_value=0, max_value=len(COLUMNS) - 1), min_size=1).map(sorted)
# AVRO and JSON identify fields by name alone; PROTOBUF's positional numbering has its own tests.
by_name_formats = st.sampled_from(("AVRO", "JSON"))
quick = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def version(positions: list[int], data_format: str, flipped: frozenset[int] = frozenset()) -> str:
    columns = []
    for index in positions:
        column = COLUMNS[index]
        if index in flipped and column.default is None:
            column = debezium.Field(
                column.name, column.type, not column.optional, column.semantic, column.parameters
            )
        columns.append(column)
    return debezium.render(debezium.envelope("gen", columns), data_format)


@quick
@given(old=subsets, new=subsets, data_format=by_name_formats)
def test_added_and_removed_are_exactly_the_set_differences(
    old: list[int], new: list[int], data_format: str
) -> None:
    # Given two versions keeping different subsets of a table's columns
    diff = diff_fields(data_format, version(old, data_format), version(new, data_format))
    # When the row fields' changes are collected
    row = {(c.change, c.field) for c in diff.changes if c.field.startswith("after.")}
    # Then the added and removed row fields are the set differences, and nothing else changed
    names = {index: f"after.{COLUMNS[index].name}" for index in range(len(COLUMNS))}
    expected = {("added", names[i]) for i in set(new) - set(old)} | {
        ("removed", names[i]) for i in set(old) - set(new)
    }
    assert diff.complete
    assert row == expected


@quick
@given(
    old=subsets,
    new=subsets,
    flipped=st.frozensets(st.integers(0, len(COLUMNS) - 1)),
    data_format=by_name_formats,
)
def test_reversing_the_versions_reverses_every_change(
    old: list[int], new: list[int], flipped: frozenset[int], data_format: str
) -> None:
    # Given two versions, some columns' nullability flipped in the second
    first, second = version(old, data_format), version(new, data_format, flipped)
    # When diffed both ways
    forward = diff_fields(data_format, first, second)
    backward = diff_fields(data_format, second, first)
    # Then each change forward is the mirror of one backward
    mirror = {"added": "removed", "removed": "added"}
    forward_set = {(c.field, mirror.get(c.change, c.change), c.after, c.before) for c in forward.changes}
    assert forward_set == {(c.field, c.change, c.before, c.after) for c in backward.changes}


@quick
@given(positions=subsets, data_format=st.sampled_from(debezium.DATA_FORMATS))
def test_a_version_compared_with_itself_has_no_changes(positions: list[int], data_format: str) -> None:
    definition = version(positions, data_format)
    diff = diff_fields(data_format, definition, definition)
    assert diff.changes == ()
    assert diff.complete


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["type", "name", "fields", "properties", "items", "$ref", "default", "aliases", "oneOf"]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=80, deadline=None)
@given(
    data_format=st.sampled_from((*debezium.DATA_FORMATS, "avro", " json ", "XML")),
    old=st.one_of(st.text(max_size=60), json_values.map(json.dumps)),
    new=st.one_of(st.text(max_size=60), json_values.map(json.dumps)),
)
def test_any_input_gives_a_result_never_an_exception(data_format: str, old: str, new: str) -> None:
    # Given arbitrary text or JSON as both versions
    diff = diff_fields(data_format, old, new)
    # Then there is a result; when it has changes it is complete or says why not
    assert diff.complete or diff.warnings
