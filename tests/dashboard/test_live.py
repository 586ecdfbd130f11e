"""The dashboard's live stream (server-sent events) over real HTTP, from the app under uvicorn."""

import http.client
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from historyhub import live
from historyhub.dashboard import stream as stream_of_page
from historyhub.history import client_actions, sessions
from historyhub.projects.models import Membership, Project, Role
from tests.support.actors import make_member
from tests.support.waiting import until

URL = reverse("dashboard:live", args=["default"])


class Stream:
    """A browser's EventSource, reduced to reading event names."""

    def __init__(self, server, cookie, query="", url=URL):
        address = urlsplit(server.url)
        self.link = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        self.link.request("GET", url + query, headers={"Cookie": f"sessionid={cookie}", "Accept": "text/event-stream"})
        self.response = self.link.getresponse()

    def events(self, count):
        """The next ``count`` event names; the retry advice and keep-alive comments are not events."""
        names = []
        while len(names) < count:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                names.append(line.removeprefix("event: "))
        return names

    def until(self, name):
        """The next events, up to and including the first one called ``name``."""
        names = []
        while name not in names:
            names += self.events(1)
        return names

    def close(self):
        self.link.close()


def make_project(project_id):
    Project.objects.get_or_create(id=project_id, defaults={"name": project_id.capitalize()})
    return project_id


@pytest.fixture
def cookie(asgi_live_server):
    client = Client()
    client.force_login(make_member("viewer", Role.VIEWER))
    return client.cookies["sessionid"].value


@pytest.fixture
def stream(asgi_live_server, cookie):
    streams = []

    def open_stream(query=""):
        streams.append(Stream(asgi_live_server, cookie, query))
        return streams[-1]

    yield open_stream
    for opened in streams:
        opened.close()


def test_a_visitor_who_is_not_logged_in_is_told_to_stop_listening(client, db):
    assert client.get(URL).status_code == 204


def test_the_stream_says_changed_at_once_and_again_when_any_session_changes(stream):
    events = stream()
    assert events.response.status == 200
    assert events.response.headers["Content-Type"] == "text/event-stream"
    assert events.events(1) == ["changed"]

    sessions.ensure(agent="supportAgent", session_id="brand-new")

    assert events.events(1) == ["changed"]


def test_a_timeline_stream_also_says_session_when_its_own_session_changes(stream):
    sessions.ensure(agent="supportAgent", session_id="shown")
    events = stream("?session=shown")
    assert events.events(2) == ["changed", "session"]

    sessions.update("shown", name="Renamed")

    assert events.events(2) == ["changed", "session"]


def test_a_timeline_stream_hears_the_inbox_of_every_session(stream):
    sessions.ensure(agent="supportAgent", session_id="shown")
    sessions.ensure(agent="supportAgent", session_id="another")
    events = stream("?session=shown")
    assert events.events(2) == ["changed", "session"]

    # What waits for a person changed: the header's count on this page must refresh.
    client_actions.open_action("another", call_id="c1", name="refund", arguments={})

    assert events.events(1) == ["changed"]


@pytest.mark.parametrize(
    "query, hears, misses",
    [
        ({"session_key": "shown"}, [live.Change("shown"), live.Change("other", inbox=True)], [live.Change("other")]),
        ({"inbox_only": True}, [live.Change("other", inbox=True)], [live.Change("shown"), live.Change("other")]),
        ({}, [live.Change("shown"), live.Change("other")], [live.Change("elsewhere/shown", inbox=True)]),
    ],
)
def test_each_page_hears_what_it_shows_and_nothing_else(query, hears, misses):
    interest = stream_of_page.interest("default", **query)

    assert all(interest.hears(change) for change in hears)
    assert not any(interest.hears(change) for change in misses)


def test_the_approvals_stream_hears_the_inbox_only(stream):
    sessions.ensure(agent="supportAgent", session_id="quiet")
    events = stream("?inbox=1")
    assert events.events(1) == ["changed"]

    sessions.update("quiet", name="Renamed")
    client_actions.open_action("quiet", call_id="c1", name="refund", arguments={})

    assert events.events(1) == ["changed"]


def test_the_stream_says_changed_when_a_waiting_action_expires_though_nobody_writes(stream):
    sessions.ensure(agent="supportAgent", session_id="expiring")
    events = stream()
    assert events.events(1) == ["changed"]
    expires_at = datetime.now(UTC) + timedelta(seconds=3)
    client_actions.open_action("expiring", call_id="c1", name="refund", arguments={}, expires_at=expires_at.isoformat())

    # The write's event, the one after it, then one when the action expires (or the read times out).
    while datetime.now(UTC) < expires_at:
        assert events.events(1) == ["changed"]


def test_a_stream_whose_page_closes_frees_its_subscription_at_once(stream):
    before = live.hub.subscriber_count()
    events = stream()
    events.events(1)
    until(lambda: live.hub.subscriber_count() == before + 1, message="the subscription")

    events.close()

    until(lambda: live.hub.subscriber_count() == before, seconds=5, message="the release")


def test_a_person_with_too_many_live_pages_open_is_told_so(asgi_live_server, cookie, stream, settings):
    settings.HISTORYHUB_MAX_STREAMS_PER_USER = 2
    first, second = stream(), stream()
    first.events(1), second.events(1)

    third = stream()

    assert third.response.status == 429
    assert "live pages open" in third.response.read().decode()
    second.close()
    until(lambda: stream().response.status == 200, message="a place once a page closed")


@pytest.mark.parametrize("shown", ["beta/bv1", "beta%2Fbv1", "default/bv1", "../bv1"])
def test_a_session_outside_the_pages_project_is_not_found_and_hears_nothing(asgi_live_server, shown):
    """A member of ``default`` and of ``beta``: the stream of ``default``'s page names beta's session by its key;
    it is refused, where it used to carry beta's changes."""
    person = make_member("both", Role.VIEWER)
    Membership.objects.create(user=person, project_id=make_project("beta"), role=Role.VIEWER)
    sessions.ensure(agent="supportAgent", project="beta", session_id="bv1")
    client = Client()
    client.force_login(person)
    before = live.hub.subscriber_count()

    events = Stream(asgi_live_server, client.cookies["sessionid"].value, f"?session={shown}")

    assert events.response.status == 404
    assert live.hub.subscriber_count() == before
    events.close()


def test_a_session_of_another_project_is_heard_on_that_projects_page_only(asgi_live_server):
    person = make_member("both", Role.VIEWER)
    Membership.objects.create(user=person, project_id=make_project("beta"), role=Role.VIEWER)
    sessions.ensure(agent="supportAgent", project="beta", session_id="bv1")
    sessions.ensure(agent="supportAgent", session_id="bv1")
    client = Client()
    client.force_login(person)
    cookie = client.cookies["sessionid"].value
    on_default = Stream(asgi_live_server, cookie, "?session=bv1")
    on_beta = Stream(asgi_live_server, cookie, "?session=bv1", url=reverse("dashboard:live", args=["beta"]))
    assert on_default.events(2) == ["changed", "session"] and on_beta.events(2) == ["changed", "session"]

    sessions.update("beta/bv1", name="Renamed in beta")
    sessions.update("bv1", name="Renamed in default")

    # Each page hears its own project's session; beta's change is never a "session" event on default's page.
    assert on_beta.events(2) == ["changed", "session"]
    assert on_default.events(2) == ["changed", "session"]
    on_default.close()
    on_beta.close()
