"""The Smithy IDL subset parser and the form-content validator of the DataZone stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.standins.smithy.model import DOCUMENTATION, LENGTH, SEARCHABLE, SmithyError, SmithyModel
from local.standins.smithy.parser import parse
from local.standins.smithy.validator import FormValidator

REPO = Path(__file__).resolve().parents[3]
MANAGED = REPO / "local" / "standins" / "datazone" / "managed_forms"

RICH_MODEL = """
$version: "2"
metadata "owner" = {team: "data", tags: ["a", "b"]}
namespace com.example.forms

use amazon.datazone#searchable

/// Describes a table.
/// Second line.
@documentation("explicit wins")
structure TableForm {
    @required
    @searchable
    name: String,

    @amazon.datazone#searchable(modes: ["LEXICAL"])
    @length(min: 1, max: 5)
    columns: Columns

    @range(min: 0, max: 100)
    score: Integer = 0

    @pattern("^[a-z]+$")
    code: String

    kind: Kind
    level: Level
    props: Props
    seen: Timestamp
    blob: Document
    ratio: Double
    big: Long
    @amazon.datazone#glossaryterm("${GLOSSARY_ID}")
    term: String
}

list Columns {
    member: Column
}

structure Column {
    @required
    columnName: String
    dataType: String
}

enum Kind {
    TABLE
    VIEW = "view"
}

intEnum Level {
    LOW = 1
    HIGH = 2
}

