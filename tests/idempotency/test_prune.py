"""Records are kept HISTORYHUB_IDEMPOTENCY_TTL_HOURS (at least 24) and pruned after."""

import subprocess
import sys
from datetime import timedelta

from django.utils import timezone

from historyhub.idempotency.models import IdempotencyRecord
from historyhub.idempotency.records import prune
from tests.support.items import user
from tests.support.readers import items_via_api
from tests.support.servers import ROOT, production_environment


def record_aged(keyed, session_id, idempotency_key, age):
    keyed(idempotency_key).post(f"sessions/{session_id}/items", {"items": [user(idempotency_key)]})
    IdempotencyRecord.objects.filter(key=idempotency_key).update(created_at=timezone.now() - age)


def kept_keys():
    return sorted(IdempotencyRecord.objects.values_list("key", flat=True))


def test_pruning_deletes_the_records_older_than_24_hours_and_keeps_the_newer(keyed, session_id):
    record_aged(keyed, session_id, "day-old", timedelta(hours=24, minutes=1))
    record_aged(keyed, session_id, "fresh", timedelta(hours=23, minutes=59))

    deleted = prune()

    assert deleted == 1
    assert kept_keys() == ["fresh"]


def test_pruning_measures_age_from_the_time_it_is_given(keyed, session_id):
    record_aged(keyed, session_id, "recent", timedelta(hours=1))

    assert prune(now=timezone.now() + timedelta(hours=22)) == 0
    assert prune(now=timezone.now() + timedelta(hours=24)) == 1
    assert kept_keys() == []


def test_the_kept_time_follows_the_setting(keyed, session_id, settings):
    settings.HISTORYHUB_IDEMPOTENCY_TTL_HOURS = 48
    record_aged(keyed, session_id, "two-days-old", timedelta(hours=48, minutes=1))
    record_aged(keyed, session_id, "one-day-old", timedelta(hours=25))

    assert prune() == 1
    assert kept_keys() == ["one-day-old"]


def test_a_pruned_key_starts_a_new_request(api, keyed, session_id):
    record_aged(keyed, session_id, "turn-1", timedelta(days=2))
    prune()

    response = keyed("turn-1").post(f"sessions/{session_id}/items", {"items": [user("turn-1")]})

    assert response.json() == {"inserted": [True], "itemCount": 2}
    assert items_via_api(api, session_id) == [user("turn-1"), user("turn-1")]


def test_the_settings_refuse_to_keep_keys_less_than_24_hours(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=production_environment(tmp_path, HISTORYHUB_IDEMPOTENCY_TTL_HOURS="23"),
        capture_output=True,
        text=True,
    )

    assert result.returncode != 0
    assert "HISTORYHUB_IDEMPOTENCY_TTL_HOURS must be at least 24" in result.stderr
