"""Caps for the whole installation (historyhub.live.holds): places counted in the database, whichever process holds
them, under a lock on their owner."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from historyhub.live import TooMany, holds
from historyhub.serving.models import Hold

pytestmark = pytest.mark.django_db(transaction=True)

OWNER = "waits key:7"


@pytest.fixture(autouse=True)
def released():
    """This process's places given back after each test, so its renewing thread has nothing left to renew."""
    yield
    for place in Hold.objects.filter(process=holds.process_name()).values_list("pk", flat=True):
        holds.release(place)


def another_process_holds(owner, renewed_ago=0):
    """A place held by a server process elsewhere, renewed ``renewed_ago`` seconds ago."""
    renewed_at = timezone.now() - timedelta(seconds=renewed_ago)
    return Hold.objects.create(owner=owner, process="elsewhere:4242:abcd", renewed_at=renewed_at)


def test_an_owner_takes_places_up_to_its_cap_and_no_more():
    places = [holds.acquire(OWNER, 2), holds.acquire(OWNER, 2)]
    with pytest.raises(TooMany) as refused:
        holds.acquire(OWNER, 2)
    assert refused.value.limit == 2
    assert Hold.objects.filter(owner=OWNER).count() == 2
    assert len(set(places)) == 2


def test_places_held_by_another_server_count():
    another_process_holds(OWNER)
    holds.acquire(OWNER, 2)
    with pytest.raises(TooMany):
        holds.acquire(OWNER, 2)


def test_another_owner_has_its_own_places():
    holds.acquire(OWNER, 1)
    holds.acquire("waits key:8", 1)
    holds.acquire("streams user:7", 1)
    assert Hold.objects.count() == 3


def test_a_released_place_is_free_again():
    place = holds.acquire(OWNER, 1)
    holds.release(place)
    assert holds.acquire(OWNER, 1) != place


def test_a_place_of_a_process_that_stopped_renewing_counts_no_more():
    just_stale = another_process_holds(OWNER, renewed_ago=holds.STALE_SECONDS + 1)
    holds.acquire(OWNER, 1)
    assert not Hold.objects.filter(pk=just_stale.pk).exists()


def test_a_place_renewed_just_within_the_window_still_counts():
    another_process_holds(OWNER, renewed_ago=holds.STALE_SECONDS - 2)
    with pytest.raises(TooMany):
        holds.acquire(OWNER, 1)


def test_many_takers_at_once_get_exactly_the_cap():
    taken, refused = [], []
    start = threading.Barrier(6)

    def take():
        start.wait()
        try:
            taken.append(holds.acquire(OWNER, 3))
        except TooMany:
            refused.append(True)
        finally:
            connection.close()

    takers = [threading.Thread(target=take) for _ in range(6)]
    for taker in takers:
        taker.start()
    for taker in takers:
        taker.join()
    assert len(taken) == 3
    assert len(refused) == 3
    assert Hold.objects.filter(owner=OWNER).count() == 3


def test_places_given_back_together_are_all_deleted_and_free_again():
    places = [holds.acquire(OWNER, 5) for _ in range(5)]
    for place in places:
        holds.release_soon(place)
    # Deleted on the releasing thread, a batch at a time; it ends once the queue has been empty a second.
    for _ in range(300):
        if not Hold.objects.filter(pk__in=places).exists():
            break
        time.sleep(0.1)
    assert not Hold.objects.filter(pk__in=places).exists()
    assert len({holds.acquire(OWNER, 5) for _ in range(5)}) == 5
