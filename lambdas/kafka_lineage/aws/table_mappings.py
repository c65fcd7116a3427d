"""Explicit topic -> table mappings: SSM parameters below `{MAPPING_PATH}/table-mappings/` (README: Lineage).

Reads only; parsing and precedence (operator over stack) are decided in kafka_lineage.lineage.resolve.
"""

from __future__ import annotations

from typing import Any

from kafka_lineage.model.state_layout import TABLE_MAPPINGS, state_path
from kafka_lineage.model.table_mapping import MappingParameter

PAGE_SIZE = 10  # GetParametersByPath MaxResults maximum


class TableMappings:
    def __init__(self, ssm: Any, mapping_path: str) -> None:
        self.ssm = ssm
        self.path = state_path(mapping_path, TABLE_MAPPINGS)

    def load(self) -> list[MappingParameter]:
        """Every parameter below the path, recursively, every page (SecureStrings are left encrypted)."""
        parameters: list[MappingParameter] = []
        request: dict[str, Any] = {"Path": self.path, "Recursive": True, "MaxResults": PAGE_SIZE}
        while True:
            page = self.ssm.get_parameters_by_path(**request)
            for parameter in page.get("Parameters", []):
                parameters.append(
                    MappingParameter(
                        name=str(parameter["Name"]),
                        value=str(parameter.get("Value", "")),
                        type=str(parameter.get("Type", "String")),
                        last_modified=parameter.get("LastModifiedDate"),
                    )
                )
            token = page.get("NextToken")
            if not token:
                return parameters
            request["NextToken"] = token
