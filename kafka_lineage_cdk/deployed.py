"""A deployed kafka-lineage: its functions found from the stack's outputs, invoked through Lambda.

The KafkaLineage construct exports its function names as outputs (stacks/lineage_stack.py). In the
repository's own stack they are named as they are (`SchemaSyncFunctionName`); in a user's stack CDK gives
each the construct's path as a prefix and a hash as a suffix (`KafkaLineageSchemaSyncFunctionName3B8552DE`),
so outputs are matched by their name between the two, and a stack holding two constructs needs `--construct`
to say which one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .outcome import Outcome

OUTPUTS = (
    "SchemaSyncFunctionName",
    "LineageFunctionName",
    # only when the construct fulfils subscription grants (`access`)
    "SubscriptionGrantsFunctionName",
    "SchemaSyncRoleArn",
    "LineageRoleArn",
    "SubscriptionGrantsRoleArn",
    "FailureQueueUrl",
    "AssetTypeName",
    "AssetTypeRevision",
)
_OUTPUT_KEY = re.compile(rf"(?P<prefix>[A-Za-z0-9]*?)(?P<name>{'|'.join(OUTPUTS)})(?:[0-9A-F]{{8}})?")
_FUNCTION_OUTPUTS = {
    "schema-sync": "SchemaSyncFunctionName",
    "lineage-emission": "LineageFunctionName",
    "subscription-grants": "SubscriptionGrantsFunctionName",
}
# An invocation waits for the function to finish: up to Lambda's 15 minutes, plus the round trip. One attempt
# only: a retried Invoke would run the function again.
INVOKE_READ_TIMEOUT = 910


class NotDeployed(LookupError):
    """The stack, or kafka-lineage in it, is not there (bad input: exit code 2)."""


@dataclass(frozen=True)
class Deployment:
    stack_name: str
    construct: str  # the outputs' prefix: "" in the repository's own stack
    outputs: Mapping[str, str]  # by their name in OUTPUTS
    stack: Mapping[str, Any] = field(default_factory=dict, compare=False)  # as DescribeStacks answered

    def functions(self) -> tuple[str, ...]:
        """The functions the construct deployed: schema-sync, lineage-emission and, with `access`,
        subscription-grants."""
        return tuple(which for which, key in _FUNCTION_OUTPUTS.items() if key in self.outputs)

    def function(self, which: str) -> str:
        """The deployed name of `schema-sync`, `lineage-emission` or `subscription-grants` (NotDeployed when
        the construct has no such function: subscription-grants needs `access`)."""
        key = _FUNCTION_OUTPUTS.get(which, "LineageFunctionName")
        if key not in self.outputs:
            raise NotDeployed(
                f"stack {self.stack_name} has no {which} function (its output {key}): set "
                "kafkaLineage.access and deploy again"
            )
        return self.outputs[key]


def find_deployment(stack: Mapping[str, Any], construct: str | None = None) -> Deployment:
    """The kafka-lineage in a DescribeStacks stack, by its outputs."""
    found: dict[str, dict[str, str]] = {}
    for output in stack.get("Outputs") or []:
        match = _OUTPUT_KEY.fullmatch(output.get("OutputKey", ""))
        if match:
            found.setdefault(match["prefix"], {})[match["name"]] = output.get("OutputValue", "")
    complete = {prefix: outputs for prefix, outputs in found.items() if "SchemaSyncFunctionName" in outputs}
    name = stack.get("StackName", "?")
    if construct is not None:
        wanted = construct.replace("/", "").replace("-", "")
        if wanted not in complete:
            raise NotDeployed(
                f"stack {name} has no kafka-lineage construct {construct!r} (found: {sorted(complete)})"
            )
        return Deployment(name, wanted, complete[wanted], stack)
    if not complete:
        raise NotDeployed(
            f"stack {name} has no kafka-lineage outputs (SchemaSyncFunctionName, LineageFunctionName)"
        )
    if len(complete) > 1:
        raise NotDeployed(
            f"stack {name} holds {len(complete)} kafka-lineage constructs: name one with --construct "
            f"({', '.join(sorted(complete))})"
        )
    prefix, outputs = next(iter(complete.items()))
    return Deployment(name, prefix, outputs, stack)


def describe_stack(cloudformation: Any, stack_name: str) -> dict[str, Any]:
    from botocore.exceptions import ClientError

    try:
        stacks = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    except ClientError as error:
        # DescribeStacks answers ValidationError "Stack with id X does not exist" for an unknown stack.
        if error.response.get("Error", {}).get("Code") == "ValidationError":
            raise NotDeployed(error.response["Error"].get("Message", str(error))) from error
        raise
    stack: dict[str, Any] = stacks[0]
    return stack


def invoke(lambda_client: Any, function: str, function_name: str, payload: Mapping[str, Any]) -> Outcome:
    """Invoke synchronously (RequestResponse) and read the result, or the error that stood in for it."""
    answer = lambda_client.invoke(
        FunctionName=function_name,
        InvocationType="RequestResponse",
        Payload=json.dumps(payload).encode(),
    )
    body = answer["Payload"].read()
    try:
        value = json.loads(body) if body else None
    except json.JSONDecodeError:
        value = None
    if answer.get("FunctionError"):
        # Lambda's error payload: {"errorMessage", "errorType", "stackTrace"}; a timeout or crash has no type.
        error = value if isinstance(value, dict) else {}
        message = str(error.get("errorMessage", body.decode(errors="replace")))
        return Outcome.from_error(function, str(error.get("errorType") or answer["FunctionError"]), message)
    if not isinstance(value, dict):
        return Outcome(function, error_type="UnexpectedResult", error=body.decode(errors="replace")[:2000])
    return Outcome(function, result=value)


def status(clients: Any, stack: Mapping[str, Any], deployment: Deployment) -> dict[str, Any]:
    """The stack's state, each deployed function's (subscription-grants too, when the construct has it) and
    the failure queue's depth (its unprocessed failures)."""
    functions = []
    for which in deployment.functions():
        config = clients("lambda").get_function_configuration(FunctionName=deployment.function(which))
        functions.append(
            {
                "function": which,
                "name": config["FunctionName"],
                "state": config.get("State", ""),
                "lastUpdate": config.get("LastUpdateStatus", ""),
                "lastModified": config.get("LastModified", ""),
                "memoryMb": config.get("MemorySize"),
                "timeoutSeconds": config.get("Timeout"),
            }
        )
    failures = None
    if deployment.outputs.get("FailureQueueUrl"):
        attributes = clients("sqs").get_queue_attributes(
            QueueUrl=deployment.outputs["FailureQueueUrl"], AttributeNames=["ApproximateNumberOfMessages"]
        )["Attributes"]
        failures = int(attributes.get("ApproximateNumberOfMessages", 0))
    return {
        "stack": {
            "name": stack.get("StackName"),
            "status": stack.get("StackStatus"),
            "lastUpdated": str(stack.get("LastUpdatedTime") or stack.get("CreationTime") or ""),
            "construct": deployment.construct,
        },
        "functions": functions,
        "failureQueueMessages": failures,
        "outputs": dict(deployment.outputs),
    }
