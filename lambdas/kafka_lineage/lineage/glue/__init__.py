"""The second lineage target: the Glue Data Catalog's lineage graph (`lineageTargets` holding "glue").

Every edge lineage-emission posts to DataZone is posted to Glue too, as one OpenLineage COMPLETE run event
(the same job and column lineage), in Glue's own dataset identity (identity.py), into the graph of the
account that holds the edge's table (plan.py). Its own emission state (state.py) decides what is posted;
target.py plans and applies it beside DataZone's run, never blocking it nor blocked by it.
"""
