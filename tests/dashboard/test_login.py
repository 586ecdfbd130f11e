import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.actors import HTMX
from tests.support.html import parse

PAGES = [
    "/p/default/",
    "/p/default/sessions/refund-1/",
    "/p/default/sessions/refund-1/updates/?since=0&epoch=0&seq=0&pk=0",
    "/p/default/approvals/",
    "/p/default/approvals/count/",
]


@pytest.mark.parametrize("url", PAGES)
def test_every_page_sends_a_visitor_to_the_login_page(db, url):
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_an_htmx_request_from_a_visitor_asks_the_browser_to_load_the_login_page(db):
    response = Client().get(
        "/p/default/approvals/count/", headers={**HTMX, "HX-Current-URL": "http://testserver/approvals/"}
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=%2Fapprovals%2F"
    assert response.content == b""


def test_the_login_form_logs_a_person_in_and_returns_them_where_they_were_going(approver):
    client = Client(enforce_csrf_checks=True)
    page = client.get("/accounts/login/?next=/approvals/")
    assert page.status_code == 200
    form = parse(page).one("form:has(input[name=password])")
    assert form.field("username") and form.field("password")["type"] == "password"
    response = client.post(
        "/accounts/login/",
        {
            "username": "owner",
            "password": "owner-password-1",
            "next": "/p/default/approvals/",
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert response.status_code == 302 and response["Location"] == "/p/default/approvals/"
    assert client.get("/p/default/").status_code == 200


def test_a_wrong_password_keeps_the_person_on_the_form_with_an_error(approver):
    client = Client()
    response = client.post("/accounts/login/", {"username": "owner", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in parse(response).text()
    assert client.get("/").status_code == 302


def test_the_login_form_without_a_csrf_token_is_refused(approver):
    response = Client(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "owner", "password": "owner-password-1"}
    )
    assert response.status_code == 403


def test_logging_out_takes_a_post_and_ends_the_session(approver_client):
    token = approver_client.get("/p/default/").cookies["csrftoken"].value
    response = approver_client.post("/accounts/logout/", headers={"X-CSRFToken": token})
    assert response.status_code == 302
    assert approver_client.get("/").status_code == 302


@pytest.mark.parametrize(
    "url", ["/p/default/", "/p/default/sessions/refund-1/", "/p/default/approvals/", "/accounts/login/"]
)
def test_pages_keep_to_the_strict_content_security_policy(approver_client, refund, url):
    response = approver_client.get(url)
    page = parse(response)
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert page.all("script[src]") and not page.all("script:not([src]), style, [style]")
    handlers = [
        (element.tag, name) for element in page.all("*") for name in element.attributes if name.startswith("on")
    ]
    assert handlers == []
    # htmx would otherwise add an inline <style> for its indicators, and eval what it is given.
    config = json.loads(page.one("meta[name=htmx-config]")["content"])
    assert config["includeIndicatorStyles"] is False and config["allowEval"] is False


def test_htmx_requests_carry_the_csrf_token_from_the_body(approver_client):
    body = parse(approver_client.get(reverse("dashboard:sessions", args=["default"]))).one("body")
    headers = json.loads(body["hx-headers"])
    assert list(headers) == ["x-csrftoken"] and re.fullmatch(r"[A-Za-z0-9]{64}", headers["x-csrftoken"])
