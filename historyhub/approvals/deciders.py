"""Who decides a client action, and the one rule that says whether they may (docs/api.md, "Who may decide").

The API, the dashboard and the admin make a ``Decider`` for whoever asks and
hand it to ``deciding.decide``, which asks ``check`` here with the action
locked; the pages ask ``reason_not_to_decide`` to show or hide the buttons, and
counting asks it again of every vote (``why_not_counted``): a vote counts while
its decider may decide. Nothing else decides whether a decision is allowed.

The policy a decision is judged under is the action's own, copied onto it when
it opened (``ClientAction.policy``: a later edit of the project's policies
changes nothing for it), except for an approve with edited arguments: those are
judged under the policy that governs them, as if the agent had asked for them
(``policy_for``).
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

from django.contrib.auth.models import User
from django.utils import timezone

from historyhub.apikeys.models import ApiKey, Scope
from historyhub.approvals import policies
from historyhub.approvals.models import Own, PolicyChoice, PolicyDict, Via, Vote
from historyhub.history.models import ClientAction
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.errors import Forbidden
from historyhub.projects import access
from historyhub.projects.models import Group, Role

OPENER_MESSAGE = "The key that opened this action cannot decide it."
ROLE_MESSAGE = "Deciding client actions needs the approver or admin role in this project; ask one of its admins."
PEOPLE_ONLY_MESSAGE = "Only people may decide this action."
SCOPE_MESSAGE = "Deciding client actions needs an API key with the decide scope."
REVOKED_MESSAGE = "The key was revoked."
DEACTIVATED_MESSAGE = "The person's account was deactivated."
UNKNOWN_MESSAGE = "Its decider is not a person or key of this installation (a deleted one, or an imported vote)."
# The policy the action opened under, whatever the arguments (the default of the rule's ``policy``).
OWN: Final = Own.OWN
# How ``voters`` knows a decider: ("person", user id) or ("key", key id).
Identity = tuple[str, int | None]


@dataclass(frozen=True)
class Decider:
    """A person (``user``) or an API key (``api_key``); ``name`` is how a decision of theirs is recorded, and
    ``via`` the channel it came through (``dashboard``, ``slack``, ``email``, ``api``, ``admin``): the same
    person is one decider whatever the channel, and a key a person made on the settings page decides as them
    (``identity``)."""

    name: str
    user: User | None = None
    api_key: ApiKey | None = None
    via: str = Via.DASHBOARD
    # A person's role and groups in a project, looked up once: a page asking about fifty actions asks the
    # database twice, not a hundred times. A decider lives for one request.
    _roles: dict[str, str | None] = field(default_factory=dict, init=False, compare=False, repr=False)
    _groups: dict[str, set[str]] = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def person(cls, user: User, via: str = Via.DASHBOARD) -> "Decider":
        return cls(name=user.get_username(), user=user, via=via)

    @classmethod
    def key(cls, api_key: ApiKey, via: str = Via.API) -> "Decider":
        return cls(name=f"api key: {api_key.name}", api_key=api_key, via=via)

    @property
    def identity(self) -> tuple[User | None, ApiKey | None]:
        """Who the decider is, as a vote records it: (the person, None), the person a key's maker is
        (maker, key), or (None, key) for a key an operator made."""
        if self.api_key is None:
            return self.user, None
        return self.api_key.created_by, self.api_key

    def reason_not_to_decide(self, action: ClientAction, policy: PolicyChoice = OWN) -> str | None:
        """Why this decider may not decide ``action`` under ``policy`` (by default its own; ``policy_for`` gives
        the one that governs edited arguments), or None when they may."""
        project = session_keys.project_of(action.session_id)
        own = policy is OWN
        policy = resolved(action, policy)
        if self.api_key is not None:
            if self.api_key.is_revoked:
                return REVOKED_MESSAGE
            if not self.api_key.allows(Scope.DECIDE):
                return SCOPE_MESSAGE
            if action.opened_by_key_id == self.api_key.pk:
                return OPENER_MESSAGE
            if policy is not None and policy["peopleOnly"]:
                return PEOPLE_ONLY_MESSAGE
            return None
        user = self.user
        if user is None:
            raise TypeError("A decider is a person or an API key.")
        if not user.is_active:
            return DEACTIVATED_MESSAGE
        if not access.grants(self._role_in(user, project), Role.APPROVER):
            return ROLE_MESSAGE
        groups = deciding_groups(action, OWN if own else policy)
        if groups and policy is not None and not self._groups_in(user, project).intersection(groups):
            what = "this action" if own else "these arguments"
            return f'The policy "{policy["name"]}" lets only members of {", ".join(groups)} decide {what}.'
        return None

    def _role_in(self, user: User, project: str) -> str | None:
        if project not in self._roles:
            self._roles[project] = access.role_of(user, project)
        return self._roles[project]

    def _groups_in(self, user: User, project: str) -> set[str]:
        if project not in self._groups:
            self._groups[project] = set(
                Group.objects.filter(project=project, members=user).values_list("name", flat=True)
            )
        return self._groups[project]

    def knowing(self, project: str, role: str | None, groups: set[str]) -> "Decider":
        """The decider with the person's role and groups in ``project`` already looked up (``voters``)."""
        self._roles[project] = role
        self._groups[project] = groups
        return self


