"""Erasure, export and import over the API (docs/api.md, "Data"): parse, call the domain, shape the answer.

Every function acts on ``request.auth.project_id``: a key reaches no other project's sessions.
"""

from ninja import Query

from historyhub import streaming
from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.data import erasure, export, importing
from historyhub.data.schemas import ErasureIn, ErasureOut, ExportQuery, ImportOut
from historyhub.lib.endpoints import errors
from historyhub.lib.errors import InvalidInput
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["data"])
NDJSON = "application/x-ndjson"


@router.post("/erasures", response={200: ErasureOut, **errors(403, 413)})
def create_erasure(request, body: ErasureIn):
    """Delete every session of the project whose metadata has exactly this value under this key, with all
    they own (child sessions too), at once."""
    deleted = erasure.erase(request.auth.project_id, body.metadataKey, body.metadataValue, actor=resolved_by(request))
    return {"sessionsDeleted": deleted}


@router.get("/export", response={200: None, **errors()})
def export_sessions(request, query: Query[ExportQuery]):
    """The project's sessions as JSON Lines (application/x-ndjson), one session a line, streamed in constant
    memory: {session, items: [{position, epoch, item}], clientActions, runs}."""
    return streaming.response(request, export.audited(request.auth.project_id, resolved_by(request), query), NDJSON)


IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {NDJSON: {"schema": {"type": "string", "description": "Lines of GET /api/v1/export."}}},
    }
}


@router.post(
    "/import",
    auth=ApiKeyAuth(Scope.ADMIN),
    response={200: ImportOut, **errors(403, 409, 413)},
    openapi_extra=IMPORT_BODY,
)
def import_sessions(request):
    """Recreate the sessions of an export's lines in the key's project, in one transaction (admin key: other keys
    403): a session id the project holds already is 409 session_conflict, a value outside the API's rules 400
    naming its line, and nothing is imported. Actions imported resolved are marked ``imported`` and never decided
    here; waiting ones are governed by this project's policies, opened by this key (docs/data.md, "Import")."""
    if request.content_type != NDJSON:
        raise InvalidInput(f"The body must be JSON Lines sent as Content-Type: {NDJSON}.")
    try:
        text = request.body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("The body must be UTF-8 text.") from None
    imported = importing.import_lines(
        request.auth.project_id, text.split("\n"), actor=resolved_by(request), by_key=request.auth
    )
    return {"imported": imported}
