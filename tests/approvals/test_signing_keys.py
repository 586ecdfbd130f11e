"""RECEIPT_SIGNING_KEYS (docs/receipts.md, "Keys"): read in order, the first signing; a value that is not a key stops
the start without echoing it; required when DEBUG is off; in development one is made once in the data directory."""

import base64
import stat

import pytest

from tests.support.receipts import public_jwk
from tests.test_configuration import refused, settings_with

KEY = base64.urlsafe_b64encode(b"r" * 32).decode()
OTHER_KEY = base64.urlsafe_b64encode(b"s" * 32).decode()
FERNET_KEY = base64.urlsafe_b64encode(b"f" * 32).decode()
# 32 bytes in standard base64: "+" and "/" where url-safe base64 has "-" and "_".
STANDARD_BASE64 = base64.b64encode(b"\xfb" * 32).decode()


def test_keys_are_read_in_their_order_with_or_without_padding(monkeypatch):
    keys = settings_with(monkeypatch, RECEIPT_SIGNING_KEYS=f" {KEY}, {OTHER_KEY.rstrip('=')} ")["RECEIPT_SIGNING_KEYS"]

    assert keys == [KEY, OTHER_KEY.rstrip("=")]


@pytest.mark.parametrize(
    "keys, which",
    [
        ("change-me", "key 1 of 1"),
        (f"{KEY},{base64.urlsafe_b64encode(b'r' * 31).decode()}", "key 2 of 2"),
        (base64.urlsafe_b64encode(b"r" * 33).decode(), "key 1 of 1"),
        # Standard base64 ("+", "/"), and hex, as other generators write 32 bytes.
        (f"{KEY},{STANDARD_BASE64}", "key 2 of 2"),
        ((b"r" * 32).hex(), "key 1 of 1"),
    ],
)
def test_a_value_that_is_not_a_key_stops_the_start_and_is_never_echoed(monkeypatch, keys, which):
    message = refused(monkeypatch, RECEIPT_SIGNING_KEYS=keys)

    assert message == (
        "RECEIPT_SIGNING_KEYS holds Ed25519 private keys (32 url-safe base64-encoded bytes each), comma separated: "
        f"{which} is not one"
    )
    assert not any(key.rstrip("=") in message for key in keys.split(","))


def test_a_field_encryption_key_is_never_a_signing_key_too(monkeypatch):
    message = refused(
        monkeypatch, FIELD_ENCRYPTION_KEYS=FERNET_KEY, RECEIPT_SIGNING_KEYS=f"{KEY},{FERNET_KEY.rstrip('=')}"
    )

    assert message == "RECEIPT_SIGNING_KEYS must not reuse a key of FIELD_ENCRYPTION_KEYS: key 2 of 2 does"


def test_without_debug_keys_are_required(monkeypatch, tmp_path):
    monkeypatch.delenv("RECEIPT_SIGNING_KEYS", raising=False)

    message = refused(monkeypatch, DEBUG="False", DATA_DIR=str(tmp_path))

    assert message.startswith("RECEIPT_SIGNING_KEYS is required when DEBUG is off: make one with python -c")
    assert not (tmp_path / "receipt-signing-key").exists()


def test_in_development_without_keys_one_is_made_once_in_the_data_directory_and_kept(monkeypatch, tmp_path):
    monkeypatch.delenv("RECEIPT_SIGNING_KEYS", raising=False)
    data = tmp_path / "data"

    first = settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data))["RECEIPT_SIGNING_KEYS"]
    again = settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data))["RECEIPT_SIGNING_KEYS"]

    assert first == again and len(first) == 1
    assert public_jwk(first[0])["crv"] == "Ed25519"
    kept = data / "receipt-signing-key"
    assert kept.read_text().strip() == first[0]
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # readable by its owner only
    assert sorted(path.name for path in data.iterdir()) == ["receipt-signing-key"]  # no draft left behind
    # Keys in the environment are used instead, development or not.
    configured = settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data), RECEIPT_SIGNING_KEYS=KEY)
    assert configured["RECEIPT_SIGNING_KEYS"] == [KEY]


def test_a_damaged_development_key_stops_the_start(monkeypatch, tmp_path):
    monkeypatch.delenv("RECEIPT_SIGNING_KEYS", raising=False)
    (tmp_path / "receipt-signing-key").write_text(KEY[:20] + "\n")

    assert "key 1 of 1 is not one" in refused(monkeypatch, DEBUG="True", DATA_DIR=str(tmp_path))