def deciding_groups(action: ClientAction, policy: PolicyChoice = OWN) -> tuple[str, ...]:
    """The groups whose members may decide the action under ``policy`` (by default its own), or () when every
    approver may: the policy's approver groups, and once the sweep escalated the action, the groups it escalates
    to. Under the policy of edited arguments, as if the agent had asked for them: its escalation groups once the
    action has waited that policy's ``escalateAfterSeconds``, whatever its own policy's escalation did."""
    own = policy is OWN
    policy = resolved(action, policy)
    if policy is None or not policy["approverGroups"]:
        return ()
    groups = list(policy["approverGroups"])
    if _escalated_under(action, policy, own):
        groups += [group for group in policy["escalateTo"] if group not in groups]
    return tuple(groups)


def _escalated_under(action: ClientAction, policy: PolicyDict, own: bool) -> bool:
    if own:
        return action.escalated_at is not None
    seconds = policy["escalateAfterSeconds"]
    return seconds is not None and action.created_at + timedelta(seconds=seconds) <= timezone.now()


def check(decider: Decider, action: ClientAction, policy: PolicyChoice = OWN) -> None:
    """Raise ``Forbidden`` unless ``decider`` may decide ``action`` under ``policy`` (by default its own). A key only
    ever meets actions of its own project: the API hands it the session its path names in the key's project
    (``projects.scoping.ScopedRouter``), which is the only way a key's decision comes in."""
    reason = decider.reason_not_to_decide(action, policy)
    if reason is not None:
        raise Forbidden(reason)


# Edited arguments ---------------------------------------------------------------------


def policy_for(action: ClientAction, arguments: object, listing: list[PolicyDict] | None = None) -> PolicyChoice:
    """The policy that governs ``arguments`` of ``action`` (docs/api.md, "Edited arguments are governed as if they
    had been asked for"): the action's own for the arguments it asked with (or none given), else the first of the
    project's policies matching the session's agent, the action's name and these arguments; the action's own copy
    when that is the same policy, so an edit that stays under it behaves as any other vote. ``OWN`` stands for the
    action's own; ``listing`` is the project's policies, when the caller read them already."""
    if arguments is None or jsonvalues.equal(arguments, action.arguments):
        return OWN
    project = session_keys.project_of(action.session_id)
    if listing is None:
        listing = policies.listing(project)
    found = next(
        (policy for policy in listing if policies.matches(policy, action.session.agent, action.name, arguments)), None
    )
    own = action.policy
    if (found is None and own is None) or (found is not None and own is not None and found["name"] == own["name"]):
        return OWN
    return found


def resolved(action: ClientAction, policy: PolicyChoice) -> PolicyDict | None:
    """The policy itself, for ``OWN`` the action's."""
    if policy is OWN:
        own: PolicyDict | None = action.policy
        return own
    return policy


# Counting -----------------------------------------------------------------------------


def why_not_counted(
    vote: Vote, action: ClientAction, policy: PolicyChoice, voters: dict[Identity, Decider]
) -> str | None:
    """Why ``vote`` no longer counts toward ``action`` under ``policy`` (``policy_for`` what it voted for), or
    None while its decider may still decide: the one rule above, asked again when the votes are counted.
    ``voters`` (from ``voters``) holds the deciders, looked up together."""
    decider = voters.get(_identity_of(vote))
    if decider is None:
        return UNKNOWN_MESSAGE
    return decider.reason_not_to_decide(action, policy)


def _identity_of(vote: Vote) -> Identity:
    return ("key", vote.api_key_id) if vote.api_key_id is not None else ("person", vote.user_id)


def voters(votes: Iterable[Vote], project: str) -> dict[Identity, Decider]:
    """The deciders behind ``votes`` of ``project``, by vote identity, with their keys, people, roles and groups
    looked up in four queries whatever their number. A vote made with a key is judged as that key (its scope and
    whether it was revoked), a person's as that person (active, their role and groups)."""
    key_ids = {vote.api_key_id for vote in votes if vote.api_key_id is not None}
    user_ids = {vote.user_id for vote in votes if vote.api_key_id is None and vote.user_id is not None}
    found: dict[Identity, Decider] = {}
    if key_ids:
        for api_key in ApiKey.objects.filter(pk__in=key_ids):
            found[("key", api_key.pk)] = Decider.key(api_key)
    if user_ids:
        people = list(User.objects.filter(pk__in=user_ids))
        roles = access.roles_of(people, project)
        groups: dict[int, set[str]] = {}
        for user_id, name in Group.objects.filter(project_id=project, members__in=user_ids).values_list(
            "members", "name"
        ):
            groups.setdefault(user_id, set()).add(name)
        for person in people:
            decider = Decider.person(person).knowing(project, roles.get(person.pk), groups.get(person.pk, set()))
            found[("person", person.pk)] = decider
    return found
