"""The approvals inbox: the waiting actions, filtered, sorted and grouped as the query asks, each a card to decide
at (docs/dashboard.md, "The approvals inbox"), and the navigation's count of them. An htmx request gets the list
alone; a live refresh that carries the stamp of what the page shows gets 204 while it is unchanged."""

from typing import NamedTuple

from django.contrib import messages
from django.db.models import Count, Max
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from historyhub.approvals import batch, votes
from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import DONE, buttons_for
from historyhub.dashboard import inbox, inbox_states
from historyhub.dashboard.access import project_page, session_or_404
from historyhub.dashboard.deciding import decide_by_form
from historyhub.dashboard.forms import DecisionForm, InboxFilters, InboxPlace
from historyhub.dashboard.pagination import in_use, page_context, pages, with_page
from historyhub.databases.router import replica_reads
from historyhub.history import client_actions
from historyhub.history.models import ClientAction
from historyhub.lib import paging

APPROVALS_PAGE_SIZE = 50


def approvals_stamp(actions):
    """Changes when an action starts or stops waiting: the count, and the newest one's pk."""
    state = actions.aggregate(count=Count("pk"), newest=Max("pk"))
    return f"{state['count']}-{state['newest'] or 0}"


class Refused(NamedTuple):
    """A decision refused at an approvals card: the card shows the form again, errors beside what was typed."""

    action_pk: int
    form: DecisionForm


def approvals_context(request, filters, page, now, stamp=None, refused=None):
    """A page of the waiting actions ``filters`` (InboxFilters) match, as cards (grouped by tool when asked),
    links that keep the filters, and the stamp a live refresh compares."""
    criteria = inbox.Criteria(**filters.criteria())
    matching = inbox.matching(request.project.pk, criteria, now)
    shown = inbox.with_text_starts(inbox.with_conversation(inbox.ordered(matching, criteria)))
    paged = paging.page_of(shown, page, APPROVALS_PAGE_SIZE)
    if not paged.items and page > 1:
        # The last actions of this page were just decided: show the last page there is.
        paged = paging.page_of(shown, pages(paged.total, APPROVALS_PAGE_SIZE), APPROVALS_PAGE_SIZE)
    # One decider for the page: it looks the person's role and groups up once for every card.
    decider = Decider.person(request.user)
    votes.judge(paged.items)
    rows = [inbox.card(action, decider, now) for action in paged.items]
    for row in rows:
        if refused is not None and row["action"].pk == refused.action_pk:
            row["form"] = refused.form
            if row["may_respond"]:
                row["answer_form"] = refused.form
    query = filters.in_use
    return {
        **page_context(paged),
        "state": criteria.state,
        "state_label": dict(inbox_states.DECIDED_STATES).get(criteria.state, "waiting").lower(),
        "rows": rows,
        "groups": inbox.groups(rows, criteria, matching),
        "grouped": criteria.group == "tool",
        "narrowed": criteria.narrowed,
        "stamp": stamp or approvals_stamp(matching),
        "filters_query": query,
        "list_query": with_page(query, paged.page),
        # The batch bar's buttons: the decisions the admin offers too.
        "batch_decisions": batch.DECISIONS,
        # Cards of actions that wait no more are read, not decided: no buttons, no batch bar.
        **({"may_decide": False} if criteria.decided else {}),
    }


@require_GET
@project_page
@vary_on_headers("HX-Request")
@replica_reads
def approvals(request):
    """The waiting actions, filtered, sorted and grouped as the query asks (docs/dashboard.md, "The approvals
    inbox"); an htmx request gets the list alone, a live refresh 204 while it is unchanged."""
    now = timezone.now()
    filters = InboxFilters(request.GET)
    stamp = approvals_stamp(inbox.matching(request.project.pk, inbox.Criteria(**filters.criteria()), now))
    polled = "since" in request.GET
    if polled and request.GET["since"] == stamp:
        return HttpResponse(status=204)
    context = approvals_context(request, filters, filters.page_number(), now, stamp)
    if request.htmx:
        # A poll keeps what the person typed or ticked while the list changed under them.
        response = render(request, "dashboard/fragments/approval_list.html", {**context, "preserve": polled})
        if not polled:
            # The address bar gets the filters in use, not every empty field of the form.
            push_url(response, f"{request.path}?{urlencode(in_use(request.GET))}".rstrip("?"))
        return response
    context["filters"] = filters.offer(inbox.choices(request.project.pk, now))
    return render(request, "dashboard/approvals.html", context)


@require_POST
@project_page
def decide_action(request, session_id, call_id):
    """Decide one waiting client action at its approvals card as at its timeline card: any decision the card
    offers, with edited arguments or an answer (docs/dashboard.md, "The approvals inbox")."""
    session = session_or_404(request, session_id)
    action = ClientAction.objects.filter(session=session, call_id=call_id).first()
    if action is None:
        raise Http404("No such client action.")
    form = DecisionForm(
        request.POST,
        buttons=buttons_for(action.allowed),
        response_schema=action.response_schema,
        auto_id=inbox.answer_ids(action),
    )
    outcome = decide_by_form(request, session, action, form)
    place = InboxPlace(request.POST)
    if outcome.status != 200:
        for error in form.non_field_errors():
            messages.error(request, f"{error} Nothing was decided.")
        return decided(request, place, outcome.status, Refused(action.pk, form))
    if outcome.still_waiting:
        messages.success(request, "Your approval was counted; the action waits for more approvals.")
    else:
        messages.success(request, batch.done_message(DONE[form.cleaned_data["decision"]], [(session.pk, call_id)]))
    return decided(request, place, outcome.status)


def decided(request, place, status, refused=None):
    """The approvals page after a decision (or a refusal) made at ``place`` (an InboxPlace: its filters and
    page): with htmx the list as it is now; without, a redirect to it, or the page itself when a card shows
    the form it refused."""
    filters, page = place.inbox_filters(), place.page_number()
    now = timezone.now()
    if request.htmx:
        context = approvals_context(request, filters, page, now, refused=refused)
        return render(request, "dashboard/fragments/approvals_result.html", context, status=status)
    if refused is not None:
        context = approvals_context(request, filters, page, now, refused=refused)
        context["filters"] = filters.offer(inbox.choices(request.project.pk, now))
        return render(request, "dashboard/approvals.html", context, status=status)
    url = reverse("dashboard:approvals", args=[request.project.pk])
    return redirect(f"{url}?{with_page(filters.in_use, page)}")


@require_GET
@project_page
def inbox_count(request):
    """The navigation's count of waiting actions; 204 while it is the number the page shows."""
    waiting = client_actions.waiting_count(request.project.pk)
    if request.GET.get("since") == str(waiting):
        return HttpResponse(status=204)
    return render(request, "dashboard/fragments/inbox_count.html", {"waiting": waiting})
