"""A card's decision form carried out, on a session's timeline and in the approvals inbox alike.

Decisions go through ``approvals.deciding.decide``, the function the API and the admin use; whether the person may
is the domain's to say, and a refusal is the 403 page."""

from typing import NamedTuple

from django.core.exceptions import PermissionDenied

from historyhub.approvals import deciding
from historyhub.approvals.deciders import Decider
from historyhub.lib.errors import DomainError, Forbidden


class Decided(NamedTuple):
    status: int  # 200, or the status of the reason nothing was decided
    still_waiting: bool = False  # one approval of several was counted


def decide_by_form(request, session, action, form):
    """Carry out a card's decision form on ``action`` as the person; why it was not is in the form's errors.

    Whether the person may is the domain's to say (``approvals.deciding.decide``): a refusal is the 403 page."""
    if not form.is_valid():
        return Decided(422)
    try:
        resolved = deciding.decide(
            session.id,
            action.call_id,
            decision=form.cleaned_data["decision"],
            comment=form.cleaned_data["comment"],
            arguments=form.cleaned_data["arguments"],
            response=form.cleaned_data["response"],
            decider=Decider.person(request.user),
        )
    except Forbidden as refused:
        raise PermissionDenied(refused.message) from None
    except DomainError as error:
        form.add_error(None, error.message)
        return Decided(error.status)
    return Decided(200, resolved.action.is_waiting)
