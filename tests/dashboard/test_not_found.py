"""A page that does not exist answers the dashboard's own 404 page; the API keeps its JSON error."""

from tests.support.html import parse


def test_a_missing_session_answers_a_page_that_says_so_and_leads_back(viewer_client, db):
    response = viewer_client.get("/p/default/sessions/no-such-session/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
    page = parse(response)
    assert page.text("h1") == "There is nothing here"
    assert page.link("Back to the sessions")["href"] == "/p/default/"


def test_the_api_still_answers_404_as_json(api):
    response = api.get("/api/v1/no-such-thing")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
