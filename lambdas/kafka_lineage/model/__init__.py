"""Plain values and constrained types that the functions and the stack share: pydantic only, no AWS client.

- `names`: Glue Schema Registry and Data Catalog names as constrained types (`GlueName`, `GlueCatalogName`);
- `errors`: one rendering of pydantic validation errors;
- `failures`: the failures adapters raise and the logic catches (AWS errors by kind, domain outcomes);
- `events`: the "Topic Asset Changed" event and the Glue CloudTrail events schema-sync reacts to;
- `table_mapping`: an explicit topic -> table mapping (the stack's settings and the resolver).
"""
