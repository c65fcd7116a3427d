#!/usr/bin/env python3
"""Two accounts from one CDK app: kafka-lineage in the governance account, its reader in a source account.

    npx cdk deploy Governance            # first: its outputs KafkaLineageSchemaSyncRoleArn<hash> and
                                         # KafkaLineageLineageRoleArn<hash> (the roles Governance-...)
    # put those two ARNs into source.json's trustedRoleArns, then
    npx cdk deploy Source                # with credentials for the source account

The settings are the two JSON files beside this one, with the keys of the `kafkaLineage` and
`kafkaLineageSource` contexts (docs/deploy.md, "Two accounts"): governance.json names the source's cluster
and the role the functions assume there (roleArn, externalId); source.json names the roles it trusts, the
same externalId, and what they may read. Replace the example accounts, ids and ARNs. The governance stack
accepts the source account's forwarded Glue Schema Registry events on its default bus.

To grant the source cluster's topics to roles of other accounts (the governance account's included), set
`access` in governance.json, and `"grantAccess": true` with `"clusters": [<the cluster's ARN>]` in
source.json, whose trustedRoleArns then take the governance stack's SubscriptionGrantsRoleArn output too
(docs/access.md, "Consumers in other accounts", walks through two and three accounts).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from kafka_lineage_cdk import KafkaLineage, KafkaLineageSource

HERE = Path(__file__).resolve().parent
GOVERNANCE = cdk.Environment(account="111122223333", region="eu-west-1")
SOURCE = cdk.Environment(account="444455556666", region="eu-west-1")


def settings(name: str) -> dict[str, Any]:
    values: dict[str, Any] = json.loads((HERE / name).read_text())
    return values


app = cdk.App()
governance = cdk.Stack(app, "Governance", env=GOVERNANCE, description="kafka-lineage (governance account)")
KafkaLineage(governance, "KafkaLineage", config=settings("governance.json"))
source = cdk.Stack(app, "Source", env=SOURCE, description="kafka-lineage reader (source account)")
KafkaLineageSource(source, "KafkaLineageSource", config=settings("source.json"))
cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
app.synth()
