"""Which media a session page loads as it opens, and which wait for a person (docs/dashboard.md, "Media").

An ``<img>``, ``<audio>`` or ``<video>`` loads when the page opens; from another
host, that tells the host who reads the session and when. A session page loads
at once what this server serves (a path, or its own origin), ``data:`` URLs,
and what comes from the hosts an operator allows (``MEDIA_ALLOWED_HOSTS``).
Media from any other host is a placeholder naming the host, with a link that
opens the page again with ``?media=<host>``: that answer's
Content-Security-Policy lets that host's media in, as it lets no other page's,
and the page shows them. Every policy allows ``'self'``, ``data:`` and the
allowed hosts, nothing else (``historyhub.middleware.content_security_policy``).
"""

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.urls import reverse

# A host a Content-Security-Policy can name: a DNS name or IPv4 address, lower case, with a port if not the default.
HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]{1,5})?")
DEFAULT_PORTS = {"http": 80, "https": 443}
# Browsers drop or reinterpret these in a URL ("/\evil.example" is "//evil.example"): such a URL is not loaded.
UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")
MOST_CHOSEN_HOSTS = 20


@dataclass(frozen=True)
class Media:
    src: str = ""  # what the element loads as the page opens, if anything
    host: str = ""  # else the other host it would load from, if it is a web URL
    load_url: str = ""  # the page again, with that host's media loaded


def host_of(scheme, netloc):
    """``host[:port]`` as a policy names it (the default port left out), or None when it cannot be named."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        host, port = (parts.hostname or "").encode("idna").decode("ascii"), parts.port
    except (UnicodeError, ValueError):
        return None
    host = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    return host if HOST.fullmatch(host) else None


def is_allowed(host, chosen=()):
    """Whether an operator allows the host (``*.example.com``: every subdomain), or the person chose it."""
    return host in chosen or any(
        host == allowed or (allowed.startswith("*.") and host.endswith(allowed[1:]))
        for allowed in settings.MEDIA_ALLOWED_HOSTS
    )


def page_query(request):
    """The query of the page the person is on: this request's, or, for a fragment htmx asks for, its page's."""
    if request.htmx and request.htmx.current_url:
        return parse_qs(urlsplit(request.htmx.current_url).query)
    return {name: request.GET.getlist(name) for name in request.GET}


def chosen_hosts(request):
    """The hosts whose media the person asked the page to load (``?media=``)."""
    hosts = [value for value in page_query(request).get("media", []) if HOST.fullmatch(value)]
    return list(dict.fromkeys(hosts))[:MOST_CHOSEN_HOSTS]


def source(url, request, session_id, entry_pk):
    """How a session page shows the media part at ``url``."""
    if not isinstance(url, str) or UNSAFE.search(url):
        return Media()
    if url[:5].lower() == "data:" or (url.startswith("/") and not url.startswith("//")):
        return Media(src=url)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not url.lower().startswith(f"{scheme}://"):
        return Media()
    host = host_of(scheme, parts.netloc)
    if host is None:
        return Media()
    chosen = chosen_hosts(request)
    if (scheme == request.scheme and host == host_of(request.scheme, request.get_host())) or is_allowed(host, chosen):
        return Media(src=url)
    return Media(host=host, load_url=page_loading(request, session_id, entry_pk, [*chosen, host]))


def page_loading(request, session_id, entry_pk, hosts):
    """The session page the person is on (the same epoch and chunk), loading media from ``hosts``, at the entry."""
    query = page_query(request)
    kept = [(name, value) for name in ("epoch", "until") for value in query.get(name, [])[:1]]
    address = reverse("dashboard:session", args=[request.project.pk, session_id])
    return f"{address}?{urlencode([*kept, *(('media', host) for host in hosts)])}#entry-{entry_pk}"
