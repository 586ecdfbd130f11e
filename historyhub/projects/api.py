"""The project of the calling key, and managing it as code: its name, retention and groups (docs/projects.md).

Reading the project needs any key; changing it, or reading its groups, needs an ``admin`` key. Every function
here acts on ``request.auth.project``: a key has no way to name another project.
"""

from typing import Annotated

from ninja import Field, Path, Schema, Status

from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.lib.endpoints import errors
from historyhub.lib.schemas import WITHOUT_NUL, Identifier, Out, example
from historyhub.lib.validation import MAX_ID_LENGTH
from historyhub.projects import administration
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["projects"])
ADMIN = ApiKeyAuth(Scope.ADMIN)

GroupName = Annotated[
    str, Path(alias="name", example="finance", min_length=1, max_length=MAX_ID_LENGTH, pattern=WITHOUT_NUL)
]


class ProjectOut(Out):
    projectId: str = Field(validation_alias="id")
    name: str
    retentionDays: int | None = Field(description="Sessions not updated for this many days are deleted; null keeps.")


class ProjectPatch(Schema):
    model_config = example({"name": "Support", "retentionDays": 90})

    name: str | None = Field(None, description="1-200 characters.")
    retentionDays: int | None = Field(None, description="1 day or more; null keeps sessions for ever.")


class GroupOut(Schema):
    name: str
    members: list[str] = Field(description="Usernames, in order.")

    @staticmethod
    def resolve_members(group):
        return sorted(user.username for user in group.members.all())


class GroupList(Schema):
    items: list[GroupOut]


class GroupIn(Schema):
    model_config = example({"members": ["demo"]})

    members: list[Identifier] = Field(max_length=1000, description="Usernames of members of the project.")


@router.get("/project", response={200: ProjectOut, **errors()})
def get_project(request):
    """The project the key belongs to."""
    return request.auth.project


@router.patch("/project", auth=ADMIN, response={200: ProjectOut, **errors(403, 413)})
def update_project(request, body: ProjectPatch):
    """Change the project's name or retention; the fields left out stay as they are."""
    given = body.model_fields_set
    changes: dict[str, object] = {}
    if "name" in given:
        changes["name"] = body.name
    if "retentionDays" in given:
        changes["retention_days"] = body.retentionDays
    return administration.update_project(request.auth.project, actor=resolved_by(request), **changes)


@router.get("/groups", auth=ADMIN, response={200: GroupList, **errors(403)})
def list_groups(request):
    return {"items": list(administration.groups(request.auth.project))}


@router.put("/groups/{name}", auth=ADMIN, response={200: GroupOut, **errors(403, 409, 413)})
def put_group(request, name: GroupName, body: GroupIn):
    """Create the group, or replace its members; an unknown username changes nothing (400), and so does a change
    that would leave a people-only policy with fewer people who may decide than it needs (409)."""
    return administration.put_group(request.auth.project, name, body.members, actor=resolved_by(request))


@router.delete("/groups/{name}", auth=ADMIN, response={204: None, **errors(403, 404, 409)})
def delete_group(request, name: GroupName):
    """Delete the group; one a policy names stays (409, naming the policy)."""
    administration.delete_group(request.auth.project, name, actor=resolved_by(request))
    return Status(204, None)
