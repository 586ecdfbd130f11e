"""Ids no other test uses: the server's database lives as long as the whole run, nothing is flushed."""

import uuid


def unique(prefix):
    """``prefix`` and a random suffix, a valid session, run, call or agent id."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
