"""From an API request to what IAM is asked: the action (SAR spelling) and the resource ARN(s) the SAR names
for it, filled from the request's parameters, plus the condition keys our policies can use.

Pure. An action that takes no resource type is asked on `*`. An action with a required resource type that
the request does not let us name raises: the gap shows instead of passing silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from local.standins import iam_sar
from local.standins.iam_policy import Request

Resources = dict[str, list[str]]  # SAR resource type -> ARNs
Builder = Callable[[str, Mapping[str, Any], "Where"], Resources]


class Where:
    """Region, account and partition of the request (the caller's account: no cross-account here), and the
    paths of the IAM roles it names (IAM authorises on a role's ARN, path included; the request names the
    role alone)."""

    def __init__(
        self,
        region: str,
        account: str,
        partition: str = "aws",
        role_paths: Mapping[str, str] | None = None,
    ) -> None:
        self.region, self.account, self.partition = region, account, partition
        self.role_paths = dict(role_paths or {})

    def arn(self, prefix: str, resource_type: str, **values: str) -> str:
        return iam_sar.arn(
            prefix,
            resource_type,
            partition=self.partition,
            Region=self.region,
            Account=self.account,
            **values,
        )


class CannotAuthorize(LookupError):
    """The request does not name a resource the action needs (or no rule builds its ARN)."""


# ---------------------------------------------------------------------------------------------- Glue


def _registry_arn(registry_id: Mapping[str, Any], where: Where) -> str:
    if registry_id.get("RegistryArn"):
        return str(registry_id["RegistryArn"])
    return where.arn(
        "glue", "registry", RegistryName=str(registry_id.get("RegistryName", "default-registry"))
    )


def _schema_arns(schema_id: Mapping[str, Any], where: Where) -> Resources:
    if schema_id.get("SchemaArn"):
        schema_arn = str(schema_id["SchemaArn"])
        # arn:aws:glue:r:a:schema/<registry>/<schema>
        head, _, path = schema_arn.partition(":schema/")
        registry = path.split("/", 1)[0]
        return {"schema": [schema_arn], "registry": [f"{head}:registry/{registry}"]}
    registry = str(schema_id.get("RegistryName", "default-registry"))
    name = str(schema_id.get("SchemaName", ""))
    return {
        "registry": [where.arn("glue", "registry", RegistryName=registry)],
        "schema": [where.arn("glue", "schema", SchemaName=f"{registry}/{name}")],
    }


def _glue_catalog(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    # A federated catalog's CatalogId is `<account>:<catalog>` (S3 Tables: s3tablescatalog/<bucket>); its
    # databases and tables have the catalog in their ARNs (Glue, "Specifying AWS Glue resource ARNs").
    account, _, federated = str(params.get("CatalogId") or where.account).partition(":")
    catalog_where = Where(where.region, account, where.partition)
    database = str(params.get("DatabaseName") or params.get("Name") or "").lower()
    if operation == "GetTable":
        database = str(params.get("DatabaseName", "")).lower()
    path = f"{federated}/{database}" if federated else database
    found: Resources = {
        "rootcatalog": [catalog_where.arn("glue", "rootcatalog")],
        "database": [catalog_where.arn("glue", "database", DatabaseName=path)],
    }
    if federated:
        found["catalog"] = [catalog_where.arn("glue", "catalog", CatalogName=federated)]
    if operation == "GetTable":
        table = str(params.get("Name", "")).lower()
        found["table"] = [catalog_where.arn("glue", "table", DatabaseName=path, TableName=table)]
    elif operation == "GetTables":
        # AWS documents GetTables as authorised on every table of the database: table/<db>/*.
        found["table"] = [catalog_where.arn("glue", "table", DatabaseName=path, TableName="*")]
    return found


def _glue(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    if operation in ("GetTable", "GetTables", "GetDatabase"):
        return _glue_catalog(operation, params, where)
    found: Resources = {}
    if isinstance(params.get("SchemaId"), Mapping):
        found.update(_schema_arns(params["SchemaId"], where))
    if isinstance(params.get("RegistryId"), Mapping):
        found["registry"] = [_registry_arn(params["RegistryId"], where)]
        if params.get("SchemaName"):  # CreateSchema names its schema beside the registry
            registry = found["registry"][0].rsplit("registry/", 1)[1]
            found["schema"] = [where.arn("glue", "schema", SchemaName=f"{registry}/{params['SchemaName']}")]
    return found


# ----------------------------------------------------------------------------------------------- SSM


def _parameter_arn(name: str, where: Where) -> str:
    if name.startswith("arn:"):
        return name
    # GetParameter accepts name:version and name:label selectors; the ARN is the parameter's.
    base = name.split(":", 1)[0]
    return where.arn("ssm", "parameter", ParameterNameWithoutLeadingSlash=base.lstrip("/"))


def _ssm(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    names: list[str] = []
    if isinstance(params.get("Name"), str):
        names.append(params["Name"])
    if isinstance(params.get("Names"), list):
        names.extend(str(n) for n in params["Names"])
    if isinstance(params.get("Path"), str):
        names.append(params["Path"])
    return {"parameter": [_parameter_arn(name, where) for name in names]} if names else {}


def _ssm_context(operation: str, params: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    if operation == "PutParameter":
        return {"ssm:Overwrite": ("true" if params.get("Overwrite") else "false",)}
    if operation == "GetParametersByPath":
        return {"ssm:Recursive": ("true" if params.get("Recursive") else "false",)}
    return {}


# -------------------------------------------------------------------------------------------- Lambda


def _function_arn(name: str, qualifier: str | None, where: Where) -> str:
    if name.startswith("arn:"):
        arn = name
    elif ":function:" in name:  # account:function:name (a partial ARN)
        account, _, rest = name.partition(":function:")
        arn = Where(where.region, account, where.partition).arn("lambda", "function", FunctionName=rest)
    else:
        arn = where.arn("lambda", "function", FunctionName=name)
    if qualifier and arn.count(":") == 6:
        arn += f":{qualifier}"
    return arn


def _lambda(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    if "FunctionName" not in params:
        return {}
    return {"function": [_function_arn(str(params["FunctionName"]), params.get("Qualifier"), where)]}


# ------------------------------------------------------------------------------------------- generic


def _iam(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    # Roles by name (their path from `where`), policies by ARN, or by name and path when created.
    if params.get("RoleName"):
        name = str(params["RoleName"])
        path = where.role_paths.get(name, "/").strip("/")
        arn = where.arn("iam", "role", RoleNameWithPath=f"{path}/{name}" if path else name)
        return {"role": [arn]}
    if params.get("PolicyArn"):
        return {"policy": [str(params["PolicyArn"])]}
    if operation == "CreatePolicy" and params.get("PolicyName"):
        path = str(params.get("Path") or "/").strip("/")
        name = str(params["PolicyName"])
        return {"policy": [where.arn("iam", "policy", PolicyNameWithPath=f"{path}/{name}" if path else name)]}
    return {}


def _arn_member(member: str, resource_type: str) -> Builder:
    def build(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
        return {resource_type: [str(params[member])]} if params.get(member) else {}

    return build


def _datazone(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    # The SAR types only the domain-level actions (GetDomain, ...): the domain, by the id in the request.
    domain = params.get("identifier") if operation == "GetDomain" else params.get("domainIdentifier")
    return {"domain": [where.arn("datazone", "domain", DomainId=str(domain))]} if domain else {}


def _kafka(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    # DescribeChannel (and the channel's other calls) is authorised on the channel, ListChannels on the
    # cluster (MSK guide, "Channel lifecycle management permissions").
    if params.get("ChannelArn"):
        return {"channel": [str(params["ChannelArn"])]}
    # DescribeTopic is authorised on the topic (SAR: `topic`, .../topic/<cluster name>/<uuid>/<topic>),
    # ListTopics on the cluster.
    if params.get("TopicName") and params.get("ClusterArn"):
        prefix, _, rest = str(params["ClusterArn"]).partition(":cluster/")
        return {"topic": [f"{prefix}:topic/{rest}/{params['TopicName']}"]}
    return {"cluster": [str(params["ClusterArn"])]} if params.get("ClusterArn") else {}


def _firehose(operation: str, params: Mapping[str, Any], where: Where) -> Resources:
    name = params.get("DeliveryStreamName")
    return (
        {"deliverystream": [where.arn("firehose", "deliverystream", DeliveryStreamName=str(name))]}
        if name
        else {}
    )


_BUILDERS: dict[str, Builder] = {
    "glue": _glue,
    "ssm": _ssm,
    "lambda": _lambda,
    "kafka": _kafka,
    "firehose": _firehose,
    "sts": _arn_member("RoleArn", "role"),
    # DescribeConnector / DeleteConnector name the connector by ARN (a URI label); ListConnectors and
    # CreateConnector take no resource type, so they never get here.
    "kafkaconnect": _arn_member("connectorArn", "connector"),
    "datazone": _datazone,
    "iam": _iam,
}


def event_bus_arn(name: str | None, where: Where) -> str:
    if name and name.startswith("arn:"):
        return name
    return where.arn("events", "event-bus", EventBusName=name or "default")


def requests_for(prefix: str, operation: str, params: Mapping[str, Any], where: Where) -> list[Request]:
    """What IAM is asked for this API request: one Request, or (PutEvents) one per event entry."""
    action_name = iam_sar.action_name(prefix, operation)
    info = iam_sar.action(action_name)
    if prefix == "events" and operation == "PutEvents":
        return [
            Request(
                info.action,
                (event_bus_arn(entry.get("EventBusName"), where),),
                {
                    "events:source": (str(entry.get("Source", "")),),
                    "events:detail-type": (str(entry.get("DetailType", "")),),
                },
            )
            for entry in params.get("Entries", [])
        ]
    context = _ssm_context(operation, params) if prefix == "ssm" else {}
    if prefix == "sts" and params.get("ExternalId") is not None:
        context = {"sts:ExternalId": (str(params["ExternalId"]),)}
    if prefix == "iam" and operation in ("AttachRolePolicy", "DetachRolePolicy") and params.get("PolicyArn"):
        # SAR: iam:PolicyARN, the policy being attached or detached (the request names the role).
        context = {"iam:PolicyARN": (str(params["PolicyArn"]),)}
    if info.takes_no_resource:
        return [Request(info.action, ("*",), context)]
    builder = _BUILDERS.get(prefix)
    if builder is None:
        raise CannotAuthorize(f"IAM mode has no rule that names the resources of {info.action}")
    built = builder(operation, params, where)
    unknown = set(built) - set(info.resource_types)
    if unknown:
        raise CannotAuthorize(f"{info.action} takes no resource of type {sorted(unknown)} per the SAR")
    missing = [t for t in info.required if t not in built]
    if missing:
        raise CannotAuthorize(
            f"{info.action} needs a {', '.join(missing)} resource and this request does not name one"
        )
    resources = tuple(arn for resource_type in info.resource_types for arn in built.get(resource_type, []))
    return [Request(info.action, resources or ("*",), context)]
