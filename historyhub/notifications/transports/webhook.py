"""Webhooks per Standard Webhooks (docs/notifications.md, "Webhooks"): a signed POST of the delivery's body.

Signed with the ``standardwebhooks`` package, the reference implementation receivers verify with. Sent
with ``http.client`` over a socket made by ``destinations.connect``, so the address actually connected to
is the one checked; ``http.client`` follows no redirect.
"""

import http.client
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from django.conf import settings
from standardwebhooks.webhooks import Webhook

from historyhub.notifications import destinations
from historyhub.notifications.transports import Outcome

EXCERPT_BYTES = 500
USER_AGENT = "HistoryHub-Webhooks/1"


def signed_headers(secrets, webhook_id, moment, body):
    """Standard Webhooks headers; with several secrets (a rotation), one signature each, space separated."""
    signatures = [Webhook(secret).sign(msg_id=webhook_id, timestamp=moment, data=body) for secret in secrets]
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": " ".join(signatures),
    }


class GuardedHTTPConnection(http.client.HTTPConnection):
    """A connection whose socket comes from ``destinations.connect``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = destinations.connect


class GuardedHTTPSConnection(http.client.HTTPSConnection):
    """The same, with TLS wrapping that socket."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = destinations.connect


def send(delivery, channel):
    body = delivery.body
    now = datetime.now(UTC)
    headers = {
        **signed_headers(channel.signing_secrets(now), delivery.webhook_id, now, body),
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }
    target = urlsplit(channel.url)
    kind = GuardedHTTPSConnection if target.scheme == "https" else GuardedHTTPConnection
    connection = kind(target.hostname, target.port, timeout=settings.WEBHOOK_TIMEOUT_SECONDS)
    path = (target.path or "/") + (f"?{target.query}" if target.query else "")
    try:
        connection.request("POST", path, body=body.encode(), headers=headers)
        response = connection.getresponse()
        excerpt = response.read(EXCERPT_BYTES).decode(errors="replace")
        status = response.status
        retry_after = retry_after_seconds(response.getheader("Retry-After")) if status in (429, 503) else None
    except destinations.RefusedDestination as refused:
        return Outcome(False, excerpt=str(refused)[:EXCERPT_BYTES])
    except (OSError, http.client.HTTPException) as error:
        return Outcome(False, excerpt=f"{type(error).__name__}: {error}"[:EXCERPT_BYTES])
    finally:
        connection.close()
    return Outcome(200 <= status < 300, status, excerpt, retry_after, gone=status == 410)


def retry_after_seconds(value):
    """Retry-After as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())
