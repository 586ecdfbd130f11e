"""A client action's receipt, downloaded from its card (docs/receipts.md): the same signed JWS the API answers, for
anyone who may see the session, as ``<project>-<callId>-receipt.jws``."""

import re

from django.http import Http404, HttpResponse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from historyhub.approvals import receipts
from historyhub.dashboard.access import project_page
from historyhub.dashboard.session_page import action_or_404
from historyhub.lib.errors import ActionResultConflict

# What a file name keeps of an id: anything else (a "/", a space, a quote) becomes "_".
UNSAFE_IN_FILE_NAMES = re.compile(r"[^A-Za-z0-9._-]")


@require_GET
@project_page
def download_receipt(request, session_id, call_id):
    action = action_or_404(request, session_id, call_id)
    try:
        receipt = receipts.issue(action.session_id, action.call_id)
    except ActionResultConflict:
        raise Http404("This action is still waiting: it has a receipt once it is decided.") from None
    name = UNSAFE_IN_FILE_NAMES.sub("_", f"{request.project.pk}-{action.call_id}-receipt.jws")
    response = HttpResponse(receipt, content_type=receipts.MEDIA_TYPE)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=name)
    return response
