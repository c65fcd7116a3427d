"""The deployed functions on the stand-ins: each built by its own composition root and run under its role.

`DeployedFunctions(aws)` builds every function of the stack the way its module builds the handler Lambda
loads (`make_handler(Wiring())`, the custom resource's `make_handler()`), and runs it as Lambda runs it in
the deployed stack: under its own role, synthesized from the stack for the configuration the function sees
(`world.deployed_role`), every AWS call it makes authorised against that role (the stand-ins' IAM mode).

    deployed = DeployedFunctions(aws)
    result = deployed.invoke("schema-sync", {}, context)

No handler module is changed: the module's `handler` stays what Lambda loads. Follow-up invocations a function
asks for go through the stand-ins' Lambda (`aws.iam.run_pending()`), which runs the module's handler under
the function's role too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from local.standins.iam_roles import FUNCTION_NAMES

# The context is Lambda's, or any object with its attributes (tests and the local runs pass their own).
Handler = Callable[[dict[str, Any], Any], Any]


def _schema_sync(wiring: Any) -> Handler:
    from schema_sync.handler import make_handler
    from schema_sync.wiring import Wiring

    return make_handler(Wiring() if wiring is None else wiring)


def _lineage_emission(wiring: Any) -> Handler:
    from lineage_emission.handler import make_handler
    from lineage_emission.wiring import Wiring

    return make_handler(Wiring() if wiring is None else wiring)


def _subscription_grants(wiring: Any) -> Handler:
    from subscription_grants.handler import make_handler
    from subscription_grants.wiring import Wiring

    return make_handler(Wiring() if wiring is None else wiring)


def _asset_type_resource(wiring: Any) -> Handler:
    from asset_type_resource.handler import make_handler

    if wiring is not None:
        raise ValueError("asset-type-resource has no wiring: its one client is DataZone's")
    return make_handler()


# Each function's composition root, by the function's short name (its role's, FUNCTION_NAMES).
ROOTS: Mapping[str, Callable[[Any], Handler]] = {
    "schema-sync": _schema_sync,
    "lineage-emission": _lineage_emission,
    "asset-type-resource": _asset_type_resource,
    "subscription-grants": _subscription_grants,
}


def as_deployed(aws: Any, function: str, handler: Handler) -> Handler:
    """`handler` run as Lambda runs it in the deployed stack: under its own role (the stand-ins' IAM mode
    authorises each call it makes against that role's synthesized policies). The role is read per
    invocation: it follows the configuration the function is invoked with (its environment, the event)."""
    from local.world import deployed_role

    @functools.wraps(handler)
    def run(event: dict[str, Any], context: Any) -> Any:
        with aws.iam.acting_as(deployed_role(aws, function, event)):
            return handler(event, context)

    return run


class DeployedFunctions:
    """The stack's functions on the stand-ins `aws`, each built once and run under its deployed role."""

    def __init__(self, aws: Any) -> None:
        if set(ROOTS) != set(FUNCTION_NAMES.values()):  # a function added to the stack is added here
            raise RuntimeError(
                f"composition roots {sorted(ROOTS)} != functions {sorted(FUNCTION_NAMES.values())}"
            )
        self.aws = aws
        aws.iam.enable()
        self._handlers = {name: as_deployed(aws, name, root(None)) for name, root in ROOTS.items()}

    @property
    def names(self) -> list[str]:
        return sorted(self._handlers)

    def handler(self, function: str, wiring: Any = None) -> Handler:
        """The function's handler under its role: the deployed composition, or one over `wiring` (a test's
        `Wiring`, built fresh) that still runs as the deployed function does."""
        if function not in self._handlers:
            raise ValueError(f"no deployed function {function!r}; known: {self.names}")
        if wiring is None:
            return self._handlers[function]
        return as_deployed(self.aws, function, ROOTS[function](wiring))

    def invoke(self, function: str, event: dict[str, Any], context: Any) -> Any:
        """Invoke the function synchronously, as Lambda's RequestResponse would: its result, or its error."""
        return self.handler(function)(event, context)
