"""The runs endpoints: park a run's state, list the ready ones, claim one to resume it."""

from typing import Annotated

from ninja import Path, Query, Status

from historyhub.apikeys.auth import resolved_by
from historyhub.lib.endpoints import SessionId, errors, page_of
from historyhub.projects.scoping import ScopedRouter
from historyhub.runs import parking
from historyhub.runs.schemas import RUN_ID_PATTERN, ClaimIn, RunIn, RunOut, RunPage, RunQuery

router = ScopedRouter(tags=["runs"])

RunId = Annotated[str, Path(alias="runId", example="run-1", pattern=RUN_ID_PATTERN)]


@router.put("/sessions/{sessionId}/runs/{runId}", response={201: RunOut, 200: RunOut, **errors(403, 404, 413)})
def park_run(request, key: SessionId, run_id: RunId, body: RunIn):
    """Keep a run's state until the client actions it names are decided (201 new, 200 replaced; a claim ends)."""
    run, created = parking.park(key, run_id, agent=body.agent, state=body.state, call_ids=body.callIds)
    return Status(201 if created else 200, run)


@router.get("/sessions/{sessionId}/runs/{runId}", response={200: RunOut, **errors(404)})
def get_run(request, key: SessionId, run_id: RunId):
    return parking.get(key, run_id)


@router.delete("/sessions/{sessionId}/runs/{runId}", response={204: None, **errors(403, 404)})
def delete_run(request, key: SessionId, run_id: RunId):
    """Forget a run: it finished, or nobody will resume it."""
    parking.delete(key, run_id)
    return Status(204, None)


@router.get("/runs", response={200: RunPage, **errors()})
def list_runs(request, query: Query[RunQuery]):
    """Parked runs across sessions, oldest change first; ``ready=true`` lists those a resumer can claim."""
    return page_of(
        parking.search(request.auth.project_id, ready=query.ready, agent=query.agent, session_id=query.sessionId), query
    )


@router.post("/sessions/{sessionId}/runs/{runId}/claim", response={200: RunOut, **errors(403, 404, 409, 413)})
def claim_run(request, key: SessionId, run_id: RunId, body: ClaimIn):
    """Take a ready run to resume it, with its state; 409 run_claimed when another resumer holds it,
    409 run_not_ready while an awaited client action still waits."""
    return parking.claim(key, run_id, lease_seconds=body.leaseSeconds, claimed_by=resolved_by(request))
