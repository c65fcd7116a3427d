"""Explicit topic -> table mappings: SSM parameters below `{MAPPING_PATH}/table-mappings/` (docs/lineage.md).

Reads only; parsing and precedence (operator over stack) are decided in kafka_lineage.lineage.resolve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_lineage.aws.calls import instrument
from kafka_lineage.model.state_layout import TABLE_MAPPINGS, state_path
from kafka_lineage.model.table_mapping import MappingParameter

PAGE_SIZE = 10  # GetParametersByPath MaxResults maximum

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient


class TableMappings:
    def __init__(self, ssm: SSMClient, mapping_path: str) -> None:
        self.ssm = instrument(ssm)
        self.path = state_path(mapping_path, TABLE_MAPPINGS)

    def load(self) -> list[MappingParameter]:
        """Every parameter below the path, recursively, every page (SecureStrings are left encrypted)."""
        pages = self.ssm.get_paginator("get_parameters_by_path").paginate(
            Path=self.path, Recursive=True, PaginationConfig={"PageSize": PAGE_SIZE}
        )
        return [
            MappingParameter(
                name=str(parameter["Name"]),
                value=str(parameter.get("Value", "")),
                type=str(parameter.get("Type", "String")),
                last_modified=parameter.get("LastModifiedDate"),
            )
            for page in pages
            for parameter in page.get("Parameters", [])
        ]
