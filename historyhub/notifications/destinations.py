"""Where a webhook may go: only to globally routable addresses, unless the installation allows private networks
(``WEBHOOKS_ALLOW_PRIVATE_NETWORKS``), checked when the URL is saved and again on every address the name resolves
to when connecting, so a name that resolves to a private address later is refused too (docs/notifications.md,
"SSRF").

The rule is ours rather than Python's ``is_global``, which differs between versions and says yes to IPv6 forms
that carry a private IPv4 address (``::7f00:1``, ``64:ff9b::a9fe:a9fe``, ``2002:7f00:1::1``) and to site-local
``fec0::/10``: every address in a special-purpose block is refused, and an IPv6 address that embeds an IPv4 one
is judged by the address it embeds.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from historyhub.lib.errors import InvalidInput

MAX_URL_LENGTH = 2000
REFUSED_MESSAGE = "url must not point at a loopback, private or link-local address."

# IANA's special-purpose blocks that are not globally reachable (RFC 6890 and its updates), beside what
# ``is_global`` already refuses: "this network", private, shared (RFC 6598), loopback, link-local, the IETF
# protocol block (192.0.0.0/24, whole), documentation, the 6to4 relay, benchmarking, multicast, reserved, broadcast.
REFUSED_IPV4 = [
    ipaddress.ip_network(block)
    for block in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
]
# Unspecified, loopback, discard, local-use NAT64 (RFC 8215: where the IPv4 address sits depends on the local
# prefix length, and the block is local by definition), the IETF protocol block, documentation, SRv6 SIDs,
# unique-local, link-local, site-local (deprecated, still routed locally by some networks) and multicast.
REFUSED_IPV6 = [
    ipaddress.ip_network(block)
    for block in (
        "::/128",
        "::1/128",
        "100::/64",
        "64:ff9b:1::/48",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "5f00::/16",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
]
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class RefusedDestination(OSError):
    """The address a webhook would connect to is not a public one."""


def embedded_ipv4(ip):
    """The IPv4 addresses an IPv6 address carries (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4,
    Teredo's server and client); None for an IPv6 address that carries none."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in IPV4_COMPATIBLE or ip in NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    return None


def is_public(address):
    """Whether ``address`` (an IP address as text, an IPv6 one possibly with its zone) is globally routable."""
    ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = embedded_ipv4(ip)
        if embedded is not None:
            return all(is_public(inner) for inner in embedded)
        refused = REFUSED_IPV6
    else:
        refused = REFUSED_IPV4
    if any(ip in block for block in refused):
        return False
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def allowed(address):
    return settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS or is_public(address)


def check_address(host, address):
    """Raise ``RefusedDestination`` unless a connection to ``address`` (what ``host`` resolved to) is allowed:
    the check made on every address a webhook is about to connect to."""
    if not allowed(address):
        raise RefusedDestination(f"{host} resolves to {address}, which is not a public address")


def check_url(url):
    """The URL, if it is an http(s) URL whose host resolves only to allowed addresses; else 400 invalid_input."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise InvalidInput(f"url must be an http or https URL of at most {MAX_URL_LENGTH} characters.")
    if any(character.isspace() or not character.isprintable() for character in url):
        # urlsplit drops some (a newline, a tab) silently, and http.client refuses the rest on every attempt.
        raise InvalidInput("url must not contain white space or control characters.")
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
    """``socket.create_connection`` to an allowed address only: every address the name resolves to is checked
    before any is connected to, so one answer naming a private address refuses the connection."""
    host, port = address
    targets = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for *_, target in targets:
        check_address(host, target[0])
    error = None
    for family, kind, proto, _, target in targets:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(target)
            return sock
        except OSError as failure:
            sock.close()
            error = failure
    raise error or OSError(f"{host} does not resolve")
