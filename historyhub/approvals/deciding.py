"""Deciding a client action: a person's or a key's decision, checked, voted and recorded (docs/api.md, "Client
actions", "Who may decide", "Several approvers").

The API's decision endpoint, the dashboard's buttons, the admin, batch decisions and Slack all decide through
``decide``. History settles the action (``client_actions.resolve``, in the session's write); the rules a decision
brings to it are this module's ``DeciderRuling``: the decider must be allowed to make it (``deciders.check``, under
the policy that governs the arguments it approves), the action must allow this kind of answer, and its vote counts
until the policy's approvals are in (``votes.cast``); the audit log keeps each vote and decision.
"""

from dataclasses import dataclass
from typing import Any

from historyhub.approvals import deciders, votes
from historyhub.approvals.deciders import OWN, Decider
from historyhub.approvals.decisions import (
    OUTCOME,
    SENT,
    Decision,
    audit_decision,
    audit_vote,
    kind_of,
    not_allowed_message,
)
from historyhub.approvals.models import PolicyChoice
from historyhub.history import client_actions, response_schemas
from historyhub.history.client_actions import Cast, Resolved
from historyhub.history.models import ClientAction
from historyhub.history.writes import Write
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput


def decide(
    key: str,
    call_id: str,
    *,
    decision: str,
    comment: str | None = "",
    arguments: object = None,
    response: object = None,
    decider: Decider,
) -> Resolved:
    """A person's or a key's decision; ``decider`` (approvals.deciders) must be allowed to make it."""
    validation.choice(decision, SENT, "decision")
    comment = comment or ""
    if not isinstance(comment, str):
        raise InvalidInput("comment must be a string.")
    validation.within_action_limit(validation.text(comment, "comment"), "comment")
    if arguments is not None:
        if decision != Decision.APPROVE:
            raise InvalidInput("arguments are only sent with approve.")
        if not isinstance(arguments, dict):
            raise InvalidInput("arguments must be an object.")
        validation.json_value(arguments, "arguments")
        validation.within_action_limit(arguments, "arguments")
    if decision == Decision.RESPOND:
        if response is None:
            raise InvalidInput("response is required with respond.")
        validation.json_value(response, "response")
        validation.within_action_limit(response, "response")
    elif response is not None:
        raise InvalidInput("response is only sent with respond.")
    outcome: dict[str, Any] = {"status": OUTCOME[Decision(decision)], "decision": decision, "comment": comment}
    if decision == Decision.APPROVE:
        outcome["approved_arguments"] = arguments
    if decision == Decision.RESPOND:
        outcome["response_json"] = jsonvalues.dumps(response)
    resolved: Resolved = client_actions.resolve(key, call_id, decider.name, ruling=DeciderRuling(decider), **outcome)
    return resolved


def check_response(action: ClientAction, outcome: dict[str, Any]) -> None:
    """Raise ``InvalidInput`` unless the action allows this kind of decision, with an answer that fits it."""
    approved = outcome.get("approved_arguments")
    kind = kind_of(outcome["decision"], approved, action.arguments)
    if kind not in action.allowed:
        raise InvalidInput(not_allowed_message(kind))
    if kind == Decision.RESPOND:
        response_schemas.check_answer(action.response_schema, jsonvalues.loads(outcome["response_json"]))


@dataclass
class DeciderRuling:
    """The rules a decision by ``decider`` brings to ``client_actions.resolve`` (its ``Ruling``). ``policy`` is the
    one the decision is judged under: edited arguments are judged under the policy that governs them, as if the
    agent had asked for them (``deciders.policy_for``)."""

    decider: Decider
    policy: PolicyChoice = OWN

    def check(self, action: ClientAction, outcome: dict[str, Any]) -> None:
        self.policy = deciders.policy_for(action, outcome.get("approved_arguments"))
        deciders.check(self.decider, action, self.policy)
        check_response(action, outcome)

    def vote(self, write: Write, action: ClientAction, outcome: dict[str, Any]) -> Cast:
        cast = votes.cast(action, self.decider, outcome, write.now, self.policy)
        if cast == Cast.COUNTED:
            audit_vote(action, self.decider, outcome)
        return cast

    def decided(self, action: ClientAction) -> None:
        audit_decision(action, self.decider)
