"""Who decides a client action, and the one rule that says whether they may (docs/api.md, "Who may decide").

The API, the dashboard and the admin make a ``Decider`` for whoever asks and
hand it to ``client_actions.decide``, which asks ``check`` here with the action
locked; nothing else decides whether a decision is allowed.
"""

from dataclasses import dataclass

from historyhub.apikeys.models import Scope
from historyhub.history.errors import Forbidden

DECIDE_PERMISSION = "history.decide_clientaction"
OPENER_MESSAGE = "The key that opened this action cannot decide it."


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


def check(decider, action):
    """Raise ``Forbidden`` unless ``decider`` may decide ``action``."""
    if decider.api_key is not None:
        if not decider.api_key.allows(Scope.DECIDE):
            raise Forbidden("Deciding client actions needs an API key with the decide scope.")
        if action.opened_by_key_id == decider.api_key.pk:
            raise Forbidden(OPENER_MESSAGE)
        return
    if not decider.user.has_perm(DECIDE_PERMISSION):
        raise Forbidden("Deciding client actions needs the Approvers group (the decide_clientaction permission).")
