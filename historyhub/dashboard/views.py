"""The dashboard's pages and the fragments htmx swaps into them.

A page answers with the whole document; an htmx request for the same URL gets
only the region it asked for. An open page hears of changes through its live
stream and then asks again; a request that carries what the page already
shows gets 204 No Content when nothing changed. Decisions go through
``client_actions.decide``, the function the API and the admin use.
"""

import hashlib
from functools import wraps
from typing import NamedTuple

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max
from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, push_url, reswap, retarget

from historyhub import live
from historyhub.approvals import votes
from historyhub.approvals.deciders import ROLE_MESSAGE, Decider
from historyhub.approvals.decisions import DONE, buttons_for
from historyhub.dashboard import (
    batch,
    inbox,
    json_preview,
    media,
    settings_forms,
    snippets,
    stream,
    timeline,
)
from historyhub.dashboard.forms import (
    CursorQuery,
    DecisionForm,
    InboxFilters,
    InboxPlace,
    SelectedDecisionForm,
    SessionFilters,
    TimelineQuery,
)
from historyhub.dashboard.settings_forms import ProjectForm
from historyhub.history import client_actions, jsonvalues, paging, sessions
from historyhub.history.errors import DomainError, Forbidden, SessionNotFound
from historyhub.history.models import ClientAction, Session, TimelineEntry
from historyhub.projects import access, administration, keys
from historyhub.projects.models import Role

# What the 403 page tells a person (templates/403.html).
NOT_A_MEMBER = "You are not a member of this project. Ask one of its admins to add you."
ADMINS_ONLY = "Only the project's admins manage its settings. Ask one of its admins."
SESSIONS_PAGE_SIZE = 25
# The sessions page counts matches up to here, then says "More than 200" (docs/search.md, "Counting").
SESSIONS_COUNT_LIMIT = 200
APPROVALS_PAGE_SIZE = 50
# The timeline cards that show a call's arguments.
CALL_CARDS = ("action", "client_action")


