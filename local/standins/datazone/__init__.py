"""A strict, stateful, in-memory stand-in for the Amazon DataZone API (moto has no DataZone).

The HTTP front door (local/standins/server.py) parses each request into the botocore input-shape dict and
calls `DataZoneBackend.handle(operation_name, params)`; the returned dict is serialized per the operation's
output shape (timestamps are datetime objects, blob payloads bytes). Errors are ServiceError.

Behaviour follows the API reference and AWS's user guides; where they are silent, the stand-in takes the
reading that is hardest on a caller, and each such reading is a switch on `readings` (see
state.READING_DEFAULTS and local/standins/readings.py).

One module per resource family, over shared state:
- `backend`: `DataZoneBackend`, the table from operation name to handler, faults, Python-side helpers
  (add_domain, add_project, inject_fault, assets, listings, settle_listings, subscribe, subscribe_listing,
  add_environment, add_data_product, grants, emitted_events, lineage_events, lineage_edges,
  native_lineage, linked_assets);
- `state`: domains, the store (lock, clock, ids, readings), clientToken idempotency, paging;
- `types`: managed form types, form types and asset types;
- `assets`: assets and their revisions; `listings`: publishing and listings;
- `search` over `index` (the lagging search index); `lineage` over `graph` (lineage nodes, native
  lineage) and `events` (OpenLineage run events);
- `subscriptions` (requests, subscriptions), `environments` (environments, subscription targets),
  `grants` (subscription grants, their status reports, the grant events put on the default bus) and
  `products` (data product listings, and what any listing lists);
- `records` and `wire`: the catalogue's records, and the values requests and responses carry.
"""

from local.standins.datazone.backend import DataZoneBackend

__all__ = ["DataZoneBackend"]
