"""Deciding several waiting actions at once from the approvals inbox, or every one its filters match, once the
person has confirmed exactly which (docs/dashboard.md, "Batch decisions"); one action is decided at a click."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import reswap, retarget

from historyhub.approvals import batch
from historyhub.approvals.deciders import ROLE_MESSAGE, Decider
from historyhub.approvals.decisions import DONE
from historyhub.dashboard import inbox
from historyhub.dashboard.access import project_page
from historyhub.dashboard.forms import SelectedDecisionForm
from historyhub.dashboard.inbox_page import decided
from historyhub.dashboard.pagination import with_page
from historyhub.lib import session_keys
from historyhub.projects import access
from historyhub.projects.models import Role


@require_POST
@project_page
def decide_selected(request):
    """Decide one waiting client action from the approvals page's batch bar, or, once confirmed,
    several of them or every waiting one the filters match (docs/dashboard.md, "Batch decisions")."""
    if not access.grants(request.role, Role.APPROVER):
        # Nothing to confirm for someone who may decide nothing here; each action is the domain's to check.
        raise PermissionDenied(ROLE_MESSAGE)
    form = SelectedDecisionForm(request.POST)
    if not form.is_valid():
        for error in form.errors.values():
            messages.error(request, " ".join(error))
        return decided(request, form, status=422)
    data = form.cleaned_data
    project = request.project.pk
    selected = [(session_keys.session_key(project, session_id), call_id) for session_id, call_id in data["selected"]]
    person = Decider.person(request.user)
    if form.needs_confirmation:
        if data["all_waiting"]:
            criteria = inbox.Criteria(**form.inbox_filters().criteria())
            found = batch.of_waiting(inbox.matching(project, criteria, timezone.now()))
        else:
            found = batch.waiting_among(project, selected)
        # What the person may not decide is named and left out, before they confirm; its fingerprint is of the rest.
        found = found.decidable_by(person)
        if not data["confirmed"]:
            return confirmation(request, form, found)
        if data["fingerprint"] != found.fingerprint:
            return confirmation(request, form, found, changed=True)
        if data["all_waiting"]:
            selected = found.keys
    status = 200
    try:
        batch.decide(selected, decision=data["decision"], comment=data["comment"], decider=person)
    except batch.Refused as refused:
        # An expected refusal, said on the list (htmx swaps a 403 or 409 in too): no 403 page, no traceback.
        status = refused.error.status
        messages.error(request, refused.message(session_keys.session_id_of(refused.session_key)))
    else:
        messages.success(request, batch.done_message(DONE[data["decision"]], selected))
    return decided(request, form, status)


def confirmation(request, form, found, changed=False):
    """What a decision on several actions would decide, to confirm or cancel: swapped in above the list
    by htmx, a page of its own without. 409 when what waits changed since the last confirmation."""
    data = form.cleaned_data
    rows = found.rows()
    filters = form.inbox_filters()
    filters_query = filters.in_use
    page = form.page_number()
    context = {
        "batch": found,
        "rows": rows,
        "undecidable": found.undecidable,
        "destructive_count": sum(1 for row in rows if row["destructive"]),
        "decision": data["decision"],
        "comment": data["comment"],
        "all_waiting": data["all_waiting"],
        "page": page,
        "filters_query": filters_query,
        "narrowed": inbox.Criteria(**filters.criteria()).narrowed,
        "list_query": with_page(filters_query, page),
        "changed": changed,
    }
    status = 409 if changed else 200
    if request.htmx:
        response = render(request, "dashboard/fragments/batch_confirmation.html", context, status=status)
        return reswap(retarget(response, "#approval-confirmation"), "innerHTML show:top")
    return render(request, "dashboard/approvals_confirm.html", context, status=status)
