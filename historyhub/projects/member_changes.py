"""What watches over a change of a project's members, roles or groups (docs/projects.md).

Rules that live above projects (approvals: a policy must stay satisfiable, and waiting actions nobody may decide
any more are flagged) wrap every such change and may refuse it; they register here when their app starts
(``ready``), so projects imports none of them. ``administration`` runs each change inside ``changing(project)``
and asks ``uses_of_group`` before a group is deleted.
"""

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

from django.db import transaction

# Each wraps a change of a project's (its id) members, roles or groups; raising refuses it (it rolls back whole).
Guard = Callable[[str], AbstractContextManager[None]]
# Each names what uses a group of a project, as (kind, name) pairs: ("policy", "deploys").
GroupUsers = Callable[[str, str], list[tuple[str, str]]]

_guards: list[Guard] = []
_group_users: list[GroupUsers] = []


def guard_with(guard: Guard) -> None:
    """Wrap every later change of members, roles or groups in ``guard`` (once, however often it is registered)."""
    if guard not in _guards:
        _guards.append(guard)


def group_used_by(users: GroupUsers) -> None:
    """Ask ``users`` what uses a group before it is deleted (once, however often it is registered)."""
    if users not in _group_users:
        _group_users.append(users)


@contextmanager
def changing(project: str) -> Iterator[None]:
    """Run a change of ``project``'s (its id) members, roles or groups in one transaction, inside every guard."""
    with transaction.atomic(), ExitStack() as guards:
        for guard in _guards:
            guards.enter_context(guard(project))
        yield


def uses_of_group(project: str, group: str) -> list[tuple[str, str]]:
    """What uses ``project``'s group ``group``, as (kind, name) pairs; a group with uses may not be deleted."""
    return [use for users in _group_users for use in users(project, group)]