map Props {
    key: String
    value: String
}
"""


def parsed() -> SmithyModel:
    return parse(RICH_MODEL)


def validate(content: object, reject_unknown: bool = True) -> list[str]:
    return FormValidator(parsed(), reject_unknown).validate("TableForm", content, "Table")


class TestParser:
    def test_given_a_rich_model_when_parsed_then_every_shape_is_resolved_with_its_namespace(self):
        # Given / When
        model = parsed()
        # Then
        assert model.namespace == "com.example.forms"
        assert {s.name for s in model.shapes.values()} == {
            "TableForm",
            "Columns",
            "Column",
            "Kind",
            "Level",
            "Props",
        }
        form = model.local("TableForm")
        assert form is not None
        assert form.members["columns"].target == "com.example.forms#Columns"
        assert form.members["name"].target == "smithy.api#String"

    def test_given_traits_with_and_without_arguments_when_parsed_then_values_are_kept_by_absolute_id(self):
        form = parsed().local("TableForm")
        assert form is not None
        name, columns = form.members["name"], form.members["columns"]
        assert name.required
        assert name.searchable  # `use` resolved @searchable to amazon.datazone#
        assert columns.traits[SEARCHABLE] == {"modes": ["LEXICAL"]}
        assert columns.traits[LENGTH] == {"min": 1, "max": 5}
        assert form.members["term"].traits["amazon.datazone#glossaryterm"] == "${GLOSSARY_ID}"
        assert form.members["score"].default == 0

    def test_given_doc_comments_and_an_explicit_documentation_trait_then_the_trait_wins(self):
        form = parsed().local("TableForm")
        assert form is not None
        assert form.traits[DOCUMENTATION] == "explicit wins"

    def test_given_doc_comments_only_then_they_become_the_documentation(self):
        model = parse("/// Line one.\n/// Line two.\nstructure F {\n    /// The name.\n    name: String\n}\n")
        shape = model.local("F")
        assert shape is not None
        assert shape.traits[DOCUMENTATION] == "Line one.\nLine two."
        assert shape.members["name"].traits[DOCUMENTATION] == "The name."

    def test_given_a_text_block_then_indentation_is_removed(self):
        model = parse('@documentation("""\n    First\n      indented\n    """)\nstructure F { a: String }')
        shape = model.local("F")
        assert shape is not None
        assert shape.traits[DOCUMENTATION] == "First\n  indented\n"

    def test_given_no_namespace_then_shapes_live_in_the_empty_namespace(self):
        # DataZone's own examples omit the namespace statement.
        model = parse(
            "structure SageMakerModelFormType { @required @amazon.datazone#searchable modelName: String }"
        )
        assert model.namespace == ""
        assert model.local("SageMakerModelFormType") is not None

    def test_given_the_same_model_with_other_whitespace_and_comments_then_the_models_are_equal(self):
        noisy = RICH_MODEL.replace("\n\n", "\n// a comment\n\n").replace("    ", "\t")
        assert parse(noisy) == parsed()

    def test_given_a_changed_member_then_the_models_differ(self):
        assert parse(RICH_MODEL.replace("dataType: String", "dataType: Integer")) != parsed()

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("structure F { a: Nope }", "unresolved shape 'Nope'"),
            ("structure F {\n a: String\n a: String }", "duplicate member F$a"),
            ("structure F { a: String }\nstructure F { b: String }", "duplicate shape F"),
            ("apply F @required", "'apply' is not supported"),
            ("structure F with [M] { a: String }", "mixins"),
            ("structure F { a: String }\nnamespace x", "namespace must be declared once"),
            ("list L { item: String }", "must have exactly the members ['member']"),
            ("map M { key: String }", "must have exactly the members ['key', 'value']"),
            ("structure F {\n\n  a: String = \n}", "line 4"),
            ('structure F { @documentation("open) a: String }', "unterminated string"),
            ("string S { a: String }", "cannot have members"),
            ("structure F { a.b: String }", "invalid member name"),
            ('intEnum E { A = "x" }', "needs an integer value"),
            ('$version: "3"', "unsupported Smithy version"),
            ("structure F { a: String } %", "unexpected character"),
        ],
    )
    def test_given_invalid_or_unsupported_text_when_parsed_then_smithy_error_says_why(self, text, message):
        with pytest.raises(SmithyError, match=message.replace("[", r"\[").replace("$", r"\$")):
            parse(text)

    @pytest.mark.parametrize("name", ["KafkaSchemaFormType", "MskSourceReferenceFormType"])
    def test_given_the_projects_form_types_then_they_parse_with_the_structure_named_after_the_file(
        self, name
    ):
        model = parse((REPO / "smithy" / f"{name}.smithy").read_text(encoding="utf-8"))
        assert model.local(name) is not None
        assert model.local(name).type == "structure"  # type: ignore[union-attr]

    @pytest.mark.parametrize(
        ("file_name", "members"),
        [
            ("AssetCommonDetailsFormType", {"sourceIdentifier", "customProperties"}),
            ("RelationalTableFormType", {"tableName", "columns"}),
        ],
    )
    def test_given_the_managed_form_models_then_they_parse_in_the_amazon_datazone_namespace(
        self, file_name, members
    ):
        model = parse((MANAGED / f"{file_name}.smithy").read_text(encoding="utf-8"))
        assert model.namespace == "amazon.datazone"
        shape = model.local(file_name)
        assert shape is not None
        assert set(shape.members) == members


class TestFormValidator:
    def test_given_valid_content_then_no_errors(self):
        content = {
            "name": "orders",
            "columns": [{"columnName": "id", "dataType": "long"}],
            "score": 7,
            "code": "abc",
            "kind": "view",
            "level": 2,
            "props": {"k": "v"},
            "seen": "2026-01-01T00:00:00+00:00",
            "blob": {"anything": [1, "x", None]},
            "ratio": 1,
            "big": 2**40,
            "term": "t1",
        }
        assert validate(content) == []

    def test_given_a_missing_required_member_then_the_message_names_the_form_path(self):
        assert validate({}) == ["$.Table.name: is missing but it is required"]

    def test_given_a_null_required_member_then_it_counts_as_missing(self):
        assert validate({"name": None}) == ["$.Table.name: is missing but it is required"]

    def test_given_a_wrong_json_type_then_the_path_and_both_types_are_named(self):
        assert validate({"name": 5}) == ["$.Table.name: integer found, string expected"]

    def test_given_nested_lists_then_errors_carry_the_index_path(self):
        errors = validate({"name": "t", "columns": [{"columnName": "a"}, {"dataType": 3}]})
        assert errors == [
            "$.Table.columns[1].columnName: is missing but it is required",
            "$.Table.columns[1].dataType: integer found, string expected",
        ]

    def test_given_an_unknown_member_then_it_is_rejected_unless_the_reading_allows_it(self):
        content = {"name": "t", "surprise": 1, "columns": [{"columnName": "a", "extra": True}]}
        unknown = "is not defined in the schema and the schema does not allow additional properties"
        assert validate(content) == [f"$.Table.surprise: {unknown}", f"$.Table.columns[0].extra: {unknown}"]
        assert validate(content, reject_unknown=False) == []

    @pytest.mark.parametrize(
        ("content", "error"),
        [
            ({"columns": []}, "$.Table.columns: must be at least 1 items long"),
            ({"columns": [{"columnName": "c"}] * 6}, "$.Table.columns: may only be 5 items long"),
            ({"score": 101}, "$.Table.score: must have a maximum value of 100"),
            ({"score": -1}, "$.Table.score: must have a minimum value of 0"),
            ({"score": 1.5}, "$.Table.score: number found, integer expected"),
            ({"code": "ABC"}, "$.Table.code: does not match the regex pattern ^[a-z]+$"),
            ({"kind": "TABLE2"}, "$.Table.kind: does not have a value in the enumeration ['TABLE', 'view']"),
            ({"level": 3}, "$.Table.level: does not have a value in the enumeration [1, 2]"),
            ({"props": {"k": 1}}, "$.Table.props.k: integer found, string expected"),
            ({"props": []}, "$.Table.props: array found, object expected"),
            (
                {"seen": "yesterday"},
                "$.Table.seen: string found, timestamp (epoch seconds or ISO-8601) expected",
            ),
            ({"ratio": "1.0"}, "$.Table.ratio: string found, number expected"),
            (
                {"big": 2**63},
                "$.Table.big: must be between -9223372036854775808 and 9223372036854775807 (long)",
            ),
            ({"name": True}, "$.Table.name: boolean found, string expected"),
            ({"columns": ["x"]}, "$.Table.columns[0]: string found, object expected"),
        ],
    )
    def test_given_a_constraint_broken_then_the_message_says_which(self, content, error):
        assert validate({"name": "t", **content}) == [error]

    def test_given_content_that_is_not_an_object_then_the_root_path_is_named(self):
        assert validate(["a"]) == ["$.Table: array found, object expected"]

    def test_given_a_union_then_exactly_one_member_must_be_set(self):
        model = parse("structure F { choice: Choice }\nunion Choice { a: String\n b: Integer }")
        validator = FormValidator(model)
        assert validator.validate("F", {"choice": {"a": "x"}}, "F") == []
        assert validator.validate("F", {"choice": {"a": "x", "b": 1}}, "F") == [
            "$.F.choice: a union must set exactly one member, found 2"
        ]

    def test_given_a_smithy_1_enum_trait_then_values_are_checked(self):
        model = parse('structure F { s: S }\n@enum([{value: "A"}, {value: "B"}])\nstring S')
        assert FormValidator(model).validate("F", {"s": "C"}, "F") == [
            "$.F.s: does not have a value in the enumeration ['A', 'B']"
        ]

    def test_given_a_name_that_is_not_a_structure_then_validate_refuses(self):
        with pytest.raises(KeyError):
            FormValidator(parsed()).validate("Kind", {}, "X")

    def test_searchable_members_lists_top_level_searchable_members(self):
        assert set(parsed().searchable_members("TableForm")) == {"name", "columns"}
