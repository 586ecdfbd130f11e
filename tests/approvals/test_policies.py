"""Editing a project's policies (``policies.edit``, what the dashboard's policies page calls): the list is read
and replaced under the project's lock, so two edits at once each change what the other left."""

import threading

import pytest
from django.db import connection

from historyhub.approvals import policies

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(work):
    """``work`` on a connection of its own, as another server worker would."""

    def run():
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def adding(name):
    return lambda items: [*items, {"name": name}]


def test_an_edit_waits_for_the_one_under_way_and_changes_the_list_that_one_left():
    read, release = threading.Event(), threading.Event()

    def add_first_once_released(items):
        read.set()
        assert release.wait(10)
        return adding("first")(items)

    first = in_thread(lambda: policies.edit("default", add_first_once_released, actor="ada"))
    assert read.wait(10)
    second = in_thread(lambda: policies.edit("default", adding("second"), actor="ben"))
    second.join(0.5)
    assert second.is_alive(), "the second edit went ahead while the first had read the list"
    release.set()
    first.join(10)
    second.join(10)

    assert not first.is_alive() and not second.is_alive()
    assert [policy["name"] for policy in policies.listing("default")] == ["first", "second"]
