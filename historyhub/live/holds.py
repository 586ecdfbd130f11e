"""Caps on waits and live streams for the whole installation, counted in the database (docs/live-updates.md, "Caps").

Each wait (per API key) and each live stream (per person) holds a ``Hold`` row
while it is open, whichever server process holds it. Taking one counts the
owner's rows under a lock on the owner (a transaction-level advisory lock on
PostgreSQL, which a transaction pooler keeps; SQLite's write lock, which every
writing transaction takes at once), so two servers cannot both take the last
place. A process renews its rows every ``RENEW_SECONDS``; a row not renewed for
``STALE_SECONDS`` belongs to a process that died, and counts no more.
"""

import logging
import os
import queue
import secrets
import socket
import threading
from datetime import timedelta

from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from historyhub.live.subscriptions import TooMany

logger = logging.getLogger(__name__)

RENEW_SECONDS = 10
STALE_SECONDS = 30
# Places given back at once (a burst of waits answered together) are deleted this many to a statement.
RELEASE_BATCH = 500

_lock = threading.Lock()
_held: set[int] = set()
_pid = 0
_name = ""
_renewer: threading.Thread | None = None
_releases: queue.SimpleQueue[int] = queue.SimpleQueue()
_releaser: threading.Thread | None = None


# The model that keeps the holds (owner, process, renewed_at): ``serving.models.Hold``, which the serving app, above
# live, registers when it starts (``ServingConfig.ready``). Not imported here: live sits below serving, and this
# module is imported with historyhub.live by the server's worker class, before Django has loaded the apps.
_kept_in: type[models.Model] | None = None


def kept_in(model: type[models.Model]) -> None:
    """Keep the holds in ``model`` from now on."""
    global _kept_in
    _kept_in = model


def _rows() -> models.Manager:
    if _kept_in is None:
        raise ImproperlyConfigured("No model keeps the holds: the serving app registers it when it starts.")
    return _kept_in._default_manager


def process_name() -> str:
    """This process, as its rows name it: made again in a forked child, which is another process."""
    global _pid, _name
    with _lock:
        if _pid != os.getpid():
            _pid, _name = os.getpid(), f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        return _name


def acquire(owner: str, limit: int) -> int:
    """Take a place of ``owner``'s ``limit``; raises ``TooMany`` when the installation holds ``limit`` already."""
    now = timezone.now()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"historyhub hold {owner}"])
        _rows().filter(owner=owner, renewed_at__lt=now - timedelta(seconds=STALE_SECONDS)).delete()
        if _rows().filter(owner=owner).count() >= limit:
            raise TooMany(limit)
        hold = _rows().create(owner=owner, process=process_name(), renewed_at=now)
    _start_renewing(hold.pk)
    return hold.pk


def release(pk: int) -> None:
    with _lock:
        _held.discard(pk)
    try:
        _rows().filter(pk=pk).delete()
    finally:
        if not connection.in_atomic_block:
            connection.close()


def release_soon(pk: int) -> None:
    """Give the place back without waiting: on the process's releasing thread, which deletes every place given
    back meanwhile in one statement. A thread each would be thousands of threads, and of connections, when a
    burst of waits is answered together."""
    global _releaser
    with _lock:
        # Renewed no more from now on.
        _held.discard(pk)
        _releases.put(pk)
        if _releaser is None or not _releaser.is_alive():
            _releaser = threading.Thread(target=_release_queued, name="historyhub-release", daemon=True)
            _releaser.start()


def _release_queued() -> None:
    """Delete the places queued, a batch at a time, until none is left for a second; then end (the next release
    starts another)."""
    global _releaser
    while True:
        try:
            batch = [_releases.get(timeout=1)]
        except queue.Empty:
            with _lock:
                if _releases.empty():
                    _releaser = None
                    return
            continue
        while len(batch) < RELEASE_BATCH:
            try:
                batch.append(_releases.get_nowait())
            except queue.Empty:
                break
        try:
            _rows().filter(pk__in=batch).delete()
        except DatabaseError:
            # The database is away: the rows are renewed no more and go stale within STALE_SECONDS.
            pass
        except Exception:
            # Anything else is a bug: said, and the thread goes on, as the next batch may well be released.
            logger.exception("Could not release %d places of waits", len(batch))
        finally:
            connection.close()


def _start_renewing(pk: int) -> None:
    global _renewer
    with _lock:
        _held.add(pk)
        if _renewer is None or not _renewer.is_alive():
            _renewer = threading.Thread(target=_renew, name="historyhub-holds", daemon=True)
            _renewer.start()


def _renew() -> None:
    """Renew this process's rows while it holds any; then end (the next hold starts another)."""
    stop = threading.Event()
    while not stop.wait(RENEW_SECONDS):
        with _lock:
            held = list(_held)
        if not held:
            return
        try:
            # A row gone (its wait ended meanwhile, or another process found it stale) is renewed no more.
            alive = set(_rows().filter(pk__in=held).values_list("pk", flat=True))
            with _lock:
                _held.intersection_update(alive | (_held - set(held)))
            _rows().filter(pk__in=alive).update(renewed_at=timezone.now())
        except DatabaseError:
            # The database is away: the rows may go stale, and the caps give way rather than refuse.
            pass
        except Exception:
            # Anything else is a bug: said, and renewing goes on, as a renewer that ended would leave every place
            # this process holds to go stale.
            logger.exception("Could not renew %d places of waits", len(held))
        finally:
            connection.close()
