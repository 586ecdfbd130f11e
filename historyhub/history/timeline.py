"""The timeline as one write sees it: the entries it reads, adds, changes and removes,
written back in a few statements when the write finishes.

Nothing inside a write changes a timeline entry except through this writer
(``Write.timeline``): it keeps what it has read, so a change behind its back
would be lost or undone when it flushes.

Entries are read once per write (a batch reads every entry of the calls it
touches in one query) and kept here, so an output completing a call appended
in the same batch never goes back to the database. Timeline entries are
stored in their wire shape (docs/architecture.md, "Timeline entries").
"""

from django.db.models import F

from historyhub.history import matching
from historyhub.history.models import TimelineEntry
from historyhub.lib import bulk, jsonvalues

# What a write reads of an entry.
READ = ("pk", "epoch", "seq", "order", "key", "type", "call_id", "source_position", "created_at", "data", "text")
# What a write inserts: the entry but its pk (the database gives it), its session and the version that shows it changed.
_COLUMNS = ("session_id", *READ[1:], "changed_version")


class Entry:
    """A timeline entry with its data parsed; ``pk`` is None until it is written."""

    __slots__ = READ

    def __init__(self, *, pk, epoch, seq, order, key, type, call_id, source_position, created_at, data, text):
        self.pk = pk
        self.epoch = epoch
        self.seq = seq
        self.order = order
        self.key = key
        self.type = type
        self.call_id = call_id
        self.source_position = source_position
        self.created_at = created_at
        self.data = data
        self.text = text

    @classmethod
    def from_values(cls, values):
        """An entry from ``QuerySet.values(*READ)``: no model instance in between."""
        return cls(**{**values, "data": jsonvalues.loads(values["data"])})

    def stored_data(self):
        return jsonvalues.dumps(self.data)


