"""Which rule governs a client action that opens (docs/api.md, "Who may decide: approval policies").

The rule lives above history: approvals copies the project's policy that governs the action onto it (a later edit
does not change it) and sets when the sweep escalates it. It registers here when its app starts
(``ApprovalsConfig.ready``), so history imports none of it. ``client_actions.open_in`` asks ``govern`` for every
action it opens, and an import for every waiting action it recreates (``replay``).
"""

from collections.abc import Callable
from datetime import datetime

from django.core.exceptions import ImproperlyConfigured

from historyhub.history.models import ClientAction

# Sets ``action``'s policy and escalation, given its project (its id), its session's agent and when it opens.
Governor = Callable[[ClientAction, str, str, datetime], None]

_governor: Governor | None = None


def governed_by(governor: Governor) -> None:
    """Let ``governor`` govern every action that opens from now on."""
    global _governor
    _governor = governor


def govern(action: ClientAction, project: str, agent: str, created_at: datetime) -> None:
    """Govern ``action`` by the registered rule. Without one, nothing could say who may decide an action: an action
    opened ungoverned would let anyone approve what a policy reserves, so opening refuses instead."""
    if _governor is None:
        raise ImproperlyConfigured("No rule governs client actions: the approvals app registers it when it starts.")
    _governor(action, project, agent, created_at)
