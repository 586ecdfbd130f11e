"""GET /api/v1/insights/approvals and /usage, GET and PUT /api/v1/prices: the contract's shapes, the key's project
only, and bad input refused with nothing changed."""

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.audit.models import AuditEntry
from historyhub.insights.models import Price
from historyhub.projects import administration
from tests.insights.seeding import START, action, item, minutes, session
from tests.support.actors import ApiClient
from tests.support.readers import assert_error

DAY = {"from": "2026-09-01T00:00:00Z", "to": "2026-09-02T00:00:00Z"}


@pytest.fixture
def seeded(db):
    support = session("s1", agent="support", metadata={"model": "gpt-5"}, at=START + minutes(1))
    action(support, "a1", "refund", minutes(0), minutes(2), "approve", by="ann")
    action(support, "a2", "refund", minutes(10), minutes(4), "approve", by="ann", edited=True)
    action(support, "a3", "delete_account", minutes(20), minutes(6), "reject", by="bob")
    item(
        support,
        1,
        START + minutes(3),
        {"role": "assistant", "content": "hi", "usage": {"inputTokens": 1000, "outputTokens": 200}},
    )
    item(
        support,
        2,
        START + minutes(4),
        {"type": "message", "model": "mini", "usage": {"input_tokens": 500, "output_tokens": 50}},
    )
    item(support, 3, START + minutes(65), {"type": "ai", "usage_metadata": {"input_tokens": 10, "output_tokens": 5}})
    item(support, 4, START + minutes(66), {"role": "user", "content": "no usage"})
    return support


def test_approvals_answer_the_contracts_shape(read_api, seeded):
    answer = read_api.get("insights/approvals", **DAY, bucket="hour")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["from"], body["to"], body["bucket"]) == ("2026-09-01T00:00:00Z", "2026-09-02T00:00:00Z", "hour")
    assert body["decided"] == {"count": 3, "timeToDecision": {"p50": 240.0, "p90": 336.0, "max": 360.0}}
    assert body["outcomes"] == {"approved": 1, "edited": 1, "rejected": 1, "answered": 0, "dismissed": 0, "expired": 0}
    assert body["waitingNow"] == {"count": 0, "oldestSeconds": None, "escalated": 0}
    assert body["byAction"] == [
        {"name": "refund", "count": 2, "approveRate": 0.5, "editRate": 0.5, "rejectRate": 0.0, "p50": 180.0},
        {"name": "delete_account", "count": 1, "approveRate": 0.0, "editRate": 0.0, "rejectRate": 1.0, "p50": 360.0},
    ]
    assert body["byDecider"] == [{"by": "ann", "count": 2, "p50": 180.0}, {"by": "bob", "count": 1, "p50": 360.0}]
    assert body["series"][0] == {"at": "2026-09-01T00:00:00Z", "opened": 3, "decided": 3, "expired": 0, "p50": 240.0}
    assert len(body["series"]) == 24


def test_usage_counts_tokens_of_every_format_and_prices_them(read_api, admin_api, seeded):
    prices = {"items": [{"model": "gpt-5", "inputPerMillion": 2, "outputPerMillion": 10, "currency": "USD"}]}
    assert admin_api.put("prices", prices).status_code == 200
    body = read_api.get("insights/usage", **DAY, bucket="hour").json()
    first, second = body["series"][0], body["series"][1]
    assert (first["sessions"], first["items"], first["clientActions"]) == (1, 2, 3)
    assert (first["inputTokens"], first["outputTokens"]) == (1500, 250)
    assert first["cost"] == pytest.approx((1000 * 2 + 200 * 10) / 1_000_000)
    assert (second["items"], second["inputTokens"], second["outputTokens"]) == (2, 10, 5)
    assert body["byModel"] == [
        {"model": "gpt-5", "inputTokens": 1010, "outputTokens": 205, "cost": pytest.approx(0.00407)},
        {"model": "mini", "inputTokens": 500, "outputTokens": 50, "cost": 0.0},
    ]
    assert body["byAgent"] == [
        {"agent": "support", "inputTokens": 1510, "outputTokens": 255, "cost": pytest.approx(0.00407)}
    ]
    only_mini = read_api.get("insights/usage", **DAY, model="mini").json()
    assert [row["model"] for row in only_mini["byModel"]] == ["mini"]


