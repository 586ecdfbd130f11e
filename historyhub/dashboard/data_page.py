"""The data page of a project's settings, for its admins (docs/data.md, "On the dashboard"): export the project's
sessions with the API's filters, as the file the API and ``manage.py export`` write (``export.audited`` builds all
three), and import such a file under the API's import rules (``importing.importing``), its progress and result
streamed into the page as it runs.

The import answers one streamed page: the page down to its progress box, a progress line every PROGRESS_EVERY
sessions (or each second), then the result and the rest of the page. The stylesheet shows only the last of them,
so the box reads as one line that moves on, and then the result; no script is needed. The import is one
transaction that commits when the last line is read: a person who leaves before that imports nothing.
"""

import time

import pydantic
from django import forms
from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe

from historyhub import streaming
from historyhub.dashboard.access import admins_only, project_page
from historyhub.dashboard.receipts import UNSAFE_IN_FILE_NAMES
from historyhub.data import export, importing
from historyhub.data.schemas import ExportQuery
from historyhub.data.tallies import Tally
from historyhub.lib.errors import DomainError, InvalidInput

NDJSON = "application/x-ndjson"
PROGRESS_EVERY = 25
PROGRESS_SECONDS = 1.0
# Where the streamed answer puts its progress lines and result: split out of the rendered page.
PROGRESS_MARK = "<!-- import progress -->"
# Room in a request's body for the form's other fields and the multipart headers around the file.
FORM_OVERHEAD_BYTES = 64 * 1024


def upload_limit():
    """The largest file the page takes: what fits in a request body (HISTORYHUB_MAX_BODY_BYTES, which the server
    holds every request to before it reaches Django) with the form around it."""
    return settings.HISTORYHUB_MAX_BODY_BYTES - FORM_OVERHEAD_BYTES


class ExportForm(forms.Form):
    """The export API's filters (``ExportQuery``), by its rules."""

    agent = forms.CharField(required=False, max_length=200, label="Agent")
    updated_since = forms.CharField(
        required=False,
        max_length=100,
        label="Updated since",
        help_text="A time with its zone, e.g. 2026-09-28T12:00:00Z.",
    )
    session_id = forms.CharField(required=False, max_length=200, label="Session id")

    def query(self):
        """The filters as the API takes them, or None with the form's error."""
        given = {
            "agent": self.cleaned_data["agent"] or None,
            "updatedSince": self.cleaned_data["updated_since"] or None,
            "sessionId": self.cleaned_data["session_id"] or None,
        }
        try:
            return ExportQuery.model_validate(given)
        except pydantic.ValidationError as error:
            fields = {"agent": "agent", "updatedSince": "updated_since", "sessionId": "session_id"}
            for problem in error.errors():
                self.add_error(fields.get(str(problem["loc"][0])), problem["msg"])
            return None


class ImportForm(forms.Form):
    file = forms.FileField(label="Export file (JSON Lines)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > upload_limit():
            raise forms.ValidationError(
                f"The file is {megabytes(upload.size)}; the page takes at most {megabytes(upload_limit())}. "
                "Nothing was imported. Import larger files with manage.py import (docs/data.md).",
                code="too_large",
            )
        return upload


@project_page
def data_page(request):
    """GET: the page. POST ``action=export``: the download; ``action=import``: the import's streamed page."""
    admins_only(request)
    if request.method == "GET":
        return page(request, ExportForm(), ImportForm())
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    if request.POST.get("action") == "export":
        return exported(request)
    if request.POST.get("action") == "import":
        return imported(request)
    return HttpResponse("Unknown data action.", status=400)


def page(request, export_form, import_form, status=200, **extra):
    context = {"export_form": export_form, "import_form": import_form, "upload_limit": upload_limit(), **extra}
    return render(request, "dashboard/data.html", context, status=status)


def exported(request):
    form = ExportForm(request.POST)
    query = form.query() if form.is_valid() else None
    if query is not None:
        project = request.project.pk
        try:
            pieces = export.audited(project, request.user.get_username(), query)
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            name = UNSAFE_IN_FILE_NAMES.sub("_", f"{project}-{timezone.now():%Y%m%d-%H%M%S}.jsonl")
            disposition = content_disposition_header(as_attachment=True, filename=name)
            return streaming.response(request, pieces, NDJSON, **{"Content-Disposition": disposition})
    return page(request, form, ImportForm(), status=400)


def imported(request):
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return page(request, ExportForm(), form, status=413 if form.has_error("file", "too_large") else 400)
    upload = form.cleaned_data["file"]
    shown = render_to_string(
        "dashboard/data.html",
        {
            "export_form": ExportForm(),
            "import_form": ImportForm(),
            "upload_limit": upload_limit(),
            "importing": upload.name,
            "progress_mark": mark_safe(PROGRESS_MARK),  # noqa: S308 (a constant)
        },
        request=request,
    )
    head, tail = shown.split(PROGRESS_MARK)
    return streaming.response(request, import_pieces(request, upload, head, tail), "text/html; charset=utf-8")


def import_pieces(request, upload, head, tail):
    """The page down to its progress box, the progress lines as the import goes, its result, the rest."""
    yield head
    tally = Tally()
    steps = importing.importing(request.project.pk, text_lines(upload), actor=request.user.get_username(), tally=tally)
    said_at, said = time.monotonic(), 0
    try:
        for _ in steps:
            if tally.sessions - said >= PROGRESS_EVERY or time.monotonic() - said_at >= PROGRESS_SECONDS:
                yield render_to_string("dashboard/fragments/import_progress.html", {"tally": tally})
                said_at, said = time.monotonic(), tally.sessions
    except DomainError as error:
        refusal = importing.refused(error.message)
    else:
        refusal = None
    finally:
        steps.close()
    context = {"tally": tally, "refusal": refusal, "project": request.project}
    yield render_to_string("dashboard/fragments/import_result.html", context)
    yield tail


def text_lines(upload):
    """The uploaded file's lines as text; a line that is not UTF-8 refuses the file."""
    for number, raw in enumerate(upload, 1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(f"line {number} is not UTF-8 text.") from None


def megabytes(size):
    return f"{size / (1024 * 1024):.1f} MB"
