"""The failures the logic tells apart, as plain exceptions: the adapters in `kafka_lineage.aws` raise them,
and `sync/`, `lineage/` and the handlers catch them without importing botocore.

Two kinds:
- `AwsError` and its subclasses: an AWS call refused, by kind rather than by service-specific error code
  (the codes are mapped to these kinds once, by the call layer's hooks in `kafka_lineage.aws.calls`, which
  raise them from every client; `.code` keeps the service's code for the few places that need one);
- domain outcomes an adapter reports (a registry that does not exist, an asset met again, a lease lost).
"""

from __future__ import annotations


class AwsError(Exception):
    """An AWS call failed after the SDK's own retries: `Operation: Code: Message`. The base class itself is
    a code of no known kind (or an SDK failure of the HTTP exchange other than a connection or timeout)."""

    def __init__(self, operation: str, code: str, message: str) -> None:
        super().__init__(f"{operation}: {code}: {message}".strip())
        self.operation = operation
        self.code = code
        self.message = message


class NotFound(AwsError):
    """The resource named does not exist (any more)."""


class Conflict(AwsError):
    """The request conflicts with the resource's current state (exists already, changed meanwhile)."""


class Throttled(AwsError):
    """A request rate refused the call, even after the retries paced by the call layer."""


class QuotaExceeded(AwsError):
    """A service quota on an amount (assets per domain, schema versions per account, standard-tier
    parameters...) refused the call: not throttling, so never retried as such; `.quota` names the quota."""

    quota: str = "a service quota"


class AccessDenied(AwsError):
    """IAM (or a resource policy) refused the call."""


class Invalid(AwsError):
    """The service rejected the request's content (a validation error)."""


class Unavailable(AwsError):
    """The service could not be reached or failed on its side (5xx, connection, timeout; `.code` names the
    SDK's exception for the latter two, e.g. `ReadTimeoutError`)."""


def describe_failure(error: BaseException) -> str:
    """What results and logs show of a failure: `Operation: Code: Message` for an AWS error (every client is
    instrumented by kafka_lineage.aws.calls, so AWS refusals arrive typed), `Type: text` for any other."""
    if isinstance(error, AwsError):
        return str(error)
    return f"{type(error).__name__}: {error}"


# --- Domain outcomes the adapters report ---------------------------------------------------------------


class RegistryNotFound(Exception):
    """The registry does not exist (never a reason to delete anything)."""


class SchemaNotFound(Exception):
    """The schema does not exist (any more)."""


class AssetConflict(Exception):
    """CreateAsset met an existing asset with the same external identifier."""

    def __init__(self, message: str, asset_id: str | None) -> None:
        super().__init__(message)
        self.asset_id = asset_id


class AssetGone(Exception):
    """The asset no longer exists."""


class PublishRefused(Exception):
    """DataZone refused to publish the asset: a domain rule (metadata form or glossary term enforcement for
    CREATE_LISTING_CHANGE_SET) is not met. The asset stays created and unpublished. `rules` names the rules
    that refused it, as far as they could be told; `message` is DataZone's."""

    def __init__(self, message: str, rules: tuple[str, ...] = ()) -> None:
        super().__init__(f"{publish_refusal(rules)}: {message}")
        self.message = message
        self.rules = rules


def publish_refusal(rules: tuple[str, ...]) -> str:
    """How a refused publish is named: by the rules that refused it, as far as they could be told."""
    return f"publish refused by rule(s) {', '.join(rules)}" if rules else "publish refused"


class ListingBusy(Exception):
    """A listing change did not take effect within the wait; the next run retries."""


class LeaseBusy(RuntimeError):
    """`acquire()` waited, and another live invocation still holds the lease."""


class LeaseLost(RuntimeError):
    """A newer generation exists: another invocation holds the state now. Stop writing it."""


class SourceRoleUnavailable(Exception):
    """The source's role could not be assumed: every call about that source fails with this."""


class NoBootstrapBrokers(Exception):
    """The cluster reports no bootstrap broker string we can use."""


class EventRejected(RuntimeError):
    """PutEvents answered, but did not accept the entry."""
