import re

import pytest

from historyhub.lib import validation
from historyhub.lib.errors import InvalidInput, PayloadTooLarge

PAGINATION_MESSAGE = "Pagination requires page >= 1 and pageSize between 1 and 100."


@pytest.mark.parametrize(
    "session_id",
    [
        "a",
        "Z",
        "7",
        "ses_01K6ABCDEF",
        "tenant.42:user@example.com",
        "a-b_c.d:e@f",
        "s" * 200,
    ],
)
def test_session_ids_of_the_allowed_characters_are_accepted(session_id):
    assert validation.session_id(session_id) == session_id


@pytest.mark.parametrize(
    "session_id",
    [
        "",
        "s" * 201,
        "_leading",
        "-leading",
        ".leading",
        ":leading",
        "@leading",
        "with space",
        "slash/",
        "back\\slash",
        "question?",
        "hash#",
        "percent%",
        "ümlaut",
        "emoji👍",
        "tab\t",
        "line\n",
        "nul\u0000",
        None,
        42,
        ["ses_1"],
    ],
)
def test_other_session_ids_are_invalid_input(session_id):
    with pytest.raises(InvalidInput) as error:
        validation.session_id(session_id)

    assert error.value.code == "invalid_input"
    assert "sessionId" in error.value.message


def test_the_session_id_error_names_the_field_it_was_given():
    with pytest.raises(InvalidInput) as error:
        validation.session_id("-x", field="parentSessionId")

    assert error.value.message.startswith("parentSessionId ")


def test_generated_session_ids_are_ulids_that_are_valid_session_ids():
    generated = {validation.new_session_id() for _ in range(50)}

    assert len(generated) == 50
    for session_id in generated:
        assert re.fullmatch(r"ses_[0-9A-HJKMNP-TV-Z]{26}", session_id)
        assert validation.session_id(session_id) == session_id


@pytest.mark.parametrize("value", ["x", "call_123", "x" * 200, "é👍 with spaces", "\u0001"])
def test_identifiers_are_strings_of_1_to_200_characters(value):
    assert validation.identifier(value, "callId") == value


@pytest.mark.parametrize("value", ["", "x" * 201, None, 7, ["x"], "nul\u0000", "lone\ud800"])
def test_other_identifiers_are_invalid_input_naming_the_field(value):
    with pytest.raises(InvalidInput) as error:
        validation.identifier(value, "operationId")

    assert error.value.message.startswith("operationId ")


def test_items_come_back_with_their_stored_text():
    checked = validation.items([{"id": "a", "n": 1}, {"é": "👍"}])

    assert checked == [({"id": "a", "n": 1}, '{"id":"a","n":1}'), ({"é": "👍"}, '{"é":"👍"}')]


def test_items_must_be_a_list():
    with pytest.raises(InvalidInput) as error:
        validation.items({"id": "a"}, field="transaction.items")

    assert error.value.message.startswith("transaction.items ")


def test_the_first_item_that_is_not_an_object_is_reported():
    with pytest.raises(InvalidInput) as error:
        validation.items([{}, {}, 3, "four"])

    assert error.value.message == "item at index 2 is not an object"


def test_the_item_count_limit_comes_from_settings(settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 2

    assert len(validation.items([{}, {}])) == 2
    with pytest.raises(PayloadTooLarge):
        validation.items([{}, {}, {}])


def test_the_item_count_limit_is_checked_before_the_items(settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 2

    with pytest.raises(PayloadTooLarge):
        validation.items(["not an object", {}, {}])


def test_the_item_size_limit_comes_from_settings(settings):
    settings.HISTORYHUB_MAX_ITEM_BYTES = len('{"t":"abc"}')

    assert validation.items([{"t": "abc"}])
    with pytest.raises(PayloadTooLarge) as error:
        validation.items([{"t": "abc"}, {"t": "abcd"}])

    assert error.value.message.startswith("item at index 1 ")


@pytest.mark.parametrize(
    "page, page_size, expected",
    [
        (None, None, (1, 50)),
        ("", "", (1, 50)),
        (1, 1, (1, 1)),
        (3, 100, (3, 100)),
        ("7", "25", (7, 25)),
        (" 2 ", " 10 ", (2, 10)),
        (5000, 100, (5000, 100)),
    ],
)
def test_pagination_accepts_pages_from_1_and_sizes_from_1_to_100(page, page_size, expected):
    assert validation.pagination(page, page_size) == expected


def test_pagination_uses_the_default_size_given():
    assert validation.pagination(None, None, default_size=25) == (1, 25)


@pytest.mark.parametrize(
    "page, page_size",
    [
        (0, 10),
        (-1, 10),
        ("0", 10),
        (1, 0),
        (1, 101),
        (1, "101"),
        ("x", 10),
        (1, "x"),
        (1.0, 10),
        (True, 10),
        (1, False),
        ("1.5", 10),
        ("-1", 10),
        ("9999999999", 10),
        ([1], 10),
    ],
)
def test_pagination_rejects_everything_else_with_one_message(page, page_size):
    with pytest.raises(InvalidInput) as error:
        validation.pagination(page, page_size)

    assert error.value.message == PAGINATION_MESSAGE


@pytest.mark.parametrize("metadata", [None, {}, {"a": "x", "b": 1, "c": 2.5, "d": True, "e": None}])
def test_metadata_of_scalar_values_is_accepted(metadata):
    assert validation.metadata(metadata) == (metadata or {})


@pytest.mark.parametrize("metadata", [[], "a=b", {"a": {}}, {"a": []}, {"a": float("nan")}])
def test_other_metadata_is_invalid_input(metadata):
    with pytest.raises(InvalidInput):
        validation.metadata(metadata)


def test_choice_accepts_allowed_values_and_null_only_when_nullable():
    assert validation.choice("paused", ["active", "paused"], "status") == "paused"
    assert validation.choice(None, ["active"], "runStatus", nullable=True) is None
    with pytest.raises(InvalidInput) as error:
        validation.choice(None, ["active", "paused"], "status")

    assert error.value.message == "status must be one of active, paused."


def test_text_rejects_what_a_text_column_cannot_hold_exactly():
    assert validation.text("émoji 👍 e\u0301 \u0001", "name") == "émoji 👍 e\u0301 \u0001"
    for value in ("a\u0000", "\ud800", "x\udfffy"):
        with pytest.raises(InvalidInput) as error:
            validation.text(value, "description")
        assert error.value.message.startswith("description ")
