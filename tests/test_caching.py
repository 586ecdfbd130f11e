"""Pages and API answers carry conversations: no browser or proxy may keep them (Cache-Control: no-store)."""

from django.test import Client


def cache_control(response):
    return {part.strip() for part in response.get("Cache-Control", "").split(",")}


def test_an_api_answer_may_not_be_stored(api, session_id):
    response = api.get(f"sessions/{session_id}/history")

    assert response.status_code == 200
    assert {"no-store", "private"} <= cache_control(response)


def test_an_api_error_may_not_be_stored_either(anonymous):
    assert "no-store" in cache_control(anonymous.get("sessions"))


def test_a_dashboard_page_may_not_be_stored(viewer_client, session_id):
    for url in ("/p/default/", f"/p/default/sessions/{session_id}/", "/p/default/approvals/"):
        response = viewer_client.get(url)
        assert response.status_code == 200, url
        assert {"no-store", "private"} <= cache_control(response), url


def test_the_login_page_may_not_be_stored(db):
    assert "no-store" in cache_control(Client().get("/accounts/login/"))
