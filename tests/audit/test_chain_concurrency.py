"""Many processes writing the audit log at once, as separate server workers would, each with its own database
connection: every row is linked once its change commits, and each project keeps one unbroken chain, with no gap
and no fork (docs/data.md, "The chain"). Run on SQLite and on PostgreSQL (DATABASE_URL)."""

import pytest
from django.contrib.auth.models import User
from django.db import transaction

from historyhub.approvals import batch
from historyhub.approvals.deciders import Decider
from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditChainHead, AuditEntry
from historyhub.history import client_actions, sessions
from historyhub.lib import session_keys
from historyhub.projects import administration
from historyhub.projects.models import Project, Role
from tests.support.actors import make_approver, make_member
from tests.support.processes import PROCESSES, run_together

pytestmark = pytest.mark.django_db(transaction=True)

CHANGES = 12


class Refused(Exception):
    pass


def append(index):
    """Changes of both projects: some write two rows, some are refused and write none, some write one."""
    for change in range(CHANGES):
        project = ("default", "acme")[change % 2]
        if change % 3 == 0:
            with transaction.atomic():
                audit_log.record(project, f"worker{index}", "export", change=change)
                audit_log.record(project, f"worker{index}", "import", change=change)
        elif change % 3 == 1:
            try:
                with transaction.atomic():
                    audit_log.record(project, f"worker{index}", "export", change=change)
                    raise Refused
            except Refused:
                pass
        else:
            audit_log.record(project, f"worker{index}", "export", change=change)


def assert_one_unbroken_chain(project, rows):
    # Linked by their own commits: nothing was read, and nothing links them here.
    assert not AuditEntry.objects.filter(project=project, seq__isnull=True).exists()
    chained = list(AuditEntry.objects.filter(project=project).order_by("seq"))
    assert [entry.seq for entry in chained] == list(range(1, rows + 1))
    assert [entry.prev_hash for entry in chained[1:]] == [entry.hash for entry in chained[:-1]]
    head = AuditChainHead.objects.get(project=project)
    assert (head.seq, head.hash) == (rows, chained[-1].hash)
    assert chain.verify(project) == chain.Verdict(rows=rows)


def test_eight_processes_appending_at_once_leave_one_unbroken_chain_per_project():
    administration.create_project("acme", "Acme")

    run_together(append)

    # Per process and project: two changes of two rows and two of one.
    for project in ("default", "acme"):
        assert_one_unbroken_chain(project, PROCESSES * 6)


@pytest.fixture
def waiting_everywhere():
    """An action waiting in each of PROCESSES sessions, approvers to decide them, and viewers to promote."""
    for index in range(PROCESSES):
        make_approver(f"approver{index}")
        make_member(f"viewer{index}", Role.VIEWER)
        sessions.ensure(agent="supportAgent", session_id=f"s{index}")
        client_actions.open_action(f"s{index}", call_id="c1", name="issue_refund", arguments={"amount": index})


def decide_or_change_members(index):
    """Even workers decide batches that overlap their neighbour's (session locks, one by one, an audit row after
    each); odd ones change members (the project's policies are checked again and rows recorded) at the same time."""
    if index % 2:
        project = Project.objects.get(pk="default")
        administration.set_member(project, f"viewer{index}", Role.APPROVER, actor="ada")
        administration.set_member(project, f"viewer{index}", Role.VIEWER, actor="ada")
        return "members"
    keys = [(session_keys.session_key("default", f"s{(index + step) % PROCESSES}"), "c1") for step in range(3)]
    person = Decider.person(User.objects.get(username=f"approver{index}"))
    batch.decide(keys, decision="approve", comment="", decider=person)
    return "decided"


def test_batch_decisions_and_member_changes_at_once_neither_deadlock_nor_break_the_chain(waiting_everywhere):
    outcomes = run_together(decide_or_change_members)

    assert sorted(outcomes.values()) == ["decided"] * (PROCESSES // 2) + ["members"] * (PROCESSES // 2)
    # The batches cover every session; an action a batch finds decided the same way is left as it is.
    assert AuditEntry.objects.filter(action="decision").count() == PROCESSES
    assert AuditEntry.objects.filter(action="member.set").count() == 2 * (PROCESSES // 2)
    assert_one_unbroken_chain("default", AuditEntry.objects.filter(project="default").count())
