"""The configuration reference, generated from the settings models.

docs/configuration.md's Cog block writes it (`make docs-gen`): one table per model, every field's key, type,
default, constraints and `Field(description=...)` read from the models themselves, so the reference cannot
drift from the code (tests/unit/test_generated_pages.py fails when the committed page differs). `python
docs/gen_reference.py` prints the tables. tests/unit/test_docs.py (test_every_setting_has_a_description) fails
when a field has no description.
"""

from __future__ import annotations

import json
import sys
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "lambdas"):  # what `make` puts on PYTHONPATH, for a bare `mkdocs build` too
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from pydantic import BaseModel  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402

from kafka_lineage import config as runtime  # noqa: E402
from kafka_lineage.access.settings import AccessSettings  # noqa: E402
from kafka_lineage.model import names  # noqa: E402
from kafka_lineage.model.table_mapping import TableMapping  # noqa: E402
from stacks import config as deployment  # noqa: E402
from stacks import consumer_config, source_config  # noqa: E402

PAGE = "configuration.md"

# The constrained name types of kafka_lineage.model.names, by their validator: what they accept.
_NAMED_VALIDATORS: dict[Callable[[str], str], tuple[str, str]] = {
    names.glue_name: ("Glue Schema Registry name", names.GLUE_REGISTRY_NAME.pattern),
    names.glue_catalog_name: ("Glue Data Catalog name, lower-cased", names.GLUE_CATALOG_NAME.pattern),
    names.source_key: ("source key (registry name or `<account>:<registry name>`)", names.SOURCE_KEY.pattern),
}
_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
_BOUNDS = (("gt", "> {}"), ("ge", "≥ {}"), ("lt", "< {}"), ("le", "≤ {}"))


@dataclass(frozen=True)
class Section:
    """One table: the model, where its keys sit (`kafkaLineage.sources[]`), and how a field is named there."""

    title: str
    anchor: str
    model: type[BaseModel]
    where: str
    intro: str
    key: Callable[[str, FieldInfo], str] = lambda name, field: field.alias or name
    second_key: tuple[str, Callable[[str, FieldInfo], str]] | None = None

    def fields(self) -> list[tuple[str, FieldInfo]]:
        """The rows: the model's fields; the context object's `settings` stand for the Settings' own keys,
        which cdk.json writes at its top level."""
        rows: list[tuple[str, FieldInfo]] = []
        for name, field in self.model.model_fields.items():
            if self.model is deployment.DeploymentContext and name == "settings":
                rows += list(runtime.Settings.model_fields.items())
            else:
                rows.append((name, field))
        return rows


def _environment_variable(name: str, field: FieldInfo) -> str:
    return runtime.variable(name)


