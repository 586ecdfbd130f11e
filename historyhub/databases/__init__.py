"""Which database a read goes to: the primary, or a streaming replica where staleness is harmless (docs/scaling.md).

- ``replica_reads`` marks a view whose reads may come from the replica (list pages);
  everything else, every write and every view not marked, uses the primary.
- ``router.PrimaryOrReplica`` is the Django database router that carries it out.
- ``pinning.PinAfterWriteMiddleware`` keeps a person on the primary for a short
  while after their own write, so they read what they just did.
- ``replica.status`` says whether the replica may be read (alive and not too far behind).
"""
