"""Extra metadata forms and glossary terms every topic asset carries (`assetForms`, `glossaryTerms`): for
governed domains whose rules require forms or terms before an asset is published.

An `AssetForm` is checked where it can be without DataZone: its form name (DataZone's FormName pattern), its
form type identifier and revision (FormTypeIdentifier, RevisionInput), its content's placeholders and its
size once filled with the longest names the Glue Schema Registry allows. Whether the content fits the form
type's model only DataZone can tell (it validates formsInput against the model at CreateAsset); a refusal
fails that schema, naming the form.
"""

from __future__ import annotations

import json
import re
import string
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

# botocore datazone FormName, FormTypeIdentifier, RevisionInput, GlossaryTermId; FormInputContentString.
FORM_NAME = re.compile(r"(?![0-9_])\w+$|^_\w*[a-zA-Z0-9]\w*")
FORM_NAME_MAX = 128
FORM_TYPE_IDENTIFIER = re.compile(r"(?!\.)[\w\.]*\w")
FORM_TYPE_IDENTIFIER_MAX = 385
REVISION = re.compile(r"[a-zA-Z0-9_-]{1,64}")
GLOSSARY_TERM_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")
GLOSSARY_TERMS_MAX = 20  # CreateAsset's glossaryTerms: at most 20
FORM_CONTENT_MAX = 300_000
PLACEHOLDERS = ("topic", "registryName", "schemaArn")
# The longest values the placeholders take: Glue names are 1-255 characters; a schema ARN with both.
_LONGEST = {
    "topic": "t" * 255,
    "registryName": "r" * 255,
    "schemaArn": "arn:aws-iso-b:glue:" + "x" * 25 + ":123456789012:schema/" + "r" * 255 + "/" + "t" * 255,
}


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format_map(values)
    if isinstance(value, dict):
        return {key.format_map(values): _fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, values) for item in value]
    return value


class AssetForm(BaseModel):
    """One extra metadata form of every topic asset (an `assetForms` entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    form_name: str = Field(
        alias="formName",
        description="The form's name on the asset: DataZone's FormName pattern (letters, digits and `_`, "
        "not starting with a digit; no dots), at most 128 characters, and none of the asset type's own "
        "forms.",
    )
    type_identifier: str = Field(
        alias="typeIdentifier",
        description="The form type, e.g. a form type the domain's rule requires (`amazon.datazone.*` or "
        "one of the domain's own).",
    )
    type_revision: str | None = Field(
        default=None,
        alias="typeRevision",
        description="The form type's revision; without it DataZone takes the latest. A rule requiring the "
        "form names a revision: give that one.",
    )
    content: dict[str, Any] = Field(
        description="The form's content, a JSON object of the form type's members. Strings may use the "
        "placeholders `{topic}`, `{registryName}` and `{schemaArn}` (write `{{` and `}}` for braces)."
    )

    @field_validator("form_name")
    @classmethod
    def _form_name(cls, value: str) -> str:
        if len(value) > FORM_NAME_MAX or not FORM_NAME.fullmatch(value):
            raise ValueError(
                f"formName {value!r} does not match DataZone's FormName pattern (letters, digits and _, "
                f"not starting with a digit, no dots, at most {FORM_NAME_MAX} characters)"
            )
        return value

    @field_validator("type_identifier")
    @classmethod
    def _type_identifier(cls, value: str) -> str:
        if len(value) > FORM_TYPE_IDENTIFIER_MAX or not FORM_TYPE_IDENTIFIER.fullmatch(value):
            raise ValueError(f"typeIdentifier {value!r} is not a DataZone form type identifier")
        return value

    @field_validator("type_revision")
    @classmethod
    def _type_revision(cls, value: str | None) -> str | None:
        if value is not None and not REVISION.fullmatch(value):
            raise ValueError(f"typeRevision {value!r} is not a revision ({REVISION.pattern})")
        return value

    @field_validator("content")
    @classmethod
    def _content(cls, value: dict[str, Any]) -> dict[str, Any]:
        for text in _strings(value):
            try:
                fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
            except ValueError as error:
                raise ValueError(
                    f"content: {text!r} is not a valid template ({error}); write {{{{ for a brace"
                ) from error
            unknown = sorted({name for name in fields if name not in PLACEHOLDERS})
            if unknown:
                raise ValueError(
                    f"content: {text!r} uses {unknown}; the placeholders are "
                    "{topic}, {registryName}, {schemaArn}"
                )
        longest = len(json.dumps(_fill(value, _LONGEST), separators=(",", ":"), ensure_ascii=False))
        if longest > FORM_CONTENT_MAX:
            raise ValueError(
                f"content would be {longest} characters with the longest names; DataZone takes at most "
                f"{FORM_CONTENT_MAX}"
            )
        return value

    def rendered(self, topic: str, registry_name: str, schema_arn: str) -> str:
        """The content for one topic's asset, as the JSON text formsInput carries."""
        values = {"topic": topic, "registryName": registry_name, "schemaArn": schema_arn}
        return json.dumps(
            _fill(self.content, values), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )


def check_glossary_terms(value: tuple[str, ...]) -> tuple[str, ...]:
    for term in value:
        if not GLOSSARY_TERM_ID.fullmatch(term):
            raise ValueError(f"{term!r} is not a glossary term id ({GLOSSARY_TERM_ID.pattern})")
    duplicates = sorted({term for term in value if value.count(term) > 1})
    if duplicates:
        raise ValueError(f"glossary term(s) listed more than once: {duplicates}")
    if len(value) > GLOSSARY_TERMS_MAX:
        raise ValueError(f"{len(value)} glossary terms; an asset carries at most {GLOSSARY_TERMS_MAX}")
    return value


def check_asset_forms(value: tuple[AssetForm, ...]) -> tuple[AssetForm, ...]:
    names = [form.form_name for form in value]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"formName listed more than once: {duplicates}")
    return value


def clashes(forms: tuple[AssetForm, ...], asset_type_forms: set[str] | frozenset[str]) -> list[str]:
    """The extra forms whose names the asset type's own forms already take."""
    return sorted(form.form_name for form in forms if form.form_name in asset_type_forms)


# The settings' types (kafka_lineage.config.Settings): checked as a whole once each entry is.
AssetForms = Annotated[tuple[AssetForm, ...], AfterValidator(check_asset_forms)]
GlossaryTerms = Annotated[tuple[str, ...], AfterValidator(check_glossary_terms)]
