"""The audit log page: project admins read and filter it and download it as CSV; nobody else sees it."""

import contextlib
import csv
import io
import sys
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditEntry
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.audit.chaining import sql
from tests.support.actors import logged_in, make_member
from tests.support.html import parse

URL = reverse("dashboard:audit", kwargs={"project_id": "default"})


@pytest.fixture
def recorded(db):
    old = audit_log.record("default", "ada", "member.set", "=HYPERLINK(1)", role="viewer")
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=10))
    audit_log.record("default", "ada", "export")
    audit_log.record("default", "ben", "erasure", "customerId", valueHash="abc")
    administration.create_project("acme", "Acme")
    audit_log.record("acme", "ada", "export", "acme's own")


def shown(response):
    return [row.text("td:nth-child(4)") for row in parse(response).all("#audit-rows tbody tr")]


def test_admins_see_the_projects_rows_newest_first(admin_client, recorded):
    response = admin_client.get(URL)

    assert response.status_code == 200
    assert shown(response) == ["erasure", "export", "member.set"]


def test_filters_by_actor_action_and_days(admin_client, recorded):
    assert shown(admin_client.get(URL, {"actor": "ada"})) == ["export", "member.set"]
    assert shown(admin_client.get(URL, {"action": "erasure"})) == ["erasure"]
    today = timezone.localdate().isoformat()
    assert shown(admin_client.get(URL, {"since": today})) == ["erasure", "export"]
    ten_days_ago = (timezone.localdate() - timedelta(days=10)).isoformat()
    assert shown(admin_client.get(URL, {"until": ten_days_ago})) == ["member.set"]
    assert admin_client.get(URL, {"since": "yesterday"}).status_code == 400


def test_the_csv_holds_the_filtered_rows_with_formulas_defused(admin_client, recorded):
    response = admin_client.get(URL, {"actor": "ada", "format": "csv"})

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    table = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert table[0] == ["seq", "at", "actor", "action", "target", "details", "prevHash", "hash"]
    assert [row[3:5] for row in table[1:]] == [["export", ""], ["member.set", "'=HYPERLINK(1)"]]


def test_viewers_and_approvers_get_the_403_page(db, recorded):
    for username, role in (("vic", Role.VIEWER), ("abe", Role.APPROVER)):
        assert logged_in(make_member(username, role)).get(URL).status_code == 403


def test_each_row_shows_its_seq_and_hash(admin_client, recorded):
    rows = parse(admin_client.get(URL)).all("#audit-rows tbody tr")

    entries = list(AuditEntry.objects.filter(project="default").order_by("-seq"))
    assert [row.text("td:nth-child(1)") for row in rows] == ["3", "2", "1"]
    assert [row.text("td:nth-child(7)") for row in rows] == [entry.hash for entry in entries]


def test_verify_the_chain_says_it_is_intact_or_where_it_broke(admin_client, recorded):
    page = parse(admin_client.get(URL))
    assert page.button("Verify the chain")
    assert page.all("#chain-verdict") == []

    verdict = parse(admin_client.get(URL, {"verify": "1"})).one("#chain-verdict")
    assert (verdict.text(), "success" in verdict.classes) == ("Chain intact: 3 rows", True)

    sql("UPDATE {table} SET actor = %s WHERE project_id = %s AND seq = 2", "mallory", "default")
    verdict = parse(admin_client.get(URL, {"verify": "1"})).one("#chain-verdict")
    assert (verdict.text(), "error" in verdict.classes) == ("Broken at seq 2: changed", True)


def test_the_downloaded_log_verifies_with_the_recipe_in_the_docs(admin_client, recorded, tmp_path, monkeypatch):
    audit_log.record("default", "ada", "export", "'quoted", count=2**60 + 1)
    path = tmp_path / "audit-default.csv"
    path.write_bytes(b"".join(admin_client.get(URL, {"format": "csv"}).streaming_content))
    monkeypatch.setattr(sys, "argv", ["verify.py", str(path)])

    assert run_recipe().startswith("Chain intact: 4 rows (seq 1 to 4)")

    path.write_text(path.read_text().replace("customerId", "customerID"))
    with pytest.raises(SystemExit, match="Broken at seq 3: changed"):
        run_recipe()


def run_recipe():
    """The Python block of docs/data.md's "Verifying an exported log", run as its reader would run it."""
    text = (Path(__file__).parents[2] / "docs" / "data.md").read_text()
    section = text.split("### Verifying an exported log", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "docs/data.md", "exec"), {"__name__": "__main__"})
    return output.getvalue().strip()


def test_a_rows_details_read_as_keys_and_values_and_its_time_is_in_utc_until_the_browser_localises_it(admin_client, db):
    entry = audit_log.record("default", "ada", "policies.set", "finance only", groups=["finance", "ops"], count=2)

    row = parse(admin_client.get(URL)).one("#audit-rows tbody tr")

    assert [line.text() for line in row.all("dl.details dt, dl.details dd")] == [
        "groups",
        '["finance", "ops"]',
        "count",
        "2",
    ]
    time = row.one("time[data-local]")
    assert time.text() == f"{entry.at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
