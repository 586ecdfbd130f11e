import json

from historyhub.history import item_log, sessions
from tests.support.items import user
from tests.support.readers import items_in_log


def append_in_batches(session_id, items, size=500):
    for start in range(0, len(items), size):
        item_log.append(session_id, items[start : start + size])


def test_it_reads_the_whole_log_chronologically(session_id):
    items = [user(str(n)) for n in range(5)]
    item_log.append(session_id, items)

    assert items_in_log(session_id) == items


def test_a_limit_reads_the_newest_items_in_chronological_order(session_id):
    items = [user(str(n)) for n in range(5)]
    item_log.append(session_id, items)

    assert items_in_log(session_id, limit=2) == items[3:]


def test_a_limit_larger_than_the_log_reads_everything(session_id):
    items = [user(str(n)) for n in range(3)]
    item_log.append(session_id, items)

    assert items_in_log(session_id, limit=10) == items


def test_a_limit_of_zero_reads_nothing(session_id):
    item_log.append(session_id, [user("hello")])

    assert items_in_log(session_id, limit=0) == []


def test_an_unknown_session_reads_as_empty(db):
    assert items_in_log("ses_unknown") == []
    assert items_in_log("ses_unknown", limit=3) == []


def test_reading_does_not_create_the_session(db):
    items_in_log("ses_unknown")

    assert not sessions.search("default", q="ses_unknown").exists()


def test_it_reads_logs_longer_than_one_chunk(session_id):
    items = [user(str(n)) for n in range(item_log.STREAM_CHUNK + 5)]
    append_in_batches(session_id, items)

    assert items_in_log(session_id) == items
    assert items_in_log(session_id, limit=item_log.STREAM_CHUNK + 1) == items[4:]


def test_newest_gives_the_newest_items_chronologically(session_id):
    items = [user(str(n)) for n in range(4)]
    item_log.append(session_id, items)
    session = sessions.get(session_id)

    assert item_log.newest(session, 2) == items[2:]
    assert item_log.newest(session, 0) == []
    assert item_log.newest(session, 9) == items


def test_a_read_started_before_an_append_does_not_see_it(session_id):
    items = [user(str(n)) for n in range(item_log.STREAM_CHUNK + 5)]
    append_in_batches(session_id, items)
    reading = item_log.iter_item_texts(session_id)
    first = next(reading)

    item_log.append(session_id, [user("appended while reading")])

    assert [json.loads(text) for text in [first, *reading]] == items
