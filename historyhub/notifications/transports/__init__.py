"""One module per channel kind; each sends one delivery and says how it went (an ``Outcome``)."""

from typing import NamedTuple


class Outcome(NamedTuple):
    delivered: bool
    status: int | None = None
    excerpt: str = ""
    # Seconds the receiver asked us to wait (Retry-After on 429 and 503), else None.
    retry_after: float | None = None
    # The receiver said the channel is gone for good (410): it is disabled.
    gone: bool = False


def transport_for(kind):
    from historyhub.notifications.transports import email, slack, webhook

    return {"webhook": webhook, "email": email, "slack": slack}[kind]
