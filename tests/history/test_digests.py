"""Argument digests (docs/api.md, "Digests"): ``sha256:`` + the hex SHA-256 of the RFC 8785 canonical JSON, checked
against the RFC's own test vectors and our values, on every ClientAction the API answers, and filled in by migration
0017 for the actions stored before."""

import hashlib
import json
import struct

import pytest
from django.utils import timezone

from historyhub.history import digests
from historyhub.history.models import ClientAction
from tests.support.migrations import latest, migrate


def sha(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# RFC 8785, appendix B: IEEE 754 doubles (as hex bits) and how JCS writes them (ECMAScript's Number.toString).
NUMBERS = [
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


@pytest.mark.parametrize("bits, written", NUMBERS)
def test_numbers_are_written_as_rfc_8785_appendix_b_writes_them(bits, written):
    number = struct.unpack(">d", bytes.fromhex(bits))[0]

    assert digests.canonical({"n": number}) == f'{{"n":{written}}}'.encode()
    assert digests.of({"n": number}) == sha(f'{{"n":{written}}}')


def test_the_rfc_8785_section_3_2_2_example():
    parsed = json.loads(
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )

    assert digests.canonical(parsed).decode("utf-8") == expected
    assert digests.of(parsed) == sha(expected)


def test_the_rfc_8785_section_3_2_3_sorting_example():
    parsed = json.loads(
        '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",'
        ' "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",'
        ' "\\u00f6": "Latin Small Letter O With Diaeresis"}'
    )

    order = list(json.loads(digests.canonical(parsed)))

    # UTF-16 code units, not code points: the emoji's surrogates (D83D…) sort before U+FB33.
    assert order == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_key_order_white_space_and_number_forms_do_not_change_the_digest():
    one = json.loads('{"amount": 25, "order": {"id": 1234, "lines": [1, 2.50]}, "note": "caf\\u00e9"}')
    other = json.loads('{ "note" : "café", "order": {"lines": [1.0, 2.5], "id": 1234e0}, "amount": 25.0 }')

    assert (
        digests.of(one) == digests.of(other) == sha('{"amount":25,"note":"café","order":{"id":1234,"lines":[1,2.5]}}')
    )


def test_different_values_have_different_digests():
    assert digests.of({"amount": 25}) != digests.of({"amount": 26})
    assert digests.of({"amount": 25}) != digests.of({"amount": "25"})
    assert digests.of({}) == sha("{}")


def test_unicode_is_written_as_utf_8_and_only_control_characters_are_escaped():
    value = {"name": "Zoë 😀 \u2028 \t \x7f \u00e9"}

    assert digests.canonical(value) == '{"name":"Zoë 😀 \u2028 \\t \x7f é"}'.encode()


def test_integers_beyond_a_double_are_digested_as_the_double_a_javascript_client_reads():
    assert digests.of({"id": 2**60}) == sha('{"id":1152921504606847000}')
    assert digests.of({"id": 2**53 - 1}) == sha('{"id":9007199254740991}')


def test_what_jcs_cannot_write_has_no_digest():
    assert digests.of({"text": "\ud800"}) is None
    assert digests.of({"n": 10**400}) is None


# On every ClientAction ----------------------------------------------------------------------


def test_an_opened_action_carries_the_digest_of_its_arguments_and_no_approved_one(api, session_id):
    opened = api.post(
        f"sessions/{session_id}/client-actions",
        {"callId": "c1", "name": "issue_refund", "arguments": {"order": 1234, "amount": 25.0, "note": "ü"}},
    ).json()

    assert opened["argumentsDigest"] == sha('{"amount":25,"note":"ü","order":1234}')
    assert opened["approvedArgumentsDigest"] is None
    assert opened["executedAt"] is None


def test_approved_unchanged_the_digests_are_equal_and_edited_they_differ(api, decide_api, session_id):
    for call_id in ("same", "edited"):
        api.post(f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "refund", "arguments": {"a": 1}})
    base = f"sessions/{session_id}/client-actions"

    same = decide_api.post(f"{base}/same/decision", {"decision": "approve"}).json()
    edited = decide_api.post(f"{base}/edited/decision", {"decision": "approve", "arguments": {"a": 2.0}}).json()

    assert same["approvedArgumentsDigest"] == same["argumentsDigest"] == sha('{"a":1}')
    assert (edited["argumentsDigest"], edited["approvedArgumentsDigest"]) == (sha('{"a":1}'), sha('{"a":2}'))
    listed = {action["callId"]: action for action in api.get("client-actions").json()["items"]}
    assert listed["edited"]["approvedArgumentsDigest"] == sha('{"a":2}')


def test_a_rejected_action_has_no_approved_digest(api, decide_api, session_id):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "refund", "arguments": {"a": 1}})

    rejected = decide_api.post(f"sessions/{session_id}/client-actions/c1/decision", {"decision": "reject"}).json()

    assert (rejected["argumentsDigest"], rejected["approvedArgumentsDigest"]) == (sha('{"a":1}'), None)


@pytest.mark.django_db(transaction=True)
def test_migration_0017_digests_the_actions_stored_before():
    old = migrate([("history", "0016_reported_and_imported_actions")])
    now = timezone.now()
    session = old.get_model("history", "Session").objects.create(
        id="m-1", session_id="m-1", agent="a", project_id="default", created_at=now, updated_at=now
    )
    OldAction = old.get_model("history", "ClientAction")
    OldAction.objects.create(session=session, call_id="c1", name="send", arguments_json='{"to":"ana"}', created_at=now)
    OldAction.objects.create(
        session=session,
        call_id="c2",
        name="send",
        arguments_json='{"to":"ana","cc":1.0}',
        approved_arguments_json='{"to":"bo"}',
        status="approved",
        created_at=now,
    )

    migrate(latest())

    waiting, approved = ClientAction.objects.order_by("call_id")
    assert (waiting.arguments_digest, waiting.approved_arguments_digest) == (sha('{"to":"ana"}'), None)
    assert approved.arguments_digest == sha('{"cc":1,"to":"ana"}')
    assert approved.approved_arguments_digest == sha('{"to":"bo"}')
