"""SQLite's change file: what other processes append reaches this process's subscribers, waking them well before
their wait would end (``woken``)."""

import asyncio
import os
import subprocess
import sys

import pytest

from historyhub.live.changes import Change, Interest
from historyhub.live.sqlite import ChangeFile, Watcher
from historyhub.live.subscriptions import Hub
from tests.support.servers import ROOT
from tests.support.waiting import woken


@pytest.fixture
def change_file(tmp_path):
    return ChangeFile(str(tmp_path / "db.sqlite3.changes"))


def listen_while(change_file, session_id, act):
    """What a subscriber of ``session_id`` hears while ``act`` runs, with a watcher on the file."""

    async def scenario():
        hub = Hub(lambda hub: Watcher(hub, change_file).start())
        async with hub.listen(Interest(session=session_id)) as changes:
            await asyncio.to_thread(act)
            heard = await woken(changes)
        hub.stop_signal()
        return heard

    return asyncio.run(scenario())


def append_in_another_process(change_file, session_id):
    code = (
        "from historyhub.live.changes import Change; from historyhub.live.sqlite import ChangeFile; "
        f"ChangeFile({change_file.path!r}).append(Change({session_id!r}))"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_a_line_another_process_appends_wakes_the_subscribers_of_its_session(change_file):
    heard = listen_while(change_file, "s 1", lambda: append_in_another_process(change_file, "s 1"))

    assert heard.session_ids == {"s 1"} and not heard.unknown


def test_a_file_replaced_under_the_watcher_wakes_everyone_to_look_again(change_file):
    def rotate():
        fresh = f"{change_file.path}.fresh"
        with open(fresh, "w"):
            pass
        os.replace(fresh, change_file.path)

    heard = listen_while(change_file, "s 1", rotate)

    assert heard.unknown


def test_the_file_starts_again_once_it_is_large(tmp_path):
    change_file = ChangeFile(str(tmp_path / "db.sqlite3.changes"), rotate_bytes=100)
    for number in range(5):
        change_file.append(Change(f"session-{number}"))

    assert os.path.getsize(change_file.path) <= 100
