"""Argument digests computed by the client: RFC 8785's own test vectors, and the live server's argumentsDigest for
the same values sent in other key orders and number forms (docs/api.md, "Digests")."""

import hashlib
import json
import struct

import httpx2
import pytest

from historyhub_client.digests import DigestError, arguments_digest, canonical_json
from tests.support.ids import unique

# RFC 8785, section 3.2.2: the example input and its canonical form.
RFC_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_OUTPUT = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
RFC_OUTPUT += r'"string":"€$\u000f\nA' + "'" + r'B\"\\\\\"/"}'

# RFC 8785, section 3.2.3: property names sorted by their UTF-16 code units.
RFC_SORTING_INPUT = r"""{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"""
RFC_SORTED_KEYS = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]

# RFC 8785, appendix B: IEEE 754 doubles (as hex bits) and how JCS writes them.
RFC_NUMBERS = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]
# Appendix B's NaN and Infinity: not JSON, so no canonical form.
RFC_NOT_NUMBERS = ["7fffffffffffffff", "7ff0000000000000"]


def double(bits):
    return struct.unpack(">d", bytes.fromhex(bits))[0]


def test_the_rfcs_example_is_written_as_the_rfc_writes_it():
    assert canonical_json(json.loads(RFC_INPUT)) == RFC_OUTPUT.encode()
    assert arguments_digest(json.loads(RFC_INPUT)) == "sha256:" + hashlib.sha256(RFC_OUTPUT.encode()).hexdigest()


def test_property_names_are_sorted_by_utf16_code_units_as_the_rfc_sorts_them():
    written = json.loads(canonical_json(json.loads(RFC_SORTING_INPUT)))
    assert list(written) == RFC_SORTED_KEYS
    # Only control characters are escaped: U+0080 and the emoji go out as UTF-8.
    assert canonical_json({"\u0080": 1, "\U0001f600": 2}) == '{"\u0080":1,"\U0001f600":2}'.encode()


@pytest.mark.parametrize(("bits", "written"), RFC_NUMBERS)
def test_every_number_of_the_rfcs_appendix_b_is_written_as_it_says(bits, written):
    assert canonical_json(double(bits)) == written.encode()


@pytest.mark.parametrize("bits", RFC_NOT_NUMBERS)
def test_nan_and_infinity_have_no_digest(bits):
    with pytest.raises(DigestError):
        arguments_digest({"amount": double(bits)})


def test_a_lone_surrogate_has_no_digest():
    with pytest.raises(DigestError, match="canonical JSON"):
        arguments_digest({"note": "\ud800"})


def test_key_order_and_number_form_do_not_change_the_digest():
    assert arguments_digest({"b": 1, "a": [1.0, 2]}) == arguments_digest({"a": [1, 2.0], "b": 1.0})
    assert arguments_digest({"a": 1}) != arguments_digest({"a": "1"})
    # An integer beyond 2^53 is the double nearest to it, as a JavaScript client and the server read it.
    assert arguments_digest({"n": 9007199254740993}) == arguments_digest({"n": 9007199254740992.0})


# The same arguments as different JSON texts: every text of one group has one digest, on the server and here.
FORMS = {
    "order and integers": ['{"b": 1, "a": [2, 3]}', '{"a": [2.0, 3e0], "b": 1.00}', '{"a":[2,3],"b":1}'],
    "large and small": [
        '{"big": 1e21, "small": 1E-7, "zero": -0.0}',
        '{"zero": 0, "small": 0.0000001, "big": 1000000000000000000000}',
    ],
    "unicode keys, nested": [
        '{"ünïcødé": "Zoë", "€": {"nested": [1, 2.50, {"z": null, "a": true}]}, "\\ud83d\\ude00": "grin"}',
        '{"\\u20ac": {"nested": [1.0, 2.5, {"a": true, "z": null}]}, "😀": "grin", '
        '"\\u00fcn\\u00efc\\u00f8d\\u00e9": "Zo\\u00eb"}',
    ],
    "beyond 2^53": ['{"id": 9007199254740993}', '{"id": 9007199254740992}'],
    "escapes": [
        '{"text": "line\\nbreak \\u000f \\/ \\"q\\""}',
        '{"text": "line\\u000abreak \\u000F / \\u0022q\\u0022"}',
    ],
}


@pytest.mark.parametrize("group", FORMS)
def test_the_client_computes_the_servers_digest_for_every_form(group, server, key):
    session_id = unique("digests")
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    digests = set()
    with httpx2.Client(base_url=f"{server.url}/api/v1/", headers=headers) as api:
        assert api.post("sessions", json={"agent": "digests", "sessionId": session_id}).status_code == 201
        for index, text in enumerate(FORMS[group]):
            # The text as written, so the server reads the form given here, not json.dumps's.
            body = f'{{"callId": "call_{index}", "name": "check", "arguments": {text}}}'
            answer = api.post(f"sessions/{session_id}/client-actions", content=body.encode())
            assert answer.status_code == 201, answer.text
            assert answer.json()["argumentsDigest"] == arguments_digest(json.loads(text))
            digests.add(answer.json()["argumentsDigest"])
    assert len(digests) == 1
