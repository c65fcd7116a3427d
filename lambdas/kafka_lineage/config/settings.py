"""The runtime settings both functions read, and the stack validates at synth (so a value that would fail at
run time fails `cdk synth` first).

One name per setting: a `Settings` field. Its cdk.json key is the field's name in camelCase (pydantic's
`to_camel`, the models' alias generator) and its environment variable the name in capitals, e.g.
`mapping_path`: `mappingPath` in cdk.json, `MAPPING_PATH` in the functions' environment. Adding a setting is
adding one field with its description: the stack passes it, the functions read it, the docs list it.

The environment codec is ours, not pydantic-settings': that package is not a dependency and the functions'
layer adds none. It reads the names pydantic-settings would (a field's variable is its name, in any case):
a text setting as it is, any other as JSON. Errors name the variable at fault.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

from kafka_lineage.model import asset_forms as governance
from kafka_lineage.model.errors import Location, describe
from kafka_lineage.model.ssm_names import validate_ssm_path

from .lineage_targets import DATAZONE, GLUE, LineageTargets
from .products import DataProducts
from .sources import Source, fullmatch

# DataZone identifiers: botocore datazone DomainId / ProjectId.
DOMAIN_ID = re.compile(r"dzd[-_][a-zA-Z0-9_-]{1,36}")
PROJECT_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")

DEFAULT_MAPPING_PATH = "/kafka-lineage"
DEFAULT_ASSET_TYPE_NAME = "KafkaTopicAssetType"
# Search's filter values are at most 128 characters (botocore datazone FilterValueString), and the
# functions find their assets by a filter on the asset type's name; CreateAssetType itself takes 256.
ASSET_TYPE_NAME_MAX = 128
# How many data steps downstream of an impacted table the drift walk reads (0: none); see aws/lineage_graph.
DEFAULT_DRIFT_DOWNSTREAM_DEPTH = 3
MAX_DRIFT_DOWNSTREAM_DEPTH = 10
# Spellings of cdk.json keys still accepted for one release, and the key that replaces each.
DEPRECATED_KEYS = {"state_root": "mappingPath"}

# What every settings model shares: camelCase keys from the field names (the snake_case names are accepted
# too), unknown keys refused, values frozen.
SETTINGS_MODEL = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)


Model = TypeVar("Model", bound=BaseModel)


class ConfigError(ValueError):
    """A setting is missing or malformed. The message names the setting."""


def variable(name: str) -> str:
    """The environment variable of the setting (`Settings` field) `name`."""
    return name.upper()


def _domain_id(value: str) -> str:
    return fullmatch(DOMAIN_ID, value, "domain id")


def _project_id(value: str) -> str:
    return fullmatch(PROJECT_ID, value, "project id")


def _mapping_path(value: str) -> str:
    return validate_ssm_path(value.rstrip("/") or value)


# The checks travel with the types, so that a function given a part of the settings (`read_settings`) checks
# that part as `Settings` does.
DomainId = Annotated[str, AfterValidator(_domain_id)]
ProjectId = Annotated[str, AfterValidator(_project_id)]
MappingPath = Annotated[str, AfterValidator(_mapping_path)]
# A ceiling of the adaptive pacing, in requests per second (every HTTP attempt, retries too).
RequestRate = Annotated[float, Field(gt=0, le=1000)]


class Tuning(BaseModel):
    """Optional knobs with safe defaults: concurrency, per-service request rates, the fail-safe."""

    model_config = SETTINGS_MODEL

    # Share of a source's assets an inferred deletion may remove before the fail-safe stops it.
    mass_delete_share: Annotated[float, Field(gt=0, le=1)] = Field(
        default=0.5,
        description="The share of a registry's assets (or a topic's edges) that deletions inferred from a "
        'listing may remove in one run; above it they are held back and reported (`"allowMassDelete": true` '
        "lifts it for one run).",
    )
    # Parallel workers for per-schema work (reads and DataZone writes).
    max_concurrency: Annotated[int, Field(ge=1, le=64)] = Field(
        default=8, description="Parallel workers for per-item work (reads and DataZone writes)."
    )
    # Ceilings of the adaptive pacing (aws/pacing.py): each operation starts below its quota
    # (kafka_lineage.model.quotas) and adapts to what the account leaves, never above these.
    datazone_rps: RequestRate = Field(
        default=20.0,
        description="Ceiling, in requests per second (every HTTP attempt, retries too), of each DataZone "
        "operation's pace: CreateAsset, CreateListingChangeSet, Search, PostLineageEvent... are paced apart, "
        "each at its own quota (20 TPS for most, as 'Quotas for Amazon DataZone' documents; an operation "
        "quoted lower keeps its proportion of this). Each pace starts below it and adapts to what the "
        "account's other users leave.",
    )
    glue_rps: RequestRate = Field(
        default=20.0,
        description="Ceiling, in requests per second, of each Glue operation's pace (Schema Registry and "
        "Data Catalog reads), per source account: AWS publishes no rate for them. Each pace starts below it "
        "and adapts to throttling.",
    )
    ssm_write_rps: RequestRate = Field(
        default=10.0,
        description="Ceiling, in requests per second, of the state's SSM writes (PutParameter and "
        "DeleteParameter(s), one pace for all). AWS publishes no write rate of their own: PutParameter "
        "counts against the account's Parameter Store throughput (40 TPS by default, shared with the "
        "reads and with everything else in the account), so the writes stay at a quarter of it. The reads "
        "keep their documented 40 TPS.",
    )
    # Stop starting new work this many seconds before the invocation's deadline (checkpointing).
    deadline_margin_seconds: Annotated[float, Field(ge=0, le=600)] = Field(
        default=60.0,
        description="No new work starts this many seconds before the invocation's deadline; the run returns "
        '`"incomplete": true` and a follow-up invocation continues. The function timeouts must be at least '
        "this + 30.",
    )


class Settings(BaseModel):
    """Everything the functions read when they start: one field per setting (see the module's docstring)."""

    model_config = SETTINGS_MODEL

    domain_id: DomainId = Field(description=f"The DataZone domain id, `dzd_...` (`{DOMAIN_ID.pattern}`).")
    project_id: ProjectId = Field(
        description="The DataZone project that owns the form types, the asset type and the assets "
        f"(`{PROJECT_ID.pattern}`)."
    )
    mapping_path: MappingPath = Field(
        default=DEFAULT_MAPPING_PATH,
        validation_alias=AliasChoices("mappingPath", *DEPRECATED_KEYS),
        description="The SSM path prefix under which every parameter the stack and the functions read or "
        "write lies (the state root); rejected when too long or too deep for SSM's name limits, or when a "
        "level starts with `aws` or `ssm`. cdk.json's old spelling `state_root` is accepted until the next "
        "release (deprecated).",
    )
    sources: tuple[Source, ...] = Field(
        description="One entry per mirrored registry; at least one, and a registry at most once per account."
    )
    asset_type_name: str = Field(
        default=DEFAULT_ASSET_TYPE_NAME,
        max_length=ASSET_TYPE_NAME_MAX,
        description="The DataZone asset type the assets are created with; at most 128 characters, the "
        "longest value a DataZone Search filter takes.",
    )
    tuning: Tuning = Field(
        default=Tuning(),
        description="Concurrency, per-service request rates, the fail-safe and the deadline margin.",
    )
    drift_downstream_depth: Annotated[int, Field(ge=0, le=MAX_DRIFT_DOWNSTREAM_DEPTH, strict=True)] = Field(
        default=DEFAULT_DRIFT_DOWNSTREAM_DEPTH,
        description="How many data steps downstream of a drift-impacted table the lineage function walks "
        "DataZone's lineage graph (GetLineageNode, at most 200 nodes a table; job runs count with the step "
        "they are on); 0: no walk.",
    )
    asset_forms: governance.AssetForms = Field(
        default=(),
        description="Extra metadata forms every topic asset carries, for domains whose rules require them "
        "before publishing: `[{formName, typeIdentifier, typeRevision?, content}]`, `content` with "
        "`{topic}`, `{registryName}`, `{schemaArn}`; DataZone checks it against the form type's model. At "
        "synth, a form name of the asset type's own forms is refused.",
    )
    glossary_terms: governance.GlossaryTerms = Field(
        default=(),
        description="Glossary term ids attached to every topic asset (at most 20), for domains whose rules "
        "require terms before publishing.",
    )
    data_products: DataProducts = Field(
        default=(),
        description="DataZone data products that group topic assets, kept by schema-sync: "
        "`[{name, description?, include, exclude?, glossaryTerms?}]`. Each product's items are exactly the "
        "topic assets whose topics match; it is created, revised when that set changes, published, and "
        "deleted once no topic matches (held while a subscription to it is approved).",
    )

    lineage_targets: LineageTargets = Field(
        default=("datazone",),
        description='Where lineage-emission posts its lineage, any of `"datazone"` (DataZone\'s lineage '
        "graph) and `\"glue\"` (the Glue Data Catalog's lineage graph, PostLineageEvent, in Glue's own "
        "dataset identity, into the graph of the account that holds the edge's table (through the "
        "source's role for another account) or, for an edge without a Glue table, the account of the "
        "topic's cluster); not none. Each target keeps its own emission state: a target added later "
        "receives every current edge once; a target removed is no longer posted to, and its graph and "
        "its state are left as they are.",
    )

    @field_validator("sources")
    @classmethod
    def _unique_registries(cls, value: tuple[Source, ...]) -> tuple[Source, ...]:
        if not value:
            raise ValueError("at least one source is required")
        # Two sources may name one registry when they are in different accounts (their keys differ); the same
        # registry twice in one account would mirror the same schemas twice.
        names = [source.key for source in value]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"registryName listed more than once for the same account: {duplicates}")
        return value

    @property
    def glue_lineage(self) -> bool:
        """Whether the Glue Data Catalog's lineage graph is a target too."""
        return GLUE in self.lineage_targets

    @property
    def datazone_lineage(self) -> bool:
        """Whether DataZone's lineage graph is a target (the default)."""
        return DATAZONE in self.lineage_targets

    def source(self, key: str) -> Source | None:
        """The source of this key (`Source.key`: the registry name, or `<account>:<registry name>`)."""
        return next((s for s in self.sources if s.key == key), None)

    def source_key(self, account: str, registry_name: str) -> str:
        """The key of the source that reads `registry_name` in `account` (from a schema ARN or an event's
        `account`): the source with a role in that account, else the registry name (read with the functions'
        own role). A source account's registry that no source names gets a key no source has, so the request
        is reported as not configured instead of reading a registry of that name in another account."""
        role_accounts = set()
        for source in self.sources:
            if source.role_arn:
                if source.role_account == account and source.registry_name == registry_name:
                    return source.key
                role_accounts.add(source.role_account)
        return f"{account}:{registry_name}" if account in role_accounts else registry_name

    def to_environment(self) -> dict[str, str]:
        """The Lambda environment that `from_environment` reads back (the stack writes it): each setting that
        is required or not at its default, under its variable. Both sides share the defaults, so leaving
        them out keeps room under Lambda's 4 KB."""
        dumped = self.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        return {
            variable(name): _encode(field, dumped[field.alias])
            for name, field in type(self).model_fields.items()
            if field.alias in dumped
        }

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Settings:
        """Read and validate the settings; raise ConfigError naming the variable at fault. An empty
        variable counts as unset."""
        return _read(cls, environ)


