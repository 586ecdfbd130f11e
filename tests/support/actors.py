"""Who acts in tests: API clients with a key (and an Idempotency-Key), an approver, a logged-in dashboard client,
a browser-like dashboard post and the press of a batch confirmation's button."""

import json

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from historyhub.approvals.deciders import Decider
from historyhub.lib.session_keys import DEFAULT_PROJECT
from historyhub.projects.models import Membership, Project, Role
from tests.support.html import parse

HTMX = {"HX-Request": "true"}
IDEMPOTENCY_HEADER = "Idempotency-Key"


class ApiClient:
    """Django's test client speaking JSON to /api/v1 with a bearer key."""

    def __init__(self, key=None):
        self.client = Client()
        self.key = key

    def _headers(self, extra):
        return {**({"Authorization": f"Bearer {self.key}"} if self.key else {}), **(extra or {})}

    def request(self, method, path, body=None, raw=None, headers=None, **params):
        url = path if path.startswith("/") else f"/api/v1/{path}"
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        call = getattr(self.client, method.lower())
        if method.upper() == "GET":
            return call(url, params, headers=self._headers(headers))
        return call(url, data, content_type="application/json", headers=self._headers(headers))

    def get(self, path, **params):
        return self.request("GET", path, **params)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request("PATCH", path, body, **kwargs)

    def delete(self, path, body=None, **kwargs):
        return self.request("DELETE", path, body, **kwargs)


class KeyedApiClient(ApiClient):
    """An ApiClient sending ``Idempotency-Key: <idempotency_key>`` on every request."""

    def __init__(self, key, idempotency_key, **client_options):
        super().__init__(key)
        self.idempotency_key = idempotency_key
        if client_options:
            self.client = type(self.client)(**client_options)

    def _headers(self, extra):
        return super()._headers({IDEMPOTENCY_HEADER: self.idempotency_key, **(extra or {})})


def make_member(username, role, project=DEFAULT_PROJECT, password=None):
    """A person with ``role`` in ``project`` (created, with its default name, if a test flushed it)."""
    user = User.objects.create_user(username, password=password or f"{username}-password-1")
    Project.objects.get_or_create(id=project, defaults={"name": project.capitalize()})
    Membership.objects.create(user=user, project_id=project, role=role)
    return user


def make_approver(username="owner", password="owner-password-1", project=DEFAULT_PROJECT):
    """A person who may decide client actions: an approver of the project."""
    return make_member(username, Role.APPROVER, project, password)


def logged_in(user):
    """A dashboard client logged in as ``user`` that enforces CSRF, as a browser's requests meet it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def as_approver(username="owner"):
    """A person in the Approvers group, as the domain's decisions take them."""
    user = User.objects.filter(username=username).first() or make_approver(username)
    return Decider.person(user)


def csrf_token(client, project=DEFAULT_PROJECT):
    """The CSRF cookie a page of ``project`` sets, as a browser would send it back."""
    client.get(reverse("dashboard:sessions", args=[project]))
    return client.cookies["csrftoken"].value


def post(client, url, data, htmx=False, project=DEFAULT_PROJECT):
    """A dashboard form post carrying the CSRF token (from a page of ``project``), as from htmx if ``htmx``."""
    headers = {"X-CSRFToken": csrf_token(client, project), **(HTMX if htmx else {})}
    return client.post(url, data, headers=headers)


def confirm_batch(client, answer, htmx=True):
    """Press the decision button of the batch confirmation in ``answer``, as a browser would."""
    form = parse(answer).one("section.confirmation form")
    return post(
        client,
        reverse("dashboard:decide_selected", args=["default"]),
        form.submitted(form.one("button[name=decision]")),
        htmx,
    )
