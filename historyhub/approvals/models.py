"""Approval policies and the votes cast on client actions (docs/api.md, "Who may decide: approval policies")."""

from enum import Enum
from typing import Literal, TypeAlias, TypedDict

from django.conf import settings
from django.db import models

from historyhub.history.models import Decision
from historyhub.lib import jsonvalues
from historyhub.lib.jsonvalues import JSON


class Condition(TypedDict):
    """A condition on an action's arguments: the value at a dotted path compared with ``op``."""

    argument: str
    op: str
    value: JSON


class PolicyDict(TypedDict):
    """A policy as the domain and the wire know it (``Policy.as_dict``, ``policies.check``), and as an action that
    opened under it keeps a copy of it (``ClientAction.policy``)."""

    name: str
    agents: list[str]
    actions: list[str]
    when: list[Condition]
    approverGroups: list[str]
    requiredApprovals: int
    peopleOnly: bool
    escalateAfterSeconds: int | None
    escalateTo: list[str]


class Own(Enum):
    """Where a policy is asked for, ``OWN`` stands for the one the action opened under (``ClientAction.policy``)."""

    OWN = "own"


# A policy, none, or the action's own (``deciders.policy_for``).
PolicyChoice: TypeAlias = PolicyDict | None | Literal[Own.OWN]


class Policy(models.Model):
    """Who may decide which actions of a project. The first in ``position`` order that matches governs an action,
    and what it said then is copied onto the action (``ClientAction.policy_json``): editing it later changes nothing
    for an action already waiting."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="policies")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    agents_json = models.TextField(default='["*"]', help_text="Globs of agent names, as a JSON list.")
    actions_json = models.TextField(default='["*"]', help_text="Globs of action names, as a JSON list.")
    when_json = models.TextField(default="[]", help_text="Conditions on the arguments, as a JSON list.")
    approver_groups_json = models.TextField(default="[]", help_text="Group names; empty: every approver.")
    required_approvals = models.PositiveSmallIntegerField(default=1)
    people_only = models.BooleanField(default=False)
    escalate_after_seconds = models.PositiveIntegerField(null=True, blank=True)
    escalate_to_json = models.TextField(default="[]", help_text="Group names that may decide once escalated.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="policy_unique_name"),
            models.UniqueConstraint(fields=["project", "position"], name="policy_unique_position"),
        ]
        ordering = ["project", "position"]
        verbose_name_plural = "policies"

    def __str__(self) -> str:
        return f"{self.name} ({self.project_id})"

    def as_dict(self) -> PolicyDict:
        """The policy as the domain and the wire know it (an action opening under it keeps a copy)."""
        return {
            "name": self.name,
            "agents": jsonvalues.loads(self.agents_json),
            "actions": jsonvalues.loads(self.actions_json),
            "when": jsonvalues.loads(self.when_json),
            "approverGroups": jsonvalues.loads(self.approver_groups_json),
            "requiredApprovals": self.required_approvals,
            "peopleOnly": self.people_only,
            "escalateAfterSeconds": self.escalate_after_seconds,
            "escalateTo": jsonvalues.loads(self.escalate_to_json),
        }


class Via(models.TextChoices):
    """The channel a decision came through; the decider is the same person whatever it is."""

    DASHBOARD = "dashboard", "Dashboard"
    SLACK = "slack", "Slack"
    EMAIL = "email", "Email"
    API = "api", "API"
    ADMIN = "admin", "Admin"


class Vote(models.Model):
    """One decider's vote on one action: the audit of who decided what, when, with which arguments.

    The decider is an identity, never the label ``by``: a person (``user``), or a key (``api_key``) that no person
    made. A key a person made on the settings page votes as that person (``user`` is its maker, ``api_key`` the
    key). A decider votes once per action, whatever the channel (``via``): the two constraints settle two requests
    of theirs racing, one on people and one on keys that count as themselves."""

    action = models.ForeignKey("history.ClientAction", on_delete=models.CASCADE, related_name="votes")
    by = models.CharField(max_length=200, help_text="As resolvedBy names a decider: a display label.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        help_text="The person who decided: directly, or through a key they made.",
    )
    api_key = models.ForeignKey(
        "apikeys.ApiKey",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The key the decision came with, if any.",
    )
    via = models.CharField(max_length=16, choices=Via.choices, help_text="The channel the decision came through.")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    arguments_json = models.TextField(null=True, blank=True, help_text="The arguments an approve votes for.")
    comment = models.TextField(blank=True, default="")
    response_json = models.TextField(null=True, blank=True)
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["action", "user"], condition=models.Q(user__isnull=False), name="vote_once_per_person"
            ),
            models.UniqueConstraint(
                fields=["action", "api_key"],
                condition=models.Q(user__isnull=True, api_key__isnull=False),
                name="vote_once_per_key",
            ),
        ]
        ordering = ["at", "pk"]

    # Set by ``votes.judge``, never stored: why the vote no longer counts (None while it does), and the policy that
    # governs the arguments it voted for.
    why: str | None
    policy: PolicyChoice

    def __str__(self) -> str:
        return f"{self.by}: {self.decision}"

    @property
    def arguments(self) -> JSON:
        return jsonvalues.loads(self.arguments_json) if self.arguments_json is not None else None
