"""Child sessions: the ``subagent`` entry a child puts in its parent's timeline,
and how a child's run status reaches the parent."""

from historyhub.history.dialects import base
from historyhub.history.models import RunStatus

CHILD_STATUS = {"completed": "completed", "paused": "paused", "failed": "failed"}
FINISHED = (RunStatus.COMPLETED, RunStatus.FAILED)


def entry_data(child):
    """The parent's subagent entry for a child session in its current state."""
    status = CHILD_STATUS.get(child.run_status or "", "running")
    return {
        "name": child.agent,
        "callId": child.parent_call_id,
        "childSessionId": child.session_id,
        "status": status,
        "summary": f"{child.agent} {status}.",
    }


def child_opened(parent, child):
    """A new child session: its entry in the parent's timeline; the parent now waits for it."""
    key = f"subagent:{child.parent_call_id}"
    call_id = base.stored_call_id(child.parent_call_id)
    parent.timeline.add(key, "subagent", entry_data(child), parent.now, parent.take_position(), call_id=call_id)
    if parent.session.run_status in (None, RunStatus.RUNNING):
        parent.set_run_status(RunStatus.WAITING_FOR_SUBAGENT)


def child_changed(parent, child):
    """A child's run status changed: its entry follows, and the parent runs again once every child is done."""
    entry = parent.timeline.get(f"subagent:{child.parent_call_id}")
    if entry is not None:
        parent.change_entry(entry, entry_data(child))
    session = parent.session
    if (
        session.run_status == RunStatus.WAITING_FOR_SUBAGENT
        and child.run_status in FINISHED
        and not session.children.exclude(pk=child.pk).exclude(run_status__in=FINISHED).exists()
    ):
        parent.set_run_status(RunStatus.RUNNING)