def read_settings(environ: Mapping[str, str], names: Iterable[str]) -> dict[str, Any]:
    """Only the settings `names`, for a function given a part of the environment: read and checked as
    `Settings` reads and checks them (the same variables, defaults and messages)."""
    fields = Settings.model_fields
    definitions: dict[str, Any] = {name: (fields[name].annotation, fields[name]) for name in names}
    part = create_model("SettingsPart", __config__=SETTINGS_MODEL, **definitions)
    values = _read(part, environ)
    return {name: getattr(values, name) for name in part.model_fields}


def _read(model: type[Model], environ: Mapping[str, str]) -> Model:
    fields = model.model_fields
    missing = [variable(name) for name, field in fields.items() if field.is_required()]
    missing = [name for name in missing if not environ.get(name)]
    if missing:
        raise ConfigError(f"missing required setting(s): {', '.join(missing)}")
    raw = {
        name: _decode(field, variable(name), environ[variable(name)])
        for name, field in fields.items()
        if environ.get(variable(name))
    }
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(describe_environment_error(error)) from error


def environment_variables() -> dict[str, str]:
    """Each setting's environment variable, by `Settings` field (what `to_environment` writes)."""
    return {name: variable(name) for name in Settings.model_fields}


def _is_text(field: FieldInfo) -> bool:
    return field.annotation is str


def _encode(field: FieldInfo, value: Any) -> str:
    if _is_text(field):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _decode(field: FieldInfo, name: str, text: str) -> Any:
    if _is_text(field):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"invalid settings: {name}: not valid JSON ({error})") from error


def describe_environment_error(error: ValidationError) -> str:
    """pydantic errors as `VARIABLE[path]: message`, naming the environment variable."""

    def name(location: Location, position: int) -> str:
        part = str(location[position])
        return variable(part) if position == 0 else part

    return "invalid settings: " + describe(error, where="settings", name=name, model=Settings)