def test_another_projects_key_sees_none_of_it(seeded):
    staging = administration.create_project("staging", "Staging")
    stranger = ApiClient(ApiKey.issue("staging reader", "read", project=staging)[1])
    body = stranger.get("insights/approvals", **DAY).json()
    assert body["decided"]["count"] == 0 and body["byAction"] == [] and body["byDecider"] == []
    usage = stranger.get("insights/usage", **DAY).json()
    assert usage["byModel"] == [] and all(row["items"] == 0 for row in usage["series"])


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"from": "yesterday"}, "from must be an ISO 8601 time"),
        # Empty is no time either: the OpenAPI document says date-time (schemathesis' ST201).
        ({"to": ""}, "to must be an ISO 8601 time"),
        ({"from": "2026-09-02T00:00:00Z", "to": "2026-09-01T00:00:00Z"}, "from must be before to."),
        ({"bucket": "week"}, 'bucket must be "hour" or "day".'),
        ({"from": "2020-01-01T00:00:00Z", "bucket": "hour"}, "more than 2000 buckets"),
    ],
)
def test_a_bad_range_is_refused_clearly(read_api, query, message):
    answer = read_api.get("insights/approvals", **query)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_input"
    assert message in answer.json()["error"]["message"]


def test_prices_are_replaced_by_an_admin_key_and_audited(admin_api, api, read_api):
    body = {"items": [{"model": "gpt-5", "inputPerMillion": 1.25, "outputPerMillion": 10, "currency": "usd"}]}
    assert admin_api.put("prices", body).json() == {
        "items": [{"model": "gpt-5", "inputPerMillion": 1.25, "outputPerMillion": 10.0, "currency": "USD"}]
    }
    assert read_api.get("prices").json()["items"][0]["model"] == "gpt-5"
    assert AuditEntry.objects.filter(action="prices.set").count() == 1
    assert_error(api.put("prices", {"items": []}), 403, "forbidden")
    assert Price.objects.count() == 1


def test_a_bad_price_changes_nothing(admin_api):
    admin_api.put("prices", {"items": [{"model": "gpt-5", "inputPerMillion": 1, "outputPerMillion": 2}]})
    twice = {"items": [{"model": "a", "inputPerMillion": 1, "outputPerMillion": 1}] * 2}
    answer = admin_api.put("prices", twice)
    assert answer.status_code == 400 and "priced twice" in answer.json()["error"]["message"]
    negative = admin_api.put("prices", {"items": [{"model": "b", "inputPerMillion": -1, "outputPerMillion": 1}]})
    assert negative.status_code == 400
    assert list(Price.objects.values_list("model", flat=True)) == ["gpt-5"]


def test_a_range_of_days_defaults_to_daily_buckets(read_api, seeded):
    body = read_api.get("insights/approvals", **{"from": "2026-09-01T00:00:00Z", "to": "2026-09-08T00:00:00Z"}).json()
    assert body["bucket"] == "day" and len(body["series"]) == 7
    assert body["series"][0]["decided"] == 3


def test_a_range_cut_inside_hours_reads_its_whole_hours_and_the_rows_of_its_partial_ones(read_api, seeded):
    # 00:02 to 02:05:30: the session (00:01) and the first action (00:00) fall before it; the items of 00:03 and
    # 00:04 and the actions of 00:10 and 00:20 in its partial first hour; the whole hour 01:00 holds two items.
    cut = {"from": "2026-09-01T00:02:00Z", "to": "2026-09-01T02:05:30Z", "bucket": "hour"}
    body = read_api.get("insights/usage", **cut).json()
    counted = [
        (row["sessions"], row["items"], row["clientActions"], row["inputTokens"], row["outputTokens"])
        for row in body["series"]
    ]
    assert counted == [(0, 2, 2, 1500, 250), (0, 2, 0, 10, 5), (0, 0, 0, 0, 0)]
    opened = [row["opened"] for row in read_api.get("insights/approvals", **cut).json()["series"]]
    assert opened == [2, 0, 0]
    inside = {"from": "2026-09-01T00:03:30Z", "to": "2026-09-01T00:59:00Z"}
    assert [row["items"] for row in read_api.get("insights/usage", **inside).json()["series"]] == [1]
