"""Plain values and constrained types that the functions and the stack share: no AWS client.

- `names`: Glue Schema Registry and Data Catalog names as constrained types (`GlueName`, `GlueCatalogName`);
- `errors`: one rendering of pydantic validation errors;
- `failures`: the failures adapters raise and the logic catches (AWS errors by kind, domain outcomes), and
  the one reading of a failure (`describe_failure`);
- `report`: what both runs' results are made of (`Sample`, a sampled per-item list; `failure_item`);
- `events`: the "Topic Asset Changed" and "Schema Drift Detected" events, and the Glue CloudTrail events;
- `table_mapping`: an explicit topic -> table mapping (the stack's settings and the resolver) and the SSM
  parameter it is read from;
- `state_layout`: the state's SSM paths under the state root (`MAPPING_PATH`), and how entries are grouped;
- `asset_records`: schema -> asset records (what schema-sync wrote for each schema);
- `registry`, `catalog`, `tables`, `topics`, `connectors` (+ `connector_keys`), `lineage_events`,
  `downstream`: what the adapters read or write, as values the logic decides on (one module per concept);
- `digest`: one fingerprint of a description;
- `clock`: the clock schema-sync's deadlines, the pacing and the catalog's waits read (the real one; tests
  drive their own).

Everything here imports only the standard library, pydantic and its siblings: the logic (`sync`, `lineage`,
`drift`, `connectors`, `schemas`) and the adapters (`aws`) both build on it, and never on each other.
"""
