"""AWS error answers as typed errors: the code -> kind table of every error code the services called here
declare, the kind of an unknown code by its HTTP status, and the typed error classes, each both its kind
(`kafka_lineage.model.failures`) and the botocore exception it replaces. The call layer (aws/calls.py)
raises them from its hooks; test doubles of clients raise them too (`typed_error`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from kafka_lineage.model.failures import (
    AccessDenied,
    AwsError,
    Conflict,
    Invalid,
    NotFound,
    QuotaExceeded,
    Throttled,
    Unavailable,
)

# --- The code -> kind table ------------------------------------------------------------------------------
# Wire error codes of the error shapes in botocore's models of the services called here (glue, datazone,
# ssm, events, kafka, kafkaconnect, sts, lambda, iam), every one the operations we call declare among
# them, and the codes botocore's retry layer itself treats as throttling or transient
# (botocore/retries/standard.py).
_KINDS: dict[type[AwsError], frozenset[str]] = {
    NotFound: frozenset(
        {
            "EntityNotFoundException",  # glue
            "ResourceNotFoundException",  # glue, datazone, ssm, events, lambda
            "NotFoundException",  # kafka, kafkaconnect
            "ParameterNotFound",  # ssm
            "ParameterVersionNotFound",  # ssm
            "DoesNotExistException",  # ssm
            "UnknownTopicOrPartitionException",  # kafka
            "TargetResourceNotFound",  # glue
            "ProvisionedConcurrencyConfigNotFoundException",  # lambda
            "CodeSigningConfigNotFoundException",  # lambda
            "NoSuchEntity",  # iam
        }
    ),
    Conflict: frozenset(
        {
            "ConflictException",  # glue, datazone, ssm, kafka, kafkaconnect
            "AlreadyExistsException",  # glue, ssm
            "ParameterAlreadyExists",  # ssm: PutParameter with Overwrite=False met the name
            "ResourceAlreadyExistsException",  # events
            "ConcurrentModificationException",  # glue, events
            "VersionMismatchException",  # glue
            "IdempotentParameterMismatchException",  # glue
            "IdempotentParameterMismatch",  # ssm
            "TooManyUpdates",  # ssm: concurrent updates of a resource that takes one at a time
            "ResourceConflictException",  # lambda
            "ResourceInUseException",  # ssm, lambda
            "TopicExistsException",  # kafka
            "EntityAlreadyExists",  # iam
            "DeleteConflict",  # iam: a policy still attached, or with versions besides the default
            "ConcurrentModification",  # iam
        }
    ),
    Throttled: frozenset(
        {
            # botocore's throttling codes (ThrottledRetryableChecker)
            "Throttling",
            "ThrottlingException",
            "ThrottledException",
            "RequestThrottledException",
            "TooManyRequestsException",
            "ProvisionedThroughputExceededException",
            "TransactionInProgressException",
            "RequestLimitExceeded",
            "BandwidthLimitExceeded",
            "LimitExceededException",
            "RequestThrottled",
            "SlowDown",
            "PriorRequestNotComplete",
            # (not botocore's EC2ThrottledException: Lambda's 502 about the invoked function's network)
        }
    ),
    # Quotas on amounts, not rates: waiting does not help, so they are never retried as throttling.
    QuotaExceeded: frozenset(
        {
            "ServiceQuotaExceededException",  # datazone (402), ssm, lambda
            "ResourceNumberLimitExceededException",  # glue
            "ParameterLimitExceeded",  # ssm: the standard tier's 10,000 parameters
            "ParameterMaxVersionLimitExceeded",  # ssm
            "ResourceLimitExceededException",  # ssm
            "LimitExceeded",  # iam: policies per role, versions per policy, a role's inline size
        }
    ),
    AccessDenied: frozenset(
        {
            "AccessDeniedException",  # glue, datazone, ssm, events
            "AccessDenied",  # sts and other query services
            "UnauthorizedException",  # datazone, kafka, kafkaconnect
            "ForbiddenException",  # kafka, kafkaconnect
            "RegionDisabledException",  # sts
            "ExpiredTokenException",  # sts
            "ExpiredToken",
            "UnrecognizedClientException",
            "InvalidClientTokenId",
            "InvalidSignatureException",
            "SignatureDoesNotMatch",
            "IncompleteSignature",
            "MissingAuthenticationToken",
            "GlueEncryptionException",  # glue: the catalog's KMS key refused
        }
    ),
    Invalid: frozenset(
        {
            "ValidationException",  # glue, datazone, ssm
            "ValidationError",  # query services
            "InvalidInputException",  # glue
            "InvalidContextAssertion",  # sts AssumeRole's ProvidedContexts (botocore 1.44.18's model)
            "BadRequestException",  # kafka, kafkaconnect
            "InvalidParameterValueException",  # lambda
            "InvalidRequestContentException",  # lambda
            "RequestTooLargeException",  # lambda
            "SerializedRequestEntityTooLargeException",  # lambda
            "UnsupportedMediaTypeException",  # lambda
            "ModeNotSupportedException",  # lambda
            "NoPublishedVersionException",  # lambda
            "RecursiveInvocationException",  # lambda
            "SnapStartException",  # lambda
            "MalformedPolicyDocument",  # sts
            "PackedPolicyTooLarge",  # sts
            "InvalidEventPatternException",  # events
            "ParameterPatternMismatchException",  # ssm
            "HierarchyLevelLimitExceededException",  # ssm: a name of more than 15 levels
            "HierarchyTypeMismatchException",  # ssm
            "InvalidAllowedPatternException",  # ssm
            "UnsupportedParameterType",  # ssm
            "InvalidFilterKey",  # ssm
            "InvalidFilterOption",  # ssm
            "InvalidFilterValue",  # ssm
            "InvalidNextToken",  # ssm
            "InvalidKeyId",  # ssm
            "InvalidPolicyAttributeException",  # ssm
            "InvalidPolicyTypeException",  # ssm
            "IncompatiblePolicyException",  # ssm
            "PoliciesLimitExceededException",  # ssm
            "InvalidInput",  # iam
            "UnmodifiableEntity",  # iam: a service-linked role
            "PolicyNotAttachable",  # iam
        }
    ),
    Unavailable: frozenset(
        {
            "InternalServiceException",  # glue
            "InternalServerException",  # glue, datazone
            "InternalServerError",  # ssm
            "InternalServerErrorException",  # kafka, kafkaconnect
            "InternalException",  # events
            "InternalFailure",
            "ServiceException",  # lambda
            "ServiceUnavailable",
            "ServiceUnavailableException",  # kafka, kafkaconnect
            "OperationTimeoutException",  # glue
            "ResourceNotReadyException",  # glue, lambda
            "FederationSourceException",  # glue: the federated catalog's source failed
            "FederationSourceRetryableException",  # glue
            "EFSIOException",  # lambda
            "ServiceFailure",  # iam
            # botocore's transient codes (TransientRetryableChecker)
            "RequestTimeout",
            "RequestTimeoutException",
        }
    ),
}
KIND_OF_CODE: Mapping[str, type[AwsError]] = {code: kind for kind, codes in _KINDS.items() for code in codes}
# Which quota a QuotaExceeded names, by (code, operation), then by code (the services' documented quotas:
# "Quotas for Amazon DataZone", "AWS Glue endpoints and quotas", "AWS Systems Manager endpoints and quotas").
_QUOTA_NAMES: Mapping[tuple[str, str], str] = {
    ("ServiceQuotaExceededException", "CreateAsset"): "DataZone: data assets per domain (1 million)",
    ("ServiceQuotaExceededException", "CreateAssetType"): "DataZone: data asset types per domain (1,000)",
    ("ServiceQuotaExceededException", ""): "a service quota on an amount (see the message)",
    ("ResourceNumberLimitExceededException", "RegisterSchemaVersion"): (
        "Glue: schema versions per account and Region (10,000)"
    ),
    ("ResourceNumberLimitExceededException", "CreateSchema"): (
        "Glue: schemas or schema versions per account and Region (10,000 versions)"
    ),
    ("ResourceNumberLimitExceededException", "PostLineageEvent"): (
        "Glue: the lineage graph's events or nodes of the account and Region (no quota published; see the "
        "message)"
    ),
    ("ResourceNumberLimitExceededException", ""): "a Glue resource quota (see the message)",
    ("ParameterLimitExceeded", ""): "SSM: standard-tier parameters per account and Region (10,000)",
    ("ParameterMaxVersionLimitExceeded", ""): "SSM: versions kept per parameter (100)",
    ("ResourceLimitExceededException", ""): "an SSM resource quota (see the message)",
    ("LimitExceeded", "AttachRolePolicy"): "IAM: managed policies attached per role (10 by default)",
    ("LimitExceeded", "CreatePolicyVersion"): "IAM: versions per managed policy (5)",
    ("LimitExceeded", "PutRolePolicy"): "IAM: inline policy characters per role (10,240)",
    ("LimitExceeded", "CreatePolicy"): "IAM: customer managed policies per account",
    ("LimitExceeded", ""): "an IAM quota (see the message)",
}


def quota_named(code: str, operation: str) -> str:
    """The quota a QuotaExceeded error of `code` on `operation` reports."""
    return _QUOTA_NAMES.get((code, operation)) or _QUOTA_NAMES.get((code, ""), "a service quota")


# A code the table does not know, by the HTTP status of its answer (rest-json services model the status of
# every error): what botocore's own retry layer calls throttling and transient, and the plain 4xx kinds.
_KIND_OF_STATUS: Mapping[int, type[AwsError]] = {
    401: AccessDenied,
    403: AccessDenied,
    404: NotFound,
    408: Unavailable,
    409: Conflict,
    429: Throttled,
}


def kind_of(code: str, status: int | None = None) -> type[AwsError]:
    """The kind of an AWS error code (the table; else the answer's HTTP status; else the base AwsError)."""
    kind = KIND_OF_CODE.get(code)
    if kind is not None:
        return kind
    if status is not None:
        if status >= 500:
            return Unavailable
        return _KIND_OF_STATUS.get(status, AwsError)
    return AwsError


class _Refused(AwsError):
    """A typed error built from botocore's answer, with what a botocore `ClientError` carries (`response`,
    `operation_name`): mixed in before the kind and ClientError."""

    def __init__(self, response: dict[str, Any], operation_name: str) -> None:
        info = response.get("Error") or {}
        code = str(info.get("Code") or "Unknown")
        message = str(info.get("Message") or "")
        text = f"{operation_name}: {code}: {message}".strip()
        if isinstance(self, QuotaExceeded):
            self.quota = quota_named(code, operation_name)
            text = f"{text} (quota: {self.quota}; not a rate: not retried)"
        # Not AwsError.__init__: its super() would reach ClientError's, which takes other arguments.
        Exception.__init__(self, text)
        self.operation, self.code, self.message = operation_name, code, message
        self.response = response
        self.operation_name = operation_name
        self.kwargs: dict[str, Any] = {}  # BotoCoreError's attribute

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.response, self.operation_name))