SECTIONS = (
    Section(
        "`kafkaLineage`",
        "kafkalineage",
        deployment.DeploymentContext,
        "cdk.json `context.kafkaLineage` (or `-c kafkaLineage=<file or JSON>`)",
        "The deployment. Keys starting with `_` are comments.",
    ),
    Section(
        "`sources[]`",
        "sources",
        runtime.Source,
        "each entry of `kafkaLineage.sources` (and of the functions' `SOURCES`)",
        "One mirrored registry.",
    ),
    Section(
        "`sources[].tableRule`",
        "sourcestablerule",
        runtime.TableRule,
        "`kafkaLineage.sources[].tableRule`",
        "A naming convention: a topic that fully matches `match` feeds Glue table `{database}/{table}`.",
    ),
    Section(
        "`sources[].connectors`",
        "sourcesconnectors",
        runtime.ConnectorFilter,
        '`kafkaLineage.sources[].connectors` (when not `"off"`)',
        "Which MSK Connect connectors of the source's cluster lineage reads.",
    ),
    Section(
        "`tuning`",
        "tuning",
        runtime.Tuning,
        "`kafkaLineage.tuning`, and the functions' `TUNING` (JSON, the same keys)",
        "Optional knobs with safe defaults.",
    ),
    Section(
        "`schedules`",
        "schedules",
        deployment.Schedules,
        "`kafkaLineage.schedules`",
        'EventBridge schedules; `"off"` turns one off.',
    ),
    Section(
        "`tableMappings[]`",
        "tablemappings",
        TableMapping,
        "each entry of `kafkaLineage.tableMappings`, and the JSON value of an operator's mapping parameter "
        "under `{mappingPath}/table-mappings/`",
        "An explicit topic → Glue table mapping.",
    ),
    Section(
        "`access`",
        "access",
        AccessSettings,
        "`kafkaLineage.access`, passed to the subscription-grants function as `ACCESS` (JSON)",
        "Which roles may receive DataZone subscription grants on topic assets, and what a grant covers. "
        "Unset, the stack deploys no subscription-grants function.",
    ),
    Section(
        "`kafkaLineageSource`",
        "kafkalineagesource",
        source_config.SourceAccountConfig,
        "cdk.json context `kafkaLineageSource` of a source account's stack "
        "(`-c kafkaLineageSource=<file or JSON>`)",
        "The source-account stack: the read-only role the functions assume, and the event forwarding.",
    ),
    Section(
        "`kafkaLineageConsumer`",
        "kafkalineageconsumer",
        consumer_config.ConsumerAccountConfig,
        "cdk.json context `kafkaLineageConsumer` of a consumer account's stack "
        "(`-c kafkaLineageConsumer=<file or JSON>`)",
        "The consumer-account stack: the role subscription-grants assumes to write IAM access on that "
        "account's roles (`access.consumerAccountRole`).",
    ),
    Section(
        "The functions' environment",
        "the-functions-environment",
        runtime.Settings,
        "the Lambda environment, which the stack derives from `kafkaLineage`",
        "What both functions read when they start (`Settings.from_environment`); an error names the variable "
        "and the member at fault. Each variable is its `kafkaLineage` key in capitals, words split by `_`; a "
        "text setting is written as it is, any other as JSON with the keys cdk.json uses. The stack writes "
        "the required ones and each that is not at its default.",
        key=_environment_variable,
        second_key=("`kafkaLineage` key", lambda name, field: field.alias or name),
    ),
)


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)


def all_sections() -> tuple[Section, ...]:
    """SECTIONS, then a table for every settings model nested in a shown one that SECTIONS does not name (a
    model someone added gets its table, with its keys as the model names them)."""
    sections = list(SECTIONS)
    shown = {section.model for section in sections}
    for section in sections:  # grows while it runs: nested models of nested models
        for name, field in section.fields():
            for model in _models_in(field.annotation):
                if model not in shown:
                    shown.add(model)
                    where = f"`{section.key(name, field)}` of {section.title}"
                    doc = " ".join((model.__doc__ or "").split())
                    sections.append(Section(f"`{model.__name__}`", model.__name__.lower(), model, where, doc))
    return tuple(sections)


def _link(model: type[BaseModel]) -> str | None:
    for section in all_sections():
        if section.model is model and section.model is not runtime.Settings:
            return f"[{section.model.__name__}](#{section.anchor})"
    return None


