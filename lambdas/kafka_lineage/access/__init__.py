"""Access through the catalog: DataZone subscription grants on Kafka topic assets, as IAM access.

Pure logic (no AWS call; the adapters read and write): from every grant and each role's IAM state, what
each consumer role may do, the IAM writes that make it so, and each grant's outcome.

- `settings`: the `access` settings (`consumerRoles`, `consumerGroups`), validated; errors name them.
- `model`: grants, a role's IAM state, how our policies are named (recognised by name and path only).
- `arns`: cluster -> topic and group ARNs (any partition, Serverless alike); role ARN -> role name.
- `desired`: a role's access from the grants that stand; Connect, DescribeTopic + ReadData,
  DescribeGroup + AlterGroup per cluster, `glue:GetSchemaVersion` on `*`; nothing else.
- `packing`: the inline policy first, then managed policies, within IAM's limits.
- `plan`: the frozen plan of IAM writes; empty when the role is right, and empty again once applied.
- `evaluate`, `guards`: the allow-list, and a small IAM evaluator for permissions boundaries.
- `cluster_policy`: the MSK cluster policy statements for consumer accounts, merged with the others.
- `decide`: every role's plan and every grant's outcome; `reconcile`: that, and the cluster policies.
- `leftovers`: `left_behind`, the roles holding this stack's access that `consumerRoles` no longer admits,
  with how to clean them (the run reports them; the command line can call it).

Readings chosen where AWS is silent (the modules say more):
- Sizes are the minified JSON's length ("IAM does not count white space").
- Conditions are judged on `aws:SecureTransport` (true: MSK IAM access control is TLS only, Glue HTTPS
  only); a Deny whose condition cannot be judged is a warning, not a refusal; such an Allow does not count.
  Policy variables widen a Deny, void an Allow.
- A revoke is REVOKED only when each of its roles was read and written (or is gone), else REVOKE_FAILED.
- A grant refused for one of its roles gives nothing to any of them.
- Kafka topic names are `[a-zA-Z0-9._-]`, so no wildcard reaches a topic ARN; other names are refused.
- MSK's 20 KB cluster policy limit is read as 20,000 bytes.
- Guards fail grants not yet GRANTED; a GRANTED grant stays; a role the allow-list no longer names is not
  read or written (its revokes fail, `leftovers` names it); a role or cluster whose granted access alone
  no longer fits is left as it is.
- Group templates: a literal separator after each placeholder, no wildcard before it; a value holding that
  separator is refused.
- Writes are ordered so that access moving between policies is never briefly missing.
"""
