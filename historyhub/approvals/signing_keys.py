"""The keys receipts are signed with, and the JWKS that publishes them (docs/receipts.md, "Keys").

``settings.RECEIPT_SIGNING_KEYS`` holds Ed25519 private keys, each the url-safe base64 of its 32-byte seed (the
settings check them at start-up, and make one in the data directory in development). The first signs; every one
is published, so a receipt signed before a rotation still verifies. A key's ``kid`` is its RFC 7638 thumbprint:
it follows from the public key alone, so it is the same on every server and after every restart, and a verifier
can recompute it from the JWK it was given.
"""

import base64
from functools import cache

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from joserfc.jwk import DictKey, OKPKey

ALGORITHM = "EdDSA"


@cache
def keys() -> tuple[OKPKey, ...]:
    """Every configured key, the signing one first, each with its ``kid``."""
    return tuple(_key(text) for text in settings.RECEIPT_SIGNING_KEYS)


def _key(text: str) -> OKPKey:
    seed = base64.urlsafe_b64decode(text.rstrip("=") + "=")
    key = OKPKey.import_key(Ed25519PrivateKey.from_private_bytes(seed), {"alg": ALGORITHM, "use": "sig"})
    key.ensure_kid()  # its RFC 7638 thumbprint
    return key


@receiver(setting_changed)
def _forget_keys(*, setting: str, **kwargs: object) -> None:
    if setting == "RECEIPT_SIGNING_KEYS":
        keys.cache_clear()


def signing_key() -> OKPKey:
    return keys()[0]


def jwks() -> dict[str, list[DictKey]]:
    """The public JWKS: every key, the retired ones too, never a private part."""
    return {"keys": [key.as_dict(private=False) for key in keys()]}
