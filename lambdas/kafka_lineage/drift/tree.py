"""The field tree behind a flat, depth-first column list.

Column names are dotted paths, but JSON property names may contain dots themselves, so a path is never split
on dots: as in `kafka_lineage.schemas.row_fields`, a column is the child of the nearest preceding container
whose path prefixes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kafka_lineage.schemas import Column
from kafka_lineage.schemas.model import is_container


@dataclass(frozen=True)
class Node:
    column: Column
    parent: str | None  # the parent column's path; None at the top level
    name: str  # the field's own name: the path without the parent's path and its dot
    position: int


class FieldTree:
    def __init__(self, columns: Iterable[Column]) -> None:
        self.nodes: dict[str, Node] = {}
        self.children: dict[str | None, dict[str, str]] = {None: {}}
        open_containers: list[str] = []
        for position, column in enumerate(columns):
            while open_containers and not column.name.startswith(open_containers[-1] + "."):
                open_containers.pop()
            parent = open_containers[-1] if open_containers else None
            name = column.name if parent is None else column.name[len(parent) + 1 :]
            self.nodes[column.name] = Node(column, parent, name, position)
            self.children.setdefault(parent, {})[name] = column.name
            if is_container(column.data_type):
                open_containers.append(column.name)
                self.children.setdefault(column.name, {})

    def ancestors(self, path: str) -> list[str]:
        found = []
        node = self.nodes.get(path)
        while node is not None and node.parent is not None:
            found.append(node.parent)
            node = self.nodes.get(node.parent)
        return found