# One class per kind, each both the kind and a botocore ClientError (built with type(): ClientError carries
# no type information, so a class statement could not subclass it under strict typing).
_SDK_CLASSES: dict[type[AwsError], type[_Refused]] = {
    kind: type(f"Sdk{kind.__name__}", (_Refused, kind, ClientError), {"__module__": __name__})
    for kind in (AwsError, NotFound, Conflict, Throttled, QuotaExceeded, AccessDenied, Invalid, Unavailable)
}
# A connection failure or timeout: Unavailable, and a BotoCoreError as botocore raised it.
_UNREACHABLE: type[_Refused] = type(
    "SdkUnreachable", (_Refused, Unavailable, BotoCoreError), {"__module__": __name__}
)
# Module attributes too, so that they pickle by name like any exception class.
globals().update({made.__name__: made for made in (*_SDK_CLASSES.values(), _UNREACHABLE)})


def typed_error(response: Mapping[str, Any], operation: str, status: int | None = None) -> AwsError:
    """The typed error for an AWS error answer (`{"Error": {"Code", "Message"}}`), as the hooks raise it;
    test doubles of clients raise these too."""
    info = response.get("Error") or {}
    kind = kind_of(str(info.get("Code") or ""), status)
    return _SDK_CLASSES[kind](dict(response), operation)
