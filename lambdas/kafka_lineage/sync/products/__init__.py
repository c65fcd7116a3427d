"""Data products of topics, kept by schema-sync: desired items from the asset records, a frozen plan, its
application, the product state (docs/concepts.md, "Data products")."""
