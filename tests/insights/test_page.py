"""The Insights page: every member sees it, its tables hold the numbers, each CSV equals its table, the charts'
bars lead to the inbox or sessions behind them, and another project's data never shows."""

import csv
import io

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import User
from django.test import Client

from historyhub.audit.models import AuditEntry
from historyhub.insights.models import AlertFiring, AlertRule
from historyhub.projects import administration
from historyhub.projects.models import Membership, Role
from tests.insights.seeding import START, action, item, minutes, session
from tests.support.actors import make_member

CUSTOM = {"range": "custom", "since": "2026-09-01", "until": "2026-09-01"}
PAGE = "/p/default/insights/"


@pytest.fixture
def seeded(db):
    support = session("s1", agent="support", at=START + minutes(1))
    action(support, "a1", "refund", minutes(0), minutes(2), "approve", by="ann")
    action(support, "a2", "delete_account", minutes(10), minutes(4), "reject", by="bob")
    action(support, "a3", "delete_account", minutes(20), minutes(6), "reject", by="bob")
    item(support, 1, START + minutes(3), {"role": "assistant", "usage": {"inputTokens": 100, "outputTokens": 20}})
    return support


def soup(response):
    return BeautifulSoup(response.content, "html.parser")


def table_rows(page, key):
    table = page.find(id=f"{key}-table")
    return [[cell.get_text() for cell in row.find_all(["td", "th"])] for row in table.find_all("tr")]


def test_a_viewer_sees_the_numbers_of_the_range(viewer_client, seeded):
    response = viewer_client.get(PAGE, CUSTOM)
    assert response.status_code == 200
    page = soup(response)
    assert page.find(id="stat-decided").get_text() == "3"
    assert page.find(id="stat-p50").get_text() == "240 s"
    assert table_rows(page, "deciders")[1:] == [["bob", "2", "300.0"], ["ann", "1", "120.0"]]
    assert table_rows(page, "outcomes")[1:4] == [["approved", "1"], ["edited", "0"], ["rejected", "2"]]
    assert page.find("a", attrs={"aria-current": "page"}).get_text() == "Insights"


def test_a_page_without_a_range_shows_the_last_7_days_and_its_range_field_says_so(viewer_client, seeded):
    page = soup(viewer_client.get(PAGE))
    assert page.find("select", attrs={"name": "range"}).find("option", selected=True)["value"] == "7d"
    assert "Last 7 days" in page.find("select", attrs={"name": "range"}).find("option", selected=True).get_text()


def test_each_csv_equals_its_table(viewer_client, seeded):
    page = soup(viewer_client.get(PAGE, CUSTOM))
    for key in ("by-action", "deciders", "tokens-by-agent", "time-to-decision"):
        download = viewer_client.get(PAGE, {**CUSTOM, "csv": key})
        assert download["Content-Type"].startswith("text/csv")
        assert list(csv.reader(io.StringIO(download.content.decode()))) == [
            [cell.replace("–", "") for cell in row] for row in table_rows(page, key)
        ]


def test_a_bar_of_an_action_opens_the_inbox_filtered_to_its_decided_and_expired_ones(viewer_client, seeded):
    page = soup(viewer_client.get(PAGE, {**CUSTOM, "agent": "support"}))
    links = [link["href"] for link in page.find(id="by-action").select("svg a")]
    day = "from=2026-09-01T00%3A00%3A00Z&to=2026-09-02T00%3A00%3A00Z"
    assert links == [
        f"/p/default/approvals/?agent=support&tool=delete_account&state=closed&{day}",
        f"/p/default/approvals/?agent=support&tool=refund&state=closed&{day}",
    ]
    ages = [link["href"] for link in page.find(id="waiting-now").select("svg a")]
    assert ages == []  # nothing waits: no bar to follow
    agents = [link["href"] for link in page.find(id="tokens-by-agent").select("svg a")]
    assert agents == ["/p/default/?agent=support"]


def test_a_custom_range_without_dates_is_refused(viewer_client, seeded):
    response = viewer_client.get(PAGE, {"range": "custom"})
    assert response.status_code == 400
    assert "needs both a From and a To date" in response.content.decode()


def test_another_projects_data_never_shows(seeded, django_user_model):
    staging = administration.create_project("staging", "Staging")
    theirs = session("x1", project="staging", agent="secret-agent")
    action(theirs, "t1", "wire_money", minutes(1), minutes(1), "approve", by="eve-from-staging")
    person = User.objects.create_user("member-of-both")
    for project in ("default", staging.pk):
        Membership.objects.create(project_id=project, user=person, role=Role.VIEWER)
    client = Client()
    client.force_login(person)
    text = client.get(PAGE, CUSTOM).content.decode()
    assert "wire_money" not in text and "eve-from-staging" not in text and "secret-agent" not in text
    assert soup(client.get(PAGE, CUSTOM)).find(id="stat-decided").get_text() == "3"


def test_an_outsider_gets_403(seeded, django_user_model):
    outsider = django_user_model.objects.create_user("outsider")
    client = Client()
    client.force_login(outsider)
    assert client.get(PAGE).status_code == 403


@pytest.fixture
def admin_client(db):
    client = Client()
    client.force_login(make_member("boss", Role.ADMIN))
    return client


ALERTS = "/p/default/insights/alerts/"


def test_an_admin_adds_and_deletes_an_alert_and_the_page_lists_its_crossings(admin_client):
    added = admin_client.post(ALERTS, {"add": "1", "kind": "waiting_count", "threshold": "3", "action": ""})
    assert added.status_code == 302 and added["Location"] == "/p/default/insights/#alerts"
    rule = AlertRule.objects.get()
    assert (rule.project_id, rule.kind, rule.threshold) == ("default", "waiting_count", 3)
    AlertFiring.objects.create(rule=rule, fired_at=START, value=4)
    rows = table_rows(soup(admin_client.get(PAGE)), "alerts")
    assert rows[1][:3] == ["More than N actions wait", "3", "any"]
    assert "fired 2026-09-01 00:00 UTC at 4.00, open" in " ".join(rows[1][3].split())
    deleted = admin_client.post(ALERTS, {"delete": "1", "rule": str(rule.pk)})
    assert deleted.status_code == 302
    assert not AlertRule.objects.exists()
    assert list(AuditEntry.objects.order_by("seq").values_list("action", flat=True)) == [
        "alert.added",
        "alert.deleted",
    ]


def test_a_bad_threshold_changes_nothing(admin_client):
    answer = admin_client.post(ALERTS, {"add": "1", "kind": "waiting_count", "threshold": "-1"})
    assert answer.status_code == 400
    assert not AlertRule.objects.exists()


def test_only_admins_set_alerts(viewer_client, seeded):
    assert viewer_client.get(PAGE).status_code == 200
    assert soup(viewer_client.get(PAGE)).find("form", attrs={"aria-label": "Add an alert"}) is None
    client = Client()
    client.force_login(User.objects.get(username="viewer"))
    assert client.post(ALERTS, {"add": "1", "kind": "waiting_count", "threshold": "3"}).status_code == 403
    assert not AlertRule.objects.exists()


def test_another_projects_alert_cannot_be_deleted_from_here(admin_client):
    administration.create_project("staging", "Staging")
    theirs = AlertRule.objects.create(project_id="staging", kind="waiting_count", threshold=1)
    assert admin_client.post(ALERTS, {"delete": "1", "rule": str(theirs.pk)}).status_code == 404
    assert AlertRule.objects.filter(pk=theirs.pk).exists()