class TimelineWriter:
    def __init__(self, session, version):
        self.session = session
        self.version = version
        self._by_key = {}
        self._by_call = {}
        self._loaded_calls = set()
        self._new = []
        self._changed = {}

    # Reading -----------------------------------------------------------------------------

    def load_calls(self, call_ids):
        """Read every current entry of these calls in one query."""
        wanted = set(call_ids) - self._loaded_calls
        if not wanted:
            return
        self._loaded_calls |= wanted
        rows = TimelineEntry.objects.filter(session=self.session, epoch=self.session.epoch, call_id__in=wanted).exclude(
            call_id=""
        )  # The index's own condition, which lets SQLite use it.
        # Sorted here: an ORDER BY seq would tempt PostgreSQL to walk the session's whole timeline
        # in seq order instead of looking the calls up.
        for values in sorted(rows.values(*READ), key=lambda values: values["seq"]):
            self._remember(Entry.from_values(values))

    def get(self, key):
        """The current epoch's entry with this key, or None."""
        if key not in self._by_key:
            values = (
                TimelineEntry.objects.filter(session=self.session, epoch=self.session.epoch, key=key)
                .values(*READ)
                .first()
            )
            self._by_key[key] = Entry.from_values(values) if values is not None else None
        return self._by_key[key]

    def newest_for_call(self, call_id, types=("action", "client_action")):
        """The newest entry of the current epoch that shows this call."""
        self.load_calls([call_id])
        for entry in reversed(self._by_call.get(call_id, ())):
            if entry.type in types:
                return entry
        return None

    def _key_taken(self, key, call_id):
        if call_id and call_id in self._loaded_calls:
            return any(entry.key == key for entry in self._by_call.get(call_id, ()))
        return self.get(key) is not None

    def _remember(self, entry):
        self._by_key[entry.key] = entry
        if entry.call_id:
            self._by_call.setdefault(entry.call_id, []).append(entry)

    # Writing -----------------------------------------------------------------------------

    def add(self, key, entry_type, data, created_at, order, *, source_position=None, text="", call_id=""):
        """A new entry at the end of the current epoch.

        History item ids are unique within an epoch: when an earlier entry has
        the id (agents repeat call ids and item ids), the new one is told apart
        by the position that placed it, ``<id>#<position>``.
        """
        if not key.startswith("message:") and self._key_taken(key, call_id):
            key = f"{key}#{order}"
        self.session.history_count += 1
        entry = Entry(
            pk=None,
            epoch=self.session.epoch,
            seq=self.session.history_count,
            order=order,
            key=key,
            type=entry_type,
            call_id=call_id,
            source_position=source_position,
            created_at=created_at,
            data=data,
            text=text,
        )
        self._remember(entry)
        self._new.append(entry)
        return entry

    def change(self, entry, changes, remove=()):
        entry.data.update(changes)
        for name in remove:
            entry.data.pop(name, None)
        if entry.pk is not None:
            self._changed[entry.pk] = entry

    def restore(self, epoch, key, data_text):
        """An entry's data as it was before (a pop takes a change back)."""
        self.flush()
        TimelineEntry.objects.filter(session=self.session, epoch=epoch, key=key).update(
            data=data_text, changed_version=self.version
        )
        self._forget()

    def remove_placed_by(self, position):
        """Remove the current epoch's entries that the log item at ``position`` placed; returns their keys.

        Entries after each removed one move up, so ranks stay dense (history pages rely on it).
        """
        self.flush()
        session = self.session
        placed = TimelineEntry.objects.filter(session=session, epoch=session.epoch, source_position=position)
        keys = list(placed.values_list("key", flat=True))
        removed = sorted(placed.values_list("seq", flat=True), reverse=True)
        if removed:
            placed.delete()
            for seq in removed:
                TimelineEntry.objects.filter(session=session, epoch=session.epoch, seq__gt=seq).update(seq=F("seq") - 1)
            session.history_count -= len(removed)
        self._forget()
        return keys

    def remove(self, key):
        """Remove the current epoch's entry with this key, keeping the rest in order."""
        self.flush()
        TimelineEntry.objects.filter(session=self.session, epoch=self.session.epoch, key=key).delete()
        self._forget()
        self.resequence()

    def remove_logged(self):
        """Remove the current epoch's entries that log items placed (a truncation), keeping the rest in order."""
        self.flush()
        session = self.session
        TimelineEntry.objects.filter(session=session, epoch=session.epoch, source_position__isnull=False).delete()
        self._forget()
        self.resequence()

    def carry_into_current_epoch(self, keys, epoch):
        """Entries of an archived ``epoch`` that stay in view after a compaction (waiting client actions)."""
        self.flush()
        TimelineEntry.objects.filter(session=self.session, epoch=epoch, key__in=keys).update(
            epoch=self.session.epoch, changed_version=self.version
        )
        self._forget()
        self.resequence()

    def resequence(self):
        """Number the current epoch's entries 1…n in order again; the session's count follows."""
        self.flush()
        session = self.session
        entries = list(TimelineEntry.objects.filter(session=session, epoch=session.epoch).order_by("order", "pk"))
        for seq, entry in enumerate(entries, start=1):
            entry.seq = seq
        TimelineEntry.objects.bulk_update(entries, ["seq"], batch_size=500)
        session.history_count = len(entries)
        self._forget()

    def clear(self):
        """Remove every entry of the session, in every epoch."""
        self.flush()
        TimelineEntry.objects.filter(session=self.session).delete()
        self.session.history_count = 0
        self._forget()

    def _forget(self):
        """What was read before a change in the database is not to be trusted after it."""
        self._by_key, self._by_call, self._loaded_calls = {}, {}, set()

    def flush(self):
        """Write the new and changed entries: one statement each, whatever their number."""
        if self._new:
            session_id, version = self.session.pk, self.version
            first_seq = self._new[0].seq
            # Most entries of a batch share one time (when it arrived): adapted once.
            times = {}
            for entry in self._new:
                if entry.created_at not in times:
                    times[entry.created_at] = bulk.datetime_value(entry.created_at)
            bulk.insert(
                TimelineEntry,
                _COLUMNS,
                [
                    (
                        session_id,
                        entry.epoch,
                        entry.seq,
                        entry.order,
                        entry.key,
                        entry.type,
                        entry.call_id,
                        entry.source_position,
                        times[entry.created_at],
                        entry.stored_data(),
                        entry.text,
                        version,
                    )
                    for entry in self._new
                ],
            )
            matching.index_new_entries(self.session, self._new[0].epoch, first_seq - 1)
        if self._changed:
            bulk.update(
                TimelineEntry,
                ("data", "changed_version"),
                [(entry.stored_data(), self.version, pk) for pk, entry in self._changed.items()],
            )
        self._new, self._changed = [], {}
