"""A session's page: its timeline, a chunk at a time, the poll that brings what is new, the decisions of its
client action cards, and the whole arguments or description a card shows a preview of (docs/dashboard.md,
"Reading"). An htmx request for the page's URL gets only the chunk it asked for."""

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from historyhub.approvals.decisions import buttons_for
from historyhub.dashboard import json_preview, media, timeline_cards
from historyhub.dashboard.access import project_page, session_or_404
from historyhub.dashboard.deciding import decide_by_form
from historyhub.dashboard.forms import CursorQuery, DecisionForm, TimelineQuery
from historyhub.history.models import ClientAction, TimelineEntry
from historyhub.lib import jsonvalues

# The timeline cards that show a call's arguments.
CALL_CARDS = ("action", "client_action")


@require_GET
@project_page
@vary_on_headers("HX-Request")
def session_detail(request, session_id):
    session = session_or_404(request, session_id)
    query = TimelineQuery(request.GET)
    if not query.is_valid():
        return HttpResponseBadRequest("epoch and until must be whole numbers.")
    epoch = query.cleaned_data["epoch"]
    if epoch is not None and epoch > session.epoch:
        raise Http404("No such epoch.")
    chunk = timeline_cards.read_chunk(session, epoch, query.cleaned_data["until"])
    context = {"session": session, "chunk": chunk}
    if request.htmx:
        return render(request, "dashboard/fragments/timeline_chunk.html", context)
    response = render(request, "dashboard/session.html", context)
    # The media of the hosts the person asked to load, and only theirs, may load on this page (docs/dashboard.md).
    response.media_hosts = media.chosen_hosts(request)
    return response


@require_GET
@project_page
def session_updates(request, session_id):
    """The poll of an open timeline: 204 when the session's version is the one the page shows."""
    query = CursorQuery(request.GET)
    if not query.is_valid():
        return HttpResponseBadRequest("since, epoch, seq and pk must be whole numbers.")
    session = session_or_404(request, session_id)
    data = query.cleaned_data
    cursor = timeline_cards.Cursor(version=data["since"], epoch=data["epoch"], seq=data["seq"], pk=data["pk"])
    if session.version == cursor.version:
        return HttpResponse(status=204)
    changes = timeline_cards.changes_since(session, cursor)
    context = {"session": session, "cursor": cursor, "changes": changes}
    return render(request, "dashboard/fragments/timeline_changes.html", context)


@require_POST
@project_page
def decide_entry(request, session_id, entry_id):
    """Approve or reject the client action of one timeline card, and answer with the card as it is now.

    Whether the person may is the domain's to say (``approvals.deciding.decide``): a refusal is the 403 page."""
    session = session_or_404(request, session_id)
    entry = TimelineEntry.objects.filter(session=session, pk=entry_id).first()
    action = ClientAction.objects.filter(session=session, entry_key=entry.key).first() if entry else None
    if action is None:
        raise Http404("No such client action card.")
    form = DecisionForm(request.POST, buttons=buttons_for(action.allowed), response_schema=action.response_schema)
    status = decide_by_form(request, session, action, form).status

    if not request.htmx:
        if status == 200:
            messages.success(request, "Decision recorded.")
        for error in form.errors.values():
            messages.error(request, " ".join(error))
        return redirect(f"{reverse('dashboard:session', args=[request.project.pk, session_id])}#entry-{entry.pk}")

    session = session_or_404(request, session_id)
    entry = TimelineEntry.objects.filter(pk=entry.pk).first()
    if entry is None:
        return HttpResponse(headers={"HX-Refresh": "true"})
    card = timeline_cards.cards(session, [entry])[0]
    if status != 200:
        # The card shows the errors beside what the person typed, so nothing is lost.
        card["form"] = form
        if card.get("may_respond"):
            card["answer_form"] = form
    return render(
        request, "dashboard/fragments/decision_result.html", {"session": session, "card": card}, status=status
    )


@require_GET
@project_page
@vary_on_headers("HX-Request")
def entry_arguments(request, session_id, entry_id):
    """All the arguments of a tool call card, of which the card shows a bounded preview (a client action
    the agent wrote down itself, with no record: the whole item)."""
    session = session_or_404(request, session_id)
    entry = TimelineEntry.objects.filter(session=session, pk=entry_id, type__in=CALL_CARDS).first()
    item = entry.value if entry is not None else {}
    if entry is None or (entry.type == "action" and "arguments" not in item):
        raise Http404("No such tool call card.")
    return whole_json(request, jsonvalues.dumps(item["arguments"] if entry.type == "action" else item))


@require_GET
@project_page
@vary_on_headers("HX-Request")
def action_arguments(request, session_id, call_id):
    """All the arguments a client action asks to run with, or with ``?approved=1`` those it was approved with:
    for a card's Show all (htmx) the fragment that takes the preview's place, else a JSON document."""
    action = action_or_404(request, session_id, call_id)
    text = action.approved_arguments_json if "approved" in request.GET else action.arguments_json
    if text is None:
        raise Http404("No such client action, or no approved arguments.")
    return whole_json(request, text)


@require_GET
@project_page
@vary_on_headers("HX-Request")
def action_description(request, session_id, call_id):
    """All of a client action's description, rendered: for a card's Show all (htmx) the fragment that takes the
    preview's place, else a page of its own."""
    action = action_or_404(request, session_id, call_id)
    if request.htmx:
        return render(
            request, "dashboard/fragments/whole_value.html", {"arguments": None, "description": action.description}
        )
    return render(request, "dashboard/action_description.html", {"action": action, "session": action.session})


def action_or_404(request, session_id, call_id):
    """The client action of the page's project that the session id and call id name."""
    action = ClientAction.objects.filter(session=session_or_404(request, session_id), call_id=call_id).first()
    if action is None:
        raise Http404("No such client action.")
    return action


def whole_json(request, stored):
    """Stored JSON, indented, its hidden characters as escapes (nothing hides here either): the fragment a card's
    Show all swaps in, or a document."""
    text = json_preview.escaped(stored)
    if request.htmx:
        return render(request, "dashboard/fragments/whole_value.html", {"arguments": text})
    return HttpResponse(text, content_type="application/json; charset=utf-8")
