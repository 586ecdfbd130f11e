import pytest

from tests.support.items import user
from tests.support.readers import assert_error, items_via_api


def test_it_appends_items_and_reports_what_it_inserted(api, session_id):
    response = api.post(f"sessions/{session_id}/items", {"items": [user("a", id="m1"), user("b")]})

    assert response.status_code == 200
    assert response.json() == {"inserted": [True, True], "itemCount": 2}


def test_every_item_is_stored_though_its_id_is_already_stored(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("a", id="m1")]})

    response = api.post(f"sessions/{session_id}/items", {"items": [user("changed", id="m1"), user("b", id="m2")]})

    assert response.json() == {"inserted": [True, True], "itemCount": 3}
    assert items_via_api(api, session_id) == [user("a", id="m1"), user("changed", id="m1"), user("b", id="m2")]


def test_with_skip_existing_ids_an_item_whose_id_is_stored_is_not_inserted_again(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("a", id="m1")]})

    response = api.post(
        f"sessions/{session_id}/items",
        {"items": [user("changed", id="m1"), user("b", id="m2")], "skipExistingIds": True},
    )

    assert response.json() == {"inserted": [False, True], "itemCount": 2}
    assert items_via_api(api, session_id) == [user("a", id="m1"), user("b", id="m2")]


def test_with_skip_existing_ids_the_first_of_duplicate_ids_in_one_batch_wins(api, session_id):
    response = api.post(
        f"sessions/{session_id}/items",
        {"items": [user("first", id="m1"), user("second", id="m1")], "skipExistingIds": True},
    )

    assert response.json() == {"inserted": [True, False], "itemCount": 1}
    assert items_via_api(api, session_id) == [user("first", id="m1")]


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_skip_existing_ids_must_be_a_boolean(api, session_id, value):
    response = api.post(f"sessions/{session_id}/items", {"items": [user("a")], "skipExistingIds": value})

    assert_error(response, 400, "invalid_input")
    assert items_via_api(api, session_id) == []


def test_items_without_an_id_are_always_inserted(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("same")]})

    response = api.post(f"sessions/{session_id}/items", {"items": [user("same")]})

    assert response.json() == {"inserted": [True], "itemCount": 2}


def test_it_creates_the_session_with_the_agent_given(api):
    api.post("sessions/new-1/items", {"items": [user("hi")], "agent": "support"})

    assert api.get("sessions/new-1").json()["agent"] == "support"


def test_it_creates_the_session_with_the_default_agent(api):
    api.post("sessions/new-1/items", {"items": [user("hi")]})

    assert api.get("sessions/new-1").json()["agent"] == "default"


@pytest.mark.parametrize("bad", [1, "text", None, ["list"]])
def test_it_rejects_a_batch_holding_an_item_that_is_not_an_object(api, session_id, bad):
    response = api.post(f"sessions/{session_id}/items", {"items": [user("fine"), bad]})

    assert_error(response, 400, "invalid_input", "item at index 1 is not an object")
    assert items_via_api(api, session_id) == []


def test_it_rejects_items_that_are_not_a_list(api, session_id):
    response = api.post(f"sessions/{session_id}/items", {"items": {"role": "user"}})

    assert_error(response, 400, "invalid_input", "items: Input should be a valid list")


def test_it_refuses_more_items_than_the_limit(api, session_id, settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 2

    response = api.post(f"sessions/{session_id}/items", {"items": [user("1"), user("2"), user("3")]})

    assert_error(response, 413, "payload_too_large")
    assert items_via_api(api, session_id) == []


def test_it_refuses_an_item_over_the_size_limit(api, session_id, settings):
    settings.HISTORYHUB_MAX_ITEM_BYTES = 100

    response = api.post(f"sessions/{session_id}/items", {"items": [user("x" * 200)]})

    assert_error(response, 413, "payload_too_large", "item at index 0 is larger than 100 bytes serialised")


def test_it_rejects_an_invalid_session_id(api):
    assert_error(api.post("sessions/bad id/items", {"items": [user("hi")]}), 400, "invalid_input")
    assert api.get("sessions").json()["total"] == 0
