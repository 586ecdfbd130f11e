"""Who decides a client action, and the one rule that says whether they may (docs/api.md, "Who may decide").

The API, the dashboard and the admin make a ``Decider`` for whoever asks and
hand it to ``client_actions.decide``, which asks ``check`` here with the action
locked; nothing else decides whether a decision is allowed.
"""

from dataclasses import dataclass

from historyhub.apikeys.models import Scope
from historyhub.history.errors import Forbidden, SessionNotFound
from historyhub.projects import access, keys
from historyhub.projects.models import Role

OPENER_MESSAGE = "The key that opened this action cannot decide it."
ROLE_MESSAGE = "Deciding client actions needs the approver or admin role in this project; ask one of its admins."


@dataclass(frozen=True)
class Decider:
    """A person (``user``) or an API key (``api_key``); ``name`` is how a decision of theirs is recorded."""

    name: str
    user: object = None
    api_key: object = None

    @classmethod
    def person(cls, user):
        return cls(name=user.get_username(), user=user)

    @classmethod
    def key(cls, api_key):
        return cls(name=f"api key: {api_key.name}", api_key=api_key)

    def reason_not_to_decide(self, action):
        """Why this decider may not decide ``action``, or None when they may."""
        project = keys.project_of(action.session_id)
        if self.api_key is not None:
            if not self.api_key.allows(Scope.DECIDE):
                return "Deciding client actions needs an API key with the decide scope."
            if action.opened_by_key_id == self.api_key.pk:
                return OPENER_MESSAGE
            return None
        if not access.may(self.user, project, Role.APPROVER):
            return ROLE_MESSAGE
        return None


def check(decider, action):
    """Raise ``Forbidden`` unless ``decider`` may decide ``action``."""
    project = keys.project_of(action.session_id)
    if decider.api_key is not None and decider.api_key.project_id != project:
        # The API scopes every key to its project; an action of another project does not exist for it.
        raise SessionNotFound(action.session_id)
    reason = decider.reason_not_to_decide(action)
    if reason is not None:
        raise Forbidden(reason)
