"""Invitations over the API, with an ``admin`` key (docs/people.md): invite by email, the open invitations, revoke.

The link goes by email only: no answer here carries it.
"""

from datetime import datetime
from typing import Annotated

from ninja import Field, Path, Schema, Status

from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.lib.endpoints import errors
from historyhub.lib.schemas import Out, example
from historyhub.projects import invitations
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["projects"])
ADMIN = ApiKeyAuth(Scope.ADMIN)

InvitationId = Annotated[str, Path(alias="invitationId", example="01J9Z8Q4W1V8K3M5N7P9R2T4X6", max_length=26)]


class InvitationIn(Schema):
    model_config = example({"email": "alice@example.com", "role": "approver"})

    email: str = Field(description="Where the link goes.")
    role: str = Field(description="viewer, approver or admin: the role accepting gives.")


class InvitationOut(Out):
    invitationId: str = Field(validation_alias="id")
    email: str
    role: str
    expiresAt: datetime = Field(description="The link works until then, once.")


class InvitationList(Schema):
    items: list[InvitationOut]


@router.post("/invitations", auth=ADMIN, response={201: InvitationOut, **errors(403, 413)})
def create_invitation(request, body: InvitationIn):
    """Invite a person by email with a role; the link goes by email only, works once and for 7 days."""
    invitation = invitations.invite(request.auth.project, body.email, body.role, actor=resolved_by(request))
    return Status(201, invitation)


@router.get("/invitations", auth=ADMIN, response={200: InvitationList, **errors(403)})
def list_invitations(request):
    """The open invitations: not accepted, revoked or expired, newest first."""
    return {"items": list(invitations.open_invitations(request.auth.project))}


@router.delete("/invitations/{invitationId}", auth=ADMIN, response={204: None, **errors(403, 404)})
def revoke_invitation(request, invitation_id: InvitationId):
    """Revoke an open invitation: its link stops working."""
    invitations.revoke(request.auth.project, invitation_id, actor=resolved_by(request))
    return Status(204, None)
