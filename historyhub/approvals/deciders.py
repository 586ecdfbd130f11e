"""Who decides a client action, and the one rule that says whether they may (docs/api.md, "Who may decide").

The API, the dashboard and the admin make a ``Decider`` for whoever asks and
hand it to ``client_actions.decide``, which asks ``check`` here with the action
locked; the pages ask ``reason_not_to_decide`` to show or hide the buttons.
Nothing else decides whether a decision is allowed. The action's policy is the
one copied onto it when it opened (``ClientAction.policy``): a later edit of the
project's policies changes nothing here.
"""

from dataclasses import dataclass, field

from historyhub.apikeys.models import Scope
from historyhub.history.errors import Forbidden, SessionNotFound
from historyhub.projects import access, keys
from historyhub.projects.models import Group, Role

OPENER_MESSAGE = "The key that opened this action cannot decide it."
ROLE_MESSAGE = "Deciding client actions needs the approver or admin role in this project; ask one of its admins."
PEOPLE_ONLY_MESSAGE = "Only people may decide this action."


@dataclass(frozen=True)
class Decider:
    """A person (``user``) or an API key (``api_key``); ``name`` is how a decision of theirs is recorded, and
    ``via`` the channel it came through (``dashboard``, ``slack``, ``email``, ``api``, ``admin``): the same
    person is one decider whatever the channel."""

    name: str
    user: object = None
    api_key: object = None
    via: str = "dashboard"
    # A person's role and groups in a project, looked up once: a page asking about fifty actions asks the
    # database twice, not a hundred times. A decider lives for one request.
    _looked_up: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def person(cls, user, via="dashboard"):
        return cls(name=user.get_username(), user=user, via=via)

    @classmethod
    def key(cls, api_key, via="api"):
        return cls(name=f"api key: {api_key.name}", api_key=api_key, via=via)

    def reason_not_to_decide(self, action):
        """Why this decider may not decide ``action``, or None when they may."""
        project = keys.project_of(action.session_id)
        policy = action.policy
        if self.api_key is not None:
            if not self.api_key.allows(Scope.DECIDE):
                return "Deciding client actions needs an API key with the decide scope."
            if action.opened_by_key_id == self.api_key.pk:
                return OPENER_MESSAGE
            if policy is not None and policy["peopleOnly"]:
                return PEOPLE_ONLY_MESSAGE
            return None
        role = self._once(("role", project), lambda: access.role_of(self.user, project))
        if not access.grants(role, Role.APPROVER):
            return ROLE_MESSAGE
        groups = deciding_groups(action)
        if groups and not self._once(("groups", project), lambda: self._groups_in(project)).intersection(groups):
            return f'The policy "{policy["name"]}" lets only members of {", ".join(groups)} decide this action.'
        return None

    def _once(self, key, look_up):
        if key not in self._looked_up:
            self._looked_up[key] = look_up()
        return self._looked_up[key]

    def _groups_in(self, project):
        return set(Group.objects.filter(project=project, members=self.user).values_list("name", flat=True))


def deciding_groups(action):
    """The groups whose members may decide the action, or () when every approver may: its policy's approver
    groups, and once the sweep escalated it, the groups it escalates to."""
    policy = action.policy
    if policy is None or not policy["approverGroups"]:
        return ()
    groups = list(policy["approverGroups"])
    if action.escalated_at is not None:
        groups += [group for group in policy["escalateTo"] if group not in groups]
    return tuple(groups)


def check(decider, action):
    """Raise ``Forbidden`` unless ``decider`` may decide ``action``."""
    project = keys.project_of(action.session_id)
    if decider.api_key is not None and decider.api_key.project_id != project:
        # The API scopes every key to its project; an action of another project does not exist for it.
        raise SessionNotFound(action.session_id)
    reason = decider.reason_not_to_decide(action)
    if reason is not None:
        raise Forbidden(reason)