def login_required(view):
    """Django's login_required, except that an htmx request is sent to the login page as a whole page:
    following the redirect inside a fragment would swap the login form into a table."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if request.htmx:
            page = request.htmx.current_url_abs_path or "/"
            return HttpResponseClientRedirect(f"{settings.LOGIN_URL}?{urlencode({'next': page})}")
        return redirect_to_login(request.get_full_path())

    return wrapper


def project_page(view):
    """A page of one project (the URL's ``project_id``): its members may see it, anyone else gets the 403 page,
    saying why. The view finds the project and the person's role in ``request.project`` and ``request.role``;
    the project becomes the person's current one (``/`` opens it)."""

    @wraps(view)
    @login_required
    def wrapper(request, project_id, *args, **kwargs):
        project, role = access.project_and_role(request.user, project_id)
        if project is None and role is not None:
            raise Http404("No such project.")
        if role is None:
            # The same answer whether the project exists or not: a person learns of no project they are not in.
            raise PermissionDenied(NOT_A_MEMBER)
        request.project, request.role = project, role
        if request.session.get(CURRENT_PROJECT) != project.pk:
            request.session[CURRENT_PROJECT] = project.pk
        return view(request, *args, **kwargs)

    return wrapper


def admins_only(request):
    if not access.grants(request.role, Role.ADMIN):
        raise PermissionDenied(ADMINS_ONLY)


def session_or_404(request, session_id):
    """The session of the page's project that ``session_id`` names."""
    try:
        return sessions.get(keys.session_key(request.project.pk, session_id))
    except SessionNotFound:
        raise Http404("No such session.") from None


def pages(total, page_size):
    return max(1, -(-total // page_size))


def page_context(paged):
    """What a paginated table's template needs: the rows and the links around them."""
    return {
        "rows": paged.items,
        "total": paged.total,
        "total_is_exact": paged.total_is_exact,
        "page": paged.page,
        "pages": pages(paged.total, paged.page_size),
        "previous_page": paged.page - 1 if paged.page > 1 else None,
        "next_page": paged.page + 1 if paged.has_more else None,
    }


# Where a person lands ---------------------------------------------------------------

CURRENT_PROJECT = "historyhub_project"


def current_project(request):
    """The project ``/`` opens: the one last opened, else the first the person belongs to, or None."""
    mine = access.projects_of(request.user)
    last = request.session.get(CURRENT_PROJECT)
    return (mine.filter(pk=last).first() if last else None) or mine.first()


def in_current_project(view_name):
    """``/``, ``/sessions/<id>/`` and ``/approvals/``: the same page of the person's current project."""

    @require_GET
    @login_required
    def view(request, **kwargs):
        project = current_project(request)
        if project is None:
            return render(request, "dashboard/no_project.html", status=403)
        url = reverse(f"dashboard:{view_name}", kwargs={"project_id": project.pk, **kwargs})
        query = request.META.get("QUERY_STRING")
        return redirect(f"{url}?{query}" if query else url)

    return view


home = in_current_project("sessions")
current_session = in_current_project("session")
current_approvals = in_current_project("approvals")


# Sessions --------------------------------------------------------------------------


@require_GET
@project_page
@vary_on_headers("HX-Request")
def session_list(request):
    project = request.project.pk
    filters = SessionFilters(request.GET, agents=sessions.agents(project))
    criteria = filters.criteria()
    paged = paging.page_of_parts(
        lambda first: sessions.search(project, **criteria, first=first),
        lambda up_to: sessions.count(project, **criteria, up_to=up_to),
        filters.page_number(),
        SESSIONS_PAGE_SIZE,
        count_limit=SESSIONS_COUNT_LIMIT,
    )
    # A live refresh swaps the table only when it changed: a swap under a pointer loses the person's click.
    stamp = sessions_stamp(paged)
    if "live" in request.GET and request.GET.get("since") == stamp:
        return HttpResponse(status=204)
    q = criteria["q"]
    # Where each session matched, a few words around q (docs/dashboard.md, "Reading").
    matches = snippets.matches(paged.items, q) if q else {}
    context = {
        "filters": filters,
        **page_context(paged),
        "rows": [SessionRow(session, matches.get(session.pk)) for session in paged.items],
        "q": q or "",
        "stamp": stamp,
    }
    if request.htmx:
        response = render(request, "dashboard/fragments/session_results.html", context)
        if "live" not in request.GET:
            # The address bar gets the filters in use, not every empty field of the form.
            push_url(response, f"{request.path}?{urlencode(in_use(request.GET))}".rstrip("?"))
        return response
    return render(request, "dashboard/sessions.html", context)


def sessions_stamp(paged):
    """Changes when the page shows something else: another total, another session, or a shown one changed
    (every change raises a session's version)."""
    shown = ",".join(f"{session.pk}.{session.version}" for session in paged.items)
    return hashlib.blake2b(f"{paged.total}|{paged.page}|{shown}".encode(), digest_size=8).hexdigest()


class SessionRow(NamedTuple):
    session: Session
    match: snippets.Match | None


def in_use(query):
    return [(name, value) for name, values in query.lists() for value in values if value]


# A session's timeline -------------------------------------------------------------


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
    chunk = timeline.read_chunk(session, epoch, query.cleaned_data["until"])
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
    cursor = timeline.Cursor(version=data["since"], epoch=data["epoch"], seq=data["seq"], pk=data["pk"])
    if session.version == cursor.version:
        return HttpResponse(status=204)
    changes = timeline.changes_since(session, cursor)
    context = {"session": session, "cursor": cursor, "changes": changes}
    return render(request, "dashboard/fragments/timeline_changes.html", context)


@require_POST
@project_page
def decide_entry(request, session_id, entry_id):
    """Approve or reject the client action of one timeline card, and answer with the card as it is now.

    Whether the person may is the domain's to say (``client_actions.decide``): a refusal is the 403 page."""
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
    card = timeline.cards(session, [entry])[0]
    if status != 200:
        # The card shows the errors beside what the person typed, so nothing is lost.
        card["form"] = form
        if card.get("may_respond"):
            card["answer_form"] = form
    return render(
        request, "dashboard/fragments/decision_result.html", {"session": session, "card": card}, status=status
    )


class Decided(NamedTuple):
    status: int  # 200, or the status of the reason nothing was decided
    still_waiting: bool = False  # one approval of several was counted


def decide_by_form(request, session, action, form):
    """Carry out a card's decision form on ``action`` as the person; why it was not is in the form's errors.

    Whether the person may is the domain's to say (``client_actions.decide``): a refusal is the 403 page."""
    if not form.is_valid():
        return Decided(422)
    try:
        resolved = client_actions.decide(
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


# Approvals ------------------------------------------------------------------------


def approvals_stamp(actions):
    """Changes when an action starts or stops waiting: the count, and the newest one's pk."""
    state = actions.aggregate(count=Count("pk"), newest=Max("pk"))
    return f"{state['count']}-{state['newest'] or 0}"


def with_page(query, page):
    return f"{query}&page={page}" if query else f"page={page}"


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
        "rows": rows,
        "groups": inbox.groups(rows, criteria, matching),
        "grouped": criteria.group == "tool",
        "narrowed": criteria.narrowed,
        "stamp": stamp or approvals_stamp(matching),
        "filters_query": query,
        "list_query": with_page(query, paged.page),
    }


@require_GET
@project_page
@vary_on_headers("HX-Request")
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


@require_POST
@project_page
def decide_selected(request):
    """Approve or reject one waiting client action from the approvals page, or, once confirmed,
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
    selected = [(keys.session_key(project, session_id), call_id) for session_id, call_id in data["selected"]]
    if form.needs_confirmation:
        if data["all_waiting"]:
            found = batch.every_waiting(project, inbox.Criteria(**form.inbox_filters().criteria()))
        else:
            found = batch.waiting_among(project, selected)
        if not data["confirmed"]:
            return confirmation(request, form, found)
        if data["fingerprint"] != found.fingerprint:
            return confirmation(request, form, found, changed=True)
        if data["all_waiting"]:
            selected = found.keys
    status = 200
    person = Decider.person(request.user)
    try:
        batch.decide(selected, decision=data["decision"], comment=data["comment"], decider=person)
    except batch.Refused as refused:
        said = refused.message(keys.session_id_of(refused.session_key))
        if isinstance(refused.error, Forbidden):
            raise PermissionDenied(said) from None
        status = refused.error.status
        messages.error(request, said)
    else:
        messages.success(request, batch.done_message(DONE[data["decision"]], selected))
    return decided(request, form, status)


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


@require_GET
@project_page
def inbox_count(request):
    """The navigation's count of waiting actions; 204 while it is the number the page shows."""
    waiting = client_actions.waiting_count(request.project.pk)
    if request.GET.get("since") == str(waiting):
        return HttpResponse(status=204)
    return render(request, "dashboard/fragments/inbox_count.html", {"waiting": waiting})


# Live updates -------------------------------------------------------------------


def too_many_streams(limit):
    message = f"You have {limit} live pages open on this server already; close some tabs and reload this one."
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": "30"})


@require_GET
async def live_updates(request, project_id):
    """Server-sent events for an open page (docs/live-updates.md): ``changed`` when something the page
    shows changed (the sessions table, the approvals, the inbox count refresh themselves), ``session``
    when the session the page shows did (its timeline asks for what is new).

    One stream per page, holding no thread while it is open; a visitor who is not
    logged in gets 204, which tells the browser to stop trying; a ``session`` that is not a session id of this
    project (``beta/bv1`` on a page of ``default``) gets 404, and a person with
    HISTORYHUB_MAX_STREAMS_PER_USER streams open in this process already gets 429.
    """
    user = await request.auser()
    if not user.is_authenticated or await live.read(access.role_of, user, project_id) is None:
        return HttpResponse(status=204)
    session_id = request.GET.get("session") or None
    session_key = stream.session_key_in(project_id, session_id) if session_id else None
    if session_id and session_key is None:
        # Not a session id (another project's session key, say): no page of this project shows it.
        return HttpResponse(status=404)
    interest = stream.interest(project_id, session_key, inbox_only=request.GET.get("inbox") == "1")
    subscription = live.listen(interest, owner=("user", user.pk), limit=settings.HISTORYHUB_MAX_STREAMS_PER_USER)
    try:
        subscription.start()
    except live.TooMany as too_many:
        return too_many_streams(too_many.limit)
    except live.Closed:
        return HttpResponse(status=503, headers={"Retry-After": "1"})
    response = StreamingHttpResponse(stream.events(subscription, session_key), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    # A proxy must pass each event on as it comes, not buffer the stream.
    response["X-Accel-Buffering"] = "no"
    return response


# A project's settings ----------------------------------------------------------------


@project_page
def project_settings(request):
    """The project, its members, groups and keys, for its admins; a new key is shown on this answer only."""
    admins_only(request)
    project = request.project
    forms_shown, issued, status = {}, None, 200
    if request.method == "POST":
        action = request.POST.get("action")
        form_class = settings_forms.FORMS.get(action)
        if form_class is None:
            return HttpResponseBadRequest("Unknown settings action.")
        form = form_class(request.POST)
        if form.is_valid():
            try:
                issued = change_settings(project, action, form.cleaned_data, request.user)
            except DomainError as error:
                form.add_error(None, error.message)
        if form.errors:
            forms_shown[action], status = form, 422
        elif issued is None:
            messages.success(request, SETTINGS_DONE[action])
            return redirect("dashboard:settings", project_id=project.pk)
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    context = {
        "forms": {
            "project": ProjectForm(initial={"name": project.name, "retention_days": project.retention_days}),
            "member": settings_forms.MemberForm(),
            "group": settings_forms.GroupForm(),
            "key": settings_forms.KeyForm(),
            **forms_shown,
        },
        # A button beside a member, group or key has no form on the page to show its refusal in.
        "refused": [
            error for action in BUTTONS & forms_shown.keys() for error in forms_shown[action].non_field_errors()
        ],
        "members": administration.members(project),
        "groups": administration.groups(project),
        "api_keys": administration.api_keys(project),
        "issued": issued,
        "roles": Role.choices,
    }
    return render(request, "dashboard/settings.html", context, status=status)


SETTINGS_DONE = {
    "project": "The project's settings were saved.",
    "member": "The member's role was saved.",
    "remove_member": "The person left the project.",
    "group": "The group was saved.",
    "delete_group": "The group was deleted.",
    "revoke_key": "The key was revoked: it no longer works.",
}


BUTTONS = {"remove_member", "delete_group", "revoke_key"}


def change_settings(project, action, data, person):
    """Carry out one settings form as ``person``; returns the key in clear for a new key (None otherwise). A key
    made here is the person's: it decides as them."""
    actor = person.get_username()
    if action == "project":
        administration.update_project(project, actor=actor, name=data["name"], retention_days=data["retention_days"])
    elif action == "member":
        administration.set_member(project, data["username"], data["role"], actor=actor)
    elif action == "remove_member":
        administration.remove_member(project, data["username"], actor=actor)
    elif action == "group":
        administration.put_group(project, data["name"], data["members"], actor=actor)
    elif action == "delete_group":
        administration.delete_group(project, data["name"], actor=actor)
    elif action == "key":
        api_key, key = administration.issue_key(project, data["name"], data["scopes"], actor=actor, made_by=person)
        return {"api_key": api_key, "key": key}
    else:
        administration.revoke_key(project, data["key"], actor=actor)
    return None
