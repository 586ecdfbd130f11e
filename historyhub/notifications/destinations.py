"""Where a webhook may go: never to loopback, private or link-local addresses unless the installation allows them
(``WEBHOOKS_ALLOW_PRIVATE_NETWORKS``), checked when the URL is saved and again on the address actually connected
to, so a name that resolves to a private address later is refused too (docs/notifications.md, "SSRF")."""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from historyhub.history.errors import InvalidInput

MAX_URL_LENGTH = 2000
REFUSED_MESSAGE = "url must not point at a loopback, private or link-local address."


class RefusedDestination(OSError):
    """The address a webhook would connect to is not a public one."""


def is_public(address):
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def allowed(address):
    return settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS or is_public(address)


def check_url(url):
    """The URL, if it is an http(s) URL whose host resolves only to allowed addresses; else 400 invalid_input."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise InvalidInput(f"url must be an http or https URL of at most {MAX_URL_LENGTH} characters.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise InvalidInput("url must be an http or https URL without credentials.")
    try:
        port = parts.port
    except ValueError:
        raise InvalidInput("url has an invalid port.") from None
    try:
        addresses = resolve(parts.hostname, port or (443 if parts.scheme == "https" else 80))
    except OSError:
        raise InvalidInput(f"url's host {parts.hostname!r} does not resolve.") from None
    if not all(allowed(address) for address in addresses):
        raise InvalidInput(REFUSED_MESSAGE)
    return url


def resolve(host, port):
    return sorted({info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def connect(address, timeout, source_address=None):
    """``socket.create_connection`` to an allowed address only: each one the name resolves to is checked."""
    host, port = address
    error = None
    for family, kind, proto, _, target in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        if not allowed(target[0]):
            error = RefusedDestination(f"{host} resolves to {target[0]}, which is not a public address")
            continue
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(target)
            return sock
        except OSError as failure:
            sock.close()
            error = failure
    raise error or OSError(f"{host} does not resolve")
