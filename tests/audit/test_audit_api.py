"""GET /api/v1/audit: the project's audit rows with their places in the chain, newest first, for admin keys only
(docs/api.md, "Data")."""

from datetime import timedelta

import pytest
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditEntry
from historyhub.projects import administration
from tests.audit.chaining import GENESIS, expected_hash
from tests.support.actors import ApiClient
from tests.support.readers import assert_error


@pytest.fixture
def recorded(db):
    old = audit_log.record("default", "ada", "member.set", "ben", role="viewer")
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=3))
    audit_log.record("default", "ben", "erasure", "customerId", valueHash="abc")
    audit_log.record("default", "ada", "export")
    administration.create_project("acme", "Acme")
    audit_log.record("acme", "ada", "export", secret="acme's own")


def test_rows_newest_first_each_hashed_over_the_one_before(admin_api, recorded):
    response = admin_api.get("audit")

    assert response.status_code == 200
    page = response.json()
    assert (page["page"], page["pageSize"], page["total"], page["hasMore"]) == (1, 50, 3, False)
    rows = page["items"]
    assert [row["seq"] for row in rows] == [3, 2, 1]
    assert rows[2]["prevHash"] == GENESIS
    assert [row["prevHash"] for row in rows[:2]] == [row["hash"] for row in rows[1:]]
    assert all(row["hash"] == expected_hash(row) for row in rows)
    assert rows[1] == {
        "seq": 2,
        "at": rows[1]["at"],
        "actor": "ben",
        "action": "erasure",
        "target": "customerId",
        "details": {"valueHash": "abc"},
        "prevHash": rows[2]["hash"],
        "hash": rows[1]["hash"],
    }
    assert rows[1]["at"].endswith("Z")


def test_filters_by_actor_action_and_time(admin_api, recorded):
    def seqs(**params):
        response = admin_api.get("audit", **params)
        assert response.status_code == 200, response.content
        return [row["seq"] for row in response.json()["items"]]

    assert seqs(actor="ada") == [3, 1]
    assert seqs(action="erasure") == [2]
    yesterday = (timezone.now() - timedelta(days=1)).isoformat()
    assert seqs(**{"from": yesterday}) == [3, 2]
    assert seqs(to=yesterday) == [1]
    assert seqs(**{"from": "2000-01-01T00:00:00Z", "to": "2000-01-02T00:00:00Z"}) == []
    assert seqs(**{"from": "", "to": "", "actor": "", "action": ""}) == [3, 2, 1]


def test_pages(admin_api, recorded):
    page = admin_api.get("audit", page=2, pageSize=2).json()

    assert ([row["seq"] for row in page["items"]], page["total"], page["hasMore"]) == ([1], 3, False)
    assert admin_api.get("audit", page=1, pageSize=2).json()["hasMore"] is True
    assert_error(
        admin_api.get("audit", pageSize=101),
        400,
        "invalid_input",
        "Pagination requires page >= 1 and pageSize between 1 and 100.",
    )


@pytest.mark.parametrize(
    "when", ["yesterday", "2026-09-28T12:00:00", "2026-13-01T00:00:00Z", "0001-01-01T00:00:00+01:00"]
)
def test_a_time_without_a_zone_or_not_a_time_is_refused(admin_api, recorded, when):
    message = "from must be an ISO 8601 time with a time zone, e.g. 2026-09-28T12:00:00Z."
    assert_error(admin_api.get("audit", **{"from": when}), 400, "invalid_input", message)


def test_other_keys_are_forbidden(api, read_api, recorded):
    for client in (api, read_api):
        assert_error(client.get("audit"), 403, "forbidden")


def test_an_admin_key_reads_its_own_project_only(recorded):
    acme_admin = ApiClient(ApiKey.issue("acme admin", "admin", project="acme")[1])

    rows = acme_admin.get("audit").json()["items"]

    assert [(row["seq"], row["details"]) for row in rows] == [(1, {"secret": "acme's own"})]
