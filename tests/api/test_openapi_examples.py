"""The OpenAPI document's examples are requests that succeed when tried in /api/docs, in the walk-through's order
(docs/api.md): every request body and path parameter example, sent as shown."""

import re

from django.contrib.auth.models import User

from historyhub.apikeys.models import ApiKey
from historyhub.projects.models import Membership, Role
from tests.support.actors import ApiClient
from tests.support.readers import operations

# The order a person trying the document would follow, and what each answers; the decision needs a key other
# than the one that opened the action, and the project's settings an admin key.
WALK = [
    ("createSession", 201, "agent"),
    ("updateSession", 200, "agent"),
    ("appendItems", 200, "agent"),
    ("applyTransaction", 200, "agent"),
    ("createInjection", 201, "agent"),
    ("replaceMessages", 200, "agent"),
    ("replaceItems", 200, "agent"),
    ("compactItems", 200, "agent"),
    ("openClientAction", 201, "agent"),
    ("parkRun", 201, "agent"),
    ("decideClientAction", 200, "people"),
    # The example's digest is the one of the opened (and approved) example's arguments.
    ("claimClientActionExecution", 200, "agent"),
    ("claimRun", 200, "agent"),
    ("deleteRun", 204, "agent"),
    # A result is the other way an action ends: the same ids again, from the start.
    ("deleteSession", 204, "agent"),
    ("createSession", 201, "agent"),
    ("openClientAction", 201, "agent"),
    ("supplyClientActionResult", 200, "agent"),
    ("updateProject", 200, "admin"),
    ("putGroup", 200, "admin"),
    ("createInvitation", 201, "admin"),
    ("revokeInvitation", 204, "admin"),
    ("replacePolicies", 200, "admin"),
    ("replacePrices", 200, "admin"),
    ("createChannel", 201, "admin"),
    ("updateChannel", 200, "admin"),
    # Last: it erases the walk's session (its customer is the example's).
    ("createErasure", 200, "agent"),
]


def request_of(spec, operation, made=None):
    """The path with its parameters' examples (or the ids the server ``made`` earlier in the walk, as a person
    copies a new channel's id from its answer), and the body's example (None without a body)."""
    path = operation["path"]
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            assert "example" in parameter, f"{operation['operationId']}: {parameter['name']} has no example"
            value = (made or {}).get(parameter["name"], parameter["example"])
            path = path.replace("{" + parameter["name"] + "}", str(value))
    assert not re.search(r"\{\w+\}", path)
    if "requestBody" not in operation:
        return path, None
    reference = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = spec["components"]["schemas"][reference.rsplit("/", 1)[-1]]
    assert schema.get("examples"), f"{operation['operationId']}: its body has no example"
    return path, schema["examples"][0]


def test_every_example_is_a_request_that_succeeds(db, anonymous):
    spec = anonymous.get("/api/openapi.json").json()
    by_id = {
        operation["operationId"]: {**operation, "method": method, "path": path}
        for (method, path), operation in operations(spec).items()
    }
    # JSON bodies; an import's body is the JSON Lines an export gives (tests/data/test_import.py).
    with_bodies = {
        name
        for name, operation in by_id.items()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    }
    assert with_bodies <= {name for name, _, _ in WALK}, "a body without a place in the walk"
    # The demo's login, whom the group example names.
    Membership.objects.create(user=User.objects.create_user("demo"), project_id="default", role=Role.ADMIN)
    clients = {
        scope: ApiClient(ApiKey.issue(f"docs {scope}", scopes)[1])
        for scope, scopes in (("agent", "write"), ("people", "decide"), ("admin", "admin"))
    }
    made = {}
    for name, status, who in WALK:
        operation = by_id[name]
        path, body = request_of(spec, operation, made)
        response = clients[who].request(operation["method"].upper(), path, body)
        assert response.status_code == status, (name, response.content)
        if name == "createChannel":
            made["channelId"] = response.json()["channelId"]
        if name == "createInvitation":
            made["invitationId"] = response.json()["invitationId"]
    # The reads, with their path examples, find what the walk made.
    path, _ = request_of(spec, by_id["getSession"])
    assert clients["agent"].get(path).status_code == 404, "the erasure example erased the walk's session"
