import pytest

from historyhub.history import item_log, sessions
from tests.support.readers import snapshot, timeline, timeline_ids

USAGE = {"inputTokens": 1200, "outputTokens": 300, "reasoningTokens": 40, "cacheReadTokens": 800, "cacheWriteTokens": 5}


def test_a_skill_is_passed_through_with_its_usage_and_duration(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "skill",
                "id": "skill_1",
                "createdAt": "2026-09-28T12:00:00Z",
                "name": "summarise_ticket",
                "status": "completed",
                "durationMs": 842,
                "usage": USAGE,
                "summary": "Summarised the ticket.",
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "skill_1",
            "type": "skill",
            "createdAt": "2026-09-28T12:00:00Z",
            "name": "summarise_ticket",
            "status": "completed",
            "durationMs": 842,
            "usage": USAGE,
            "summary": "Summarised the ticket.",
        }
    ]


def test_an_evaluation_keeps_its_metrics(session_id):
    metrics = [
        {"name": "helpfulness", "score": 0.92, "threshold": 0.8, "passed": True},
        {"name": "groundedness", "score": 0.4, "passed": False},
    ]
    item_log.append(session_id, [{"type": "evaluation", "id": "eval_1", "name": "quality", "metrics": metrics}])

    [item] = timeline(session_id)
    assert (item["id"], item["type"], item["metrics"]) == ("eval_1", "evaluation", metrics)


def test_session_completed_is_passed_through_and_completes_the_run(session_id):
    sessions.update(session_id, run_status="running")

    item_log.append(session_id, [{"type": "session_completed", "id": "done_1", "durationMs": 60000, "usage": USAGE}])

    [item] = timeline(session_id)
    assert (item["id"], item["type"], item["durationMs"], item["usage"]) == (
        "done_1",
        "session_completed",
        60000,
        USAGE,
    )
    assert snapshot(session_id)["runStatus"] == "completed"


def test_a_passed_through_item_without_an_id_still_gets_a_unique_one(session_id):
    item_log.append(session_id, [{"type": "skill", "name": "a"}, {"type": "skill", "name": "b"}])

    ids = timeline_ids(session_id)
    assert len(set(ids)) == 2
    assert [item["name"] for item in timeline(session_id)] == ["a", "b"]


def test_usage_sums_over_the_items_of_the_session(session_id):
    item_log.append(
        session_id,
        [
            {"type": "skill", "id": "s1", "usage": {"inputTokens": 100, "outputTokens": 20}},
            {"type": "evaluation", "id": "e1", "usage": {"inputTokens": 50, "cacheReadTokens": 7}},
        ],
    )
    item_log.append(session_id, [{"type": "session_completed", "id": "done", "usage": {"outputTokens": 5}}])

    assert snapshot(session_id)["usage"] == {"inputTokens": 150, "outputTokens": 25, "cacheReadTokens": 7}


def test_usage_fields_that_are_not_numbers_or_not_usage_are_ignored(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "skill",
                "id": "s1",
                "usage": {
                    "inputTokens": "100",
                    "outputTokens": True,
                    "reasoningTokens": 3,
                    "dollars": 12,
                },
            }
        ],
    )

    assert snapshot(session_id)["usage"] == {"reasoningTokens": 3}


def test_a_session_without_usage_reports_none(session_id):
    item_log.append(session_id, [{"role": "user", "content": "hi"}])

    assert snapshot(session_id)["usage"] is None


@pytest.mark.parametrize(
    "created_at, shown",
    [
        ("2026-09-28T12:00:00Z", "2026-09-28T12:00:00Z"),
        ("2026-09-28T12:00:00.123456+00:00", "2026-09-28T12:00:00.123Z"),
    ],
)
def test_created_at_of_a_passed_through_item_is_its_own(session_id, created_at, shown):
    item_log.append(session_id, [{"type": "skill", "id": "s1", "createdAt": created_at}])

    assert timeline(session_id)[0]["createdAt"] == shown
