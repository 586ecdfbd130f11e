"""Actions and items with known times, written as the import path writes them (rows with their own times), so the
expected numbers are computed here independently of the code under test."""

from datetime import UTC, datetime, timedelta

from historyhub.history import usage_hours
from historyhub.history.models import ClientAction, Item, Session
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.session_keys import DEFAULT_PROJECT

START = datetime(2026, 9, 1, tzinfo=UTC)


def session(session_id, agent="support", project=DEFAULT_PROJECT, metadata=None, at=START):
    made = Session.new(session_keys.session_key(project, session_id), agent=agent)
    made.metadata = metadata or {}
    made.save()
    # created_at is auto_now_add: set the seeded time afterwards.
    Session.objects.filter(pk=made.pk).update(created_at=at)
    tallied(sessions=Session.objects.filter(pk=made.pk))
    return made


def action(owner, call_id, name, opened, waited=None, decision="", by="", status=None, edited=False, **fields):
    """An action opened at START + ``opened`` and decided ``waited`` later (timedeltas)."""
    created = START + opened
    resolved = created + waited if waited is not None else None
    arguments = {"n": 1}
    fields.setdefault("resolved_at", resolved)
    made = ClientAction(
        session=owner,
        call_id=call_id,
        name=name,
        arguments_json=jsonvalues.dumps(arguments),
        created_at=created,
        resolved_by=by,
        decision=decision,
        status=status
        or {"approve": "approved", "reject": "rejected", "respond": "answered", "dismiss": "dismissed"}.get(
            decision, "waiting"
        ),
        **fields,
    )
    if decision == "approve":
        made.approved_arguments_json = jsonvalues.dumps({"n": 2} if edited else arguments)
    made.digest_arguments()
    made.save()
    tallied(actions=ClientAction.objects.filter(pk=made.pk))
    return made


def item(owner, position, at, data):
    made = Item.objects.create(
        session=owner,
        epoch=0,
        position=position,
        received_at=at,
        data=jsonvalues.dumps(data),
        usage_json=jsonvalues.dumps(data["usage"]) if "inputTokens" in data.get("usage", {}) else None,
    )
    tallied(items=Item.objects.filter(pk=made.pk))
    return made


def tallied(**rows):
    """A row written by hand is tallied as the migration tallies the rows it finds (the writes' own tallying is
    tests/history/test_usage_hours.py's)."""
    usage_hours.add(usage_hours.recounted(**rows))


def minutes(count):
    return timedelta(minutes=count)
