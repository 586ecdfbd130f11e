"""The IdP's discovery document and signing keys (OpenID Connect Discovery 1.0), read at first use and kept.

mozilla-django-oidc takes its endpoints from settings; here they come from ``<OIDC_ISSUER>/.well-known/
openid-configuration``, read once per process when the first person signs in or out, so a server starts even while
the IdP is away. The signing keys are read again when a token names a key not seen yet (the IdP rotated its keys).
"""

import threading
from dataclasses import dataclass
from typing import overload

import requests
from django.conf import settings
from django.core.exceptions import SuspiciousOperation


class DiscoveryFailed(Exception):
    """The IdP's discovery document or keys could not be read, or do not describe the configured issuer."""


@dataclass(frozen=True)
class Provider:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str | None
    end_session_endpoint: str | None
    signing_algorithms: tuple[str, ...]


# Asymmetric algorithms only: an ID token signed with the client secret (HS*) or not at all ("none") is refused.
ALLOWED_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")

_lock = threading.Lock()
_provider: dict[str, Provider] = {}
_keys: dict[str, list[dict[str, object]]] = {}


def get(url: str) -> dict[str, object]:
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as error:
        raise DiscoveryFailed(f"{url}: {error}") from None
    if not isinstance(document, dict):
        raise DiscoveryFailed(f"{url} is not a JSON object")
    return document


def provider() -> Provider:
    """The configured IdP, read from its discovery document the first time it is needed."""
    issuer = settings.OIDC_ISSUER
    with _lock:
        if issuer not in _provider:
            _provider[issuer] = read(issuer)
        return _provider[issuer]


def read(issuer: str) -> Provider:
    document = get(f"{issuer}/.well-known/openid-configuration")
    # The document must name the issuer it was fetched for (Discovery 1.0, section 4.3): tokens are checked against it.
    if document.get("issuer") != issuer:
        raise DiscoveryFailed(f"the discovery document names the issuer {document.get('issuer')!r}, not {issuer!r}")
    advertised = document.get("id_token_signing_alg_values_supported") or ["RS256"]
    algorithms = tuple(
        algorithm for algorithm in ALLOWED_ALGORITHMS if isinstance(advertised, list) and algorithm in advertised
    )
    if not algorithms:
        raise DiscoveryFailed(f"the IdP signs ID tokens with none of {', '.join(ALLOWED_ALGORITHMS)}")
    return Provider(
        issuer=issuer,
        authorization_endpoint=endpoint(document, "authorization_endpoint"),
        token_endpoint=endpoint(document, "token_endpoint"),
        jwks_uri=endpoint(document, "jwks_uri"),
        userinfo_endpoint=endpoint(document, "userinfo_endpoint", required=False),
        end_session_endpoint=endpoint(document, "end_session_endpoint", required=False),
        signing_algorithms=algorithms,
    )


@overload
def endpoint(document: dict[str, object], name: str) -> str: ...
@overload
def endpoint(document: dict[str, object], name: str, *, required: bool) -> str | None: ...
def endpoint(document: dict[str, object], name: str, *, required: bool = True) -> str | None:
    value = document.get(name)
    if isinstance(value, str) and value.startswith(("https://", "http://")):
        return value
    if required or value is not None:
        raise DiscoveryFailed(f"the discovery document has no usable {name}")
    return None


def signing_key(kid: str | None, algorithm: str) -> dict[str, object]:
    """The IdP's public key (a JWK) named ``kid``, for ``algorithm``; the keys are read again once if it is unknown."""
    jwks_uri = provider().jwks_uri
    for fresh in (False, True):
        with _lock:
            if fresh or jwks_uri not in _keys:
                keys = get(jwks_uri).get("keys")
                _keys[jwks_uri] = [key for key in keys if isinstance(key, dict)] if isinstance(keys, list) else []
            candidates = [
                key
                for key in _keys[jwks_uri]
                if key.get("use", "sig") == "sig"
                and key.get("alg", algorithm) == algorithm
                and (kid is None or key.get("kid") == kid)
            ]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise SuspiciousOperation("The ID token names no key, and the IdP has several.")
    raise SuspiciousOperation(f"The IdP has no signing key {kid!r} for {algorithm}.")


def forget() -> None:
    """Read the document and keys again at next use (tests start a new IdP; an operator changed OIDC_ISSUER)."""
    with _lock:
        _provider.clear()
        _keys.clear()
