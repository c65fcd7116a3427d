"""AWS clients that can only read: what `kafka-lineage doctor` hands its checks.

Two locks, so that no code path of a check (a method, a paginator, a waiter, botocore's own
`_make_api_call`) can write:
- the client's `provide-client-params` event, the first thing botocore emits for every API call (before
  parameter validation, before the Stubber's hooks and before anything is sent), refuses each operation whose
  name does not start with Get, List, Describe or Search;
- the wrapper hides the client's other operation methods: `client.create_project` raises at once.
The prefixes are AWS's naming convention for operations that change nothing (the services' API references);
the operations the checks call are all of them (docs/cli.md, doctor).
"""

from __future__ import annotations

from typing import Any

READ_PREFIXES = ("Get", "List", "Describe", "Search")
_HOOK_ID = "kafka-lineage-doctor-read-only"


class WriteRefused(Exception):
    """A check tried an operation that is not a read. A bug in the check, never an answer of AWS: it is no
    botocore error, so no check's error handling swallows it."""


def is_read(operation: str) -> bool:
    return operation.startswith(READ_PREFIXES)


class ReadOnlyClient:
    """A boto3 client whose operations are reads only; everything else (meta, exceptions, paginators) is
    the client's."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._service = client.meta.service_model.service_name
        client.meta.events.register_first("provide-client-params", self._refuse_writes, unique_id=_HOOK_ID)

    def _refuse_writes(self, model: Any, **_: Any) -> None:
        if not is_read(model.name):
            raise WriteRefused(
                f"{self._service}:{model.name} is not a read; kafka-lineage doctor writes nothing"
            )

    def __getattr__(self, name: str) -> Any:
        operation = self._client.meta.method_to_api_mapping.get(name)
        if operation is not None and not is_read(operation):
            raise WriteRefused(
                f"{self._service}:{operation} is not a read; kafka-lineage doctor writes nothing"
            )
        return getattr(self._client, name)


def read_only(client: Any) -> ReadOnlyClient:
    return client if isinstance(client, ReadOnlyClient) else ReadOnlyClient(client)
