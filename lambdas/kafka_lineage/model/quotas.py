"""AWS's request-rate quotas, per operation, per account and Region: the one table that the call layer
paces by (aws/pacing.py), that the sync's estimates start from, and that the local stand-ins enforce
(local/standins/quotas.py).

What AWS documents (read 2026-12):
- DataZone, Amazon DataZone User Guide, "Quotas for Amazon DataZone", table "Amazon DataZone API rate limits"
  (limits apply per AWS account per Region): CreateGlossary 5 TPS; CreateAsset, CreateAssetRevision,
  DeleteAsset, ListAssetRevisions, Search, SearchTypes, the asset-type, form-type, glossary, data-product
  and prediction calls 20 TPS each; the subscription calls (AcceptSubscriptionRequest, CancelSubscription,
  CreateSubscription…) 3 TPS each.
- SSM, "AWS Systems Manager endpoints and quotas", Parameter Store max throughput: 40 TPS by default,
  shared by GetParameter, GetParameters and GetParametersByPath (one bucket for the three).

Where AWS is silent, the readings we chose (`documented=False`; the stand-ins can switch them off):
- DataZone operations the page does not list (CreateListingChangeSet, GetAsset, GetListing, GetAssetType,
  GetFormType, the lineage calls, ListSubscriptions…): 20 TPS each, the rate the page gives nearly every API
  it lists; subscription calls the page cuts short of are 3 TPS like those it shows.
- Glue (the Schema Registry and Data Catalog reads): no request rate is published ("AWS Glue endpoints and
  quotas" lists resource counts only); 20 TPS per operation, the project's long-standing safe rate.
- SSM writes (PutParameter, DeleteParameter, DeleteParameters, LabelParameterVersion): no rate of their own
  is published. The put-parameter API reference says PutParameter counts against the Parameter Store
  throughput (40 TPS by default, which the quotas page gives to the three reads); we read it as writes
  sharing that throughput, and pace them as one quota of 10 TPS (a quarter of it), so that the run's
  reads and writes together stay inside the 40.
- Glue's PostLineageEvent (the Data Catalog's lineage graph): no quota is published ("Publishing data lineage
  programmatically" lists ThrottlingException, "the request rate exceeds the quota", without a number). Its
  own bucket, a ceiling of 10 TPS that starts at a fifth of it (2 TPS) and climbs while posts succeed: Glue
  ETL and EMR jobs of the account post to the same graph.
- Every other operation of a known service: that service's undocumented rate, per operation. Lambda's
  Invoke, EventBridge's PutEvents, STS and MSK calls are few per run and are not paced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Quota:
    """One operation's rate quota: `bucket` names the quota (operations that share one share the name),
    `per_second` its rate, `documented` whether AWS publishes it (else it is our reading)."""

    service: str
    bucket: str
    per_second: float
    documented: bool
    # Where its adaptive limiter starts, as a share of `per_second` (None: the pacing's START_SHARE).
    start_share: float | None = None


class CallRates(Protocol):
    """The pace a run's calls go at (`aws.pacing.StageRates`, over the limiters the adapters pace by): what
    the runs' deadline estimates divide by, so that they follow the rates the run measures."""

    def seconds_per(self, stage: str) -> tuple[float, float]:
        """(cautious, fastest): seconds one item of `stage` (schema-sync's "read", "write" and "save",
        lineage's "save") takes: a guess on the safe side from the rates its operations go at now (for
        estimates before anything was measured), and the least it can take, at their ceilings."""
        ...


DATAZONE_SOURCE = "Amazon DataZone User Guide, Quotas for Amazon DataZone: Amazon DataZone API rate limits"
SSM_SOURCE = "AWS General Reference, AWS Systems Manager endpoints and quotas: Parameter Store max throughput"

_DATAZONE_20 = (
    "CreateAsset",
    "CreateAssetRevision",
    "DeleteAsset",
    "ListAssetRevisions",
    "Search",
    "SearchTypes",
    "CreateAssetType",
    "DeleteAssetType",
    "CreateFormType",
    "DeleteFormType",
    "GetGlossary",
    "UpdateGlossary",
    "DeleteGlossary",
    "UpdateGlossaryTerm",
    "DeleteGlossaryTerm",
    "CreateDataProduct",
    "CreateDataProductRevision",
    "ListDataProductRevisions",
    "DeleteDataProduct",
    "AcceptPredictions",
    "RejectPredictions",
)
_DATAZONE_3 = ("AcceptSubscriptionRequest", "CancelSubscription")
# The subscription-grant calls the subscription-grants function makes. The page lists the subscription calls
# at 3 TPS without naming these; they are read as subscription calls (3 TPS each), as GetSubscriptionTarget
# and GetEnvironment are read at 3 TPS too (calls of the same subscription flow; the pessimistic reading).
# GetListing keeps the 20 TPS of the other undocumented reads.
SUBSCRIPTION_GRANT_CALLS = (
    "GetSubscriptionGrant",
    "ListSubscriptionGrants",
    "UpdateSubscriptionGrantStatus",
    "GetSubscriptionTarget",
    "GetEnvironment",
)
SSM_READS = ("GetParameter", "GetParameters", "GetParametersByPath")
SSM_WRITES = ("PutParameter", "DeleteParameter", "DeleteParameters", "LabelParameterVersion")

# Undocumented rates by service (our readings above); services absent here are not paced.
UNDOCUMENTED_PER_SECOND: dict[str, float] = {"datazone": 20.0, "glue": 20.0, "ssm": 10.0}
# The quota most of a service's paced operations have, which its TUNING rate is the ceiling of (SSM's:
# the writes', which ssm_write_rps caps; its reads keep their documented 40).
TYPICAL_PER_SECOND: dict[str, float] = {"datazone": 20.0, "glue": 20.0, "ssm": 10.0}
SUBSCRIPTION_PER_SECOND = 3.0

DOCUMENTED: dict[tuple[str, str], Quota] = {
    **{("datazone", op): Quota("datazone", op, 20.0, True) for op in _DATAZONE_20},
    ("datazone", "CreateGlossary"): Quota("datazone", "CreateGlossary", 5.0, True),
    **{("datazone", op): Quota("datazone", op, SUBSCRIPTION_PER_SECOND, True) for op in _DATAZONE_3},
    **{("ssm", op): Quota("ssm", "parameter-reads", 40.0, True) for op in SSM_READS},
}


# Operations whose rate is our reading, named one by one (the subscription-grant calls, above).
READINGS: dict[tuple[str, str], Quota] = {
    **{
        ("datazone", op): Quota("datazone", op, SUBSCRIPTION_PER_SECOND, False)
        for op in SUBSCRIPTION_GRANT_CALLS
    },
    ("glue", "PostLineageEvent"): Quota("glue", "PostLineageEvent", 10.0, False, start_share=0.2),
}


def quota_of(service: str, operation: str) -> Quota | None:
    """The operation's quota: documented, else our reading for it or its service (None: not paced)."""
    found = DOCUMENTED.get((service, operation)) or READINGS.get((service, operation))
    if found is not None:
        return found
    if service == "ssm" and operation in SSM_WRITES:
        return Quota("ssm", "parameter-writes", UNDOCUMENTED_PER_SECOND["ssm"], False)
    if service == "ssm":
        return None  # other SSM calls (DescribeParameters in tests) are not paced by us
    if service == "datazone" and "Subscription" in operation:
        return Quota(service, operation, SUBSCRIPTION_PER_SECOND, False)
    rate = UNDOCUMENTED_PER_SECOND.get(service)
    return Quota(service, operation, rate, False) if rate is not None else None
