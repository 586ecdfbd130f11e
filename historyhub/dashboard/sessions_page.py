"""The sessions page: a project's sessions, searched and filtered, a page at a time (docs/dashboard.md,
"Reading"). An open page hears of changes through its live stream and asks again; a refresh that carries the
stamp of what the page shows gets 204 No Content when nothing changed."""

import hashlib
from typing import NamedTuple

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from historyhub.dashboard import snippets
from historyhub.dashboard.access import project_page
from historyhub.dashboard.forms import SessionFilters
from historyhub.dashboard.pagination import in_use, page_context
from historyhub.databases.router import replica_reads
from historyhub.history import sessions
from historyhub.history.models import Session
from historyhub.lib import paging

SESSIONS_PAGE_SIZE = 25
# The sessions page counts matches up to here, then says "More than 200" (docs/search.md, "Counting").
SESSIONS_COUNT_LIMIT = 200


@require_GET
@project_page
@vary_on_headers("HX-Request")
@replica_reads
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