def type_text(annotation: Any) -> str:
    """A reader's name for a field's type: `list of string`, `"retain" or "destroy"`, a link to a model."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        validators = [
            _NAMED_VALIDATORS[m.func][0] for m in args[1:] if getattr(m, "func", None) in _NAMED_VALIDATORS
        ]
        return validators[0] if validators else type_text(args[0])
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join(type_text(arg) for arg in args)
    if origin is typing.Literal:
        return " or ".join(f"`{json.dumps(arg)}`" for arg in args)
    if origin in (tuple, list):
        item = args[0] if args and args[0] is not Any else None
        return f"list of {type_text(item)}" if item is not None else "list"
    if origin is dict:
        return "object"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _link(annotation) or f"`{annotation.__name__}`"
    if annotation is Any:
        return "any"
    return _SCALARS.get(annotation, f"`{getattr(annotation, '__name__', annotation)}`")


def _named_patterns(annotation: Any, in_list: bool = False) -> Iterator[str]:
    """The patterns of the constrained name types inside `annotation` (a list's items included)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        for meta in args[1:]:
            if getattr(meta, "func", None) in _NAMED_VALIDATORS:
                pattern = _NAMED_VALIDATORS[meta.func][1]
                yield f"items match `{pattern}`" if in_list else f"matches `{pattern}`"
        return
    for arg in args:
        yield from _named_patterns(arg, in_list or origin in (tuple, list))


def field_type_text(field: FieldInfo) -> str:
    """The type of a field: pydantic moves a constrained name type's validator into the metadata."""
    named = [
        _NAMED_VALIDATORS[m.func][0] for m in field.metadata if getattr(m, "func", None) in _NAMED_VALIDATORS
    ]
    return named[0] if named else type_text(field.annotation)


def constraints_text(field: FieldInfo) -> str:
    """The constraints the model declares: bounds, lengths, patterns (validators' checks are described)."""
    found: list[str] = []
    for meta in field.metadata:
        if getattr(meta, "func", None) in _NAMED_VALIDATORS:
            found.append(f"matches `{_NAMED_VALIDATORS[meta.func][1]}`")
        for attribute, text in _BOUNDS:
            if getattr(meta, attribute, None) is not None:
                found.append(text.format(getattr(meta, attribute)))
        if getattr(meta, "min_length", None) is not None:
            found.append(f"at least {meta.min_length} item(s)")
        if getattr(meta, "max_length", None) is not None:
            found.append(f"at most {meta.max_length}")
        if getattr(meta, "pattern", None) is not None:
            found.append(f"matches `{meta.pattern}`")
    found += list(_named_patterns(field.annotation))
    return "; ".join(found)


def default_text(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, BaseModel):
        return "its defaults" if value == type(value)() else f"`{value.model_dump_json(by_alias=True)}`"
    if value is None:
        return "none"
    return f"`{json.dumps(list(value) if isinstance(value, tuple) else value)}`"


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped, and `<...>` outside code spans shown, not read as HTML."""
    parts = " ".join(text.split()).replace("|", "\\|").split("`")
    for index in range(0, len(parts), 2):  # the even parts lie outside code spans
        parts[index] = parts[index].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def missing_descriptions() -> list[str]:
    """`Model.field` of every field without a description, in every model the reference shows."""
    return [
        f"{section.model.__name__}.{name}"
        for section in all_sections()
        for name, field in section.fields()
        if not (field.description or "").strip()
    ]


def render_section(section: Section) -> str:
    first = "key" if section.key is not _environment_variable else "variable"
    header = [
        first,
        *([section.second_key[0]] if section.second_key else []),
        "type",
        "default",
        "constraints",
    ]
    lines = [
        f"### {section.title} {{#{section.anchor}}}",
        "",
        f"{section.intro} Where: {section.where}.",
        "",
        "| " + " | ".join([*header, "description"]) + " |",
        "|" + "---|" * (len(header) + 1),
    ]
    for name, field in section.fields():
        keys = [f"`{section.key(name, field)}`"]
        if section.second_key:
            keys.append(f"`{section.second_key[1](name, field)}`")
        cells = [
            *keys,
            field_type_text(field),
            default_text(field),
            constraints_text(field),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in [*cells, field.description or ""]) + " |")
    return "\n".join(lines)


def reference() -> str:
    """Every section's table, for the configuration page."""
    missing = missing_descriptions()
    if missing:
        raise ValueError(f"settings without Field(description=...): {', '.join(missing)}")
    return "\n\n".join(render_section(section) for section in all_sections())


if __name__ == "__main__":
    print(reference())
