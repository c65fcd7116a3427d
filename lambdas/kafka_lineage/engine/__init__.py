"""The run engine the functions share (docs/architecture.md, "One run shape"): one deadline, one lease
policy, one worker pool, one grouped checkpoint saver, and the chunked read/apply/save pipeline.

It knows nothing of schemas, assets or lineage: each run hands it a small object that says how to inspect an
item, apply an action, what an outcome changes in the saved state and how to report it."""
