"""One time rule (docs/dashboard.md, "Times"): every time is a <time> in UTC that the browser shows in the person's
zone; a person may choose a zone on their profile, and then every page writes times in it, says so on hover, and
tells the script (``data-zone``). Times that were printed raw (a profile's decisions, an invitation's expiry, a
time inside an audit row's details) follow the rule too."""

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from historyhub.audit import log as audit_log
from historyhub.history import sessions
from historyhub.history.models import Session
from historyhub.lib.session_keys import session_key
from historyhub.projects import administration, invitations, time_zones
from historyhub.projects.models import PersonSettings, Role
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse

pytestmark = pytest.mark.django_db

PROFILE = reverse("profile")
SESSIONS = reverse("dashboard:sessions", args=["default"])
JUNE_FIRST = datetime(2026, 6, 1, 0, 30, tzinfo=UTC)


@pytest.fixture
def ana():
    return make_member("ana", Role.ADMIN)


@pytest.fixture
def client(ana):
    return logged_in(ana)


@pytest.fixture
def updated_session():
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    Session.objects.filter(pk=session_key("default", "support-1")).update(updated_at=JUNE_FIRST)


def updated_time(client):
    return parse(client.get(SESSIONS)).one("td.when time")


def test_a_person_chooses_a_time_zone_on_their_profile_and_the_page_says_so(client, ana):
    assert "Times show in your browser's time zone." in parse(client.get(PROFILE)).text("#current-time-zone")

    answer = post(client, PROFILE, {"action": "time_zone", "time_zone": "Asia/Tokyo"})

    assert answer.status_code == 302
    page = parse(client.get(PROFILE))
    assert page.text("#current-time-zone") == "Times show in Asia/Tokyo, on every page."
    assert page.text(".messages") == "Times now show in Asia/Tokyo."
    assert page.one("#id_time_zone option[selected]")["value"] == "Asia/Tokyo"
    assert PersonSettings.objects.get(user=ana).time_zone == "Asia/Tokyo"

    post(client, PROFILE, {"action": "time_zone", "time_zone": ""})
    assert time_zones.chosen(ana) == ""


def test_a_zone_the_server_does_not_know_is_refused_and_nothing_changes(client, ana):
    answer = post(client, PROFILE, {"action": "time_zone", "time_zone": "Mars/Olympus_Mons"})

    assert answer.status_code == 422
    assert "Select a valid choice" in parse(answer).text("#time-zone-title + p + form")
    assert not PersonSettings.objects.filter(user=ana).exists()


def test_without_a_chosen_zone_a_time_reads_utc_and_says_so(client, updated_session):
    time = updated_time(client)

    assert time.text() == "2026-06-01 00:30 UTC"
    assert time["title"] == "2026-06-01 00:30:00 UTC"
    assert time.get("data-zone") is None


def test_with_a_chosen_zone_every_page_writes_times_in_it_and_names_it(client, ana, updated_session):
    time_zones.choose(ana, "Asia/Tokyo")

    time = updated_time(client)

    assert time["datetime"] == "2026-06-01T00:30:00Z"
    assert time["data-zone"] == "Asia/Tokyo"
    assert time.text() == "2026-06-01 09:30 JST"
    assert time["title"] == "2026-06-01 09:30:00 Asia/Tokyo, the time zone on your profile (2026-06-01 00:30:00 UTC)"


def test_a_profiles_decisions_and_an_invitations_expiry_follow_the_rule(client, ana, api):
    _, key = administration.issue_key(ana.memberships.get().project, "ana's", "decide", actor="ana", made_by=ana)
    api.post("sessions", {"sessionId": "s1", "agent": "support"})
    api.post("sessions/s1/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
    assert ApiClient(key).post("sessions/s1/client-actions/c1/decision", {"decision": "approve"}).status_code == 200
    invitations.invite(ana.memberships.get().project, "new@example.com", "viewer", actor="ana")
    time_zones.choose(ana, "Europe/Berlin")

    decided = parse(client.get(PROFILE)).one("section[aria-labelledby=decisions-title] tbody time")
    expiry = parse(client.get(reverse("dashboard:settings", args=["default"]))).one("#invitations-title ~ table time")

    for time in (decided, expiry):
        assert time.get("data-local") == "" and time["data-zone"] == "Europe/Berlin"
        assert time.text().endswith((" CET", " CEST"))


def test_a_time_inside_an_audit_rows_details_is_shown_as_a_time(client):
    audit_log.record("default", "ana", "export", updatedSince="2026-06-01T00:30:00Z", agent="supportAgent")

    details = parse(client.get(reverse("dashboard:audit", args=["default"]))).one("#audit-rows dl.details")

    time = details.one("dd time[data-local]")
    assert time["datetime"] == "2026-06-01T00:30:00Z"
    assert time.text() == "2026-06-01 00:30 UTC"
    assert [line.text() for line in details.all("dd")][1] == "supportAgent"
