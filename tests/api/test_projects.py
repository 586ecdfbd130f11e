"""Projects over the API: a key acts in its project only, and everything of another project does not exist for
it (docs/projects.md, "Scoping")."""

import json

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.history import client_actions, sessions
from historyhub.history.models import ClientAction, Item, Session
from historyhub.projects import administration
from historyhub.projects.models import Group, Membership, Project, Role
from historyhub.runs.models import Run
from tests.support.actors import ApiClient
from tests.support.readers import assert_error, operations

SESSION = "support-42"
NOWHERE = "nowhere-1"

# A valid request of every operation that names a session, so an answer of 404 is the scoping's and not a
# refused body's. A new operation that names a session fails the walk below until it is added here.
BODIES = {
    "updateSession": {"name": "renamed"},
    "appendItems": {"items": [{"role": "user", "content": "hi"}]},
    "replaceItems": {"items": [{"role": "user", "content": "all new"}]},
    "compactItems": {"items": [{"type": "compaction", "id": "cmp-9", "encrypted_content": "summary"}]},
    "applyTransaction": {"operationId": "op-9", "transaction": {"type": "append_items", "items": []}},
    "createInjection": {"content": "A note."},
    "replaceMessages": {"messages": [{"role": "user", "content": "hi"}]},
    "openClientAction": {"callId": "c9", "name": "issue_refund", "arguments": {}},
    "supplyClientActionResult": {"output": "done"},
    "decideClientAction": {"decision": "reject", "comment": "no"},
    "claimClientActionExecution": {"argumentsDigest": "sha256:" + "0" * 64},
    "parkRun": {"agent": "support", "state": "{}", "callIds": ["c1"]},
    "claimRun": {},
}
AS_IF_EMPTY = {
    "listItems",
    "appendItems",
    "replaceItems",
    "clearItems",
    "popItem",
    "compactItems",
    "applyTransaction",
    "findResponse",
    "listEntries",
    "createInjection",
    "getMessages",
    "replaceMessages",
}
# Operations that name no session act on the key's own project, which the tests below read.
PROJECT_WIDE = {
    "createSession",
    "listSessions",
    "listClientActions",
    "listRuns",
    "getProject",
    "updateProject",
    "listGroups",
    "putGroup",
    "deleteGroup",
    "createInvitation",
    "listInvitations",
    "revokeInvitation",
    "createErasure",
    "exportSessions",
    "importSessions",
    "listChannels",
    "createChannel",
    "updateChannel",
    "deleteChannel",
    "listDeliveries",
    "retryDelivery",
    "rotateChannelSecret",
    "listPolicies",
    "replacePolicies",
    "listAuditEntries",
    "getApprovalInsights",
    "getUsageInsights",
    "listPrices",
    "replacePrices",
}


@pytest.fixture
def other_project(db):
    return administration.create_project("staging", "Staging")


@pytest.fixture
def stranger(other_project):
    """A key of another project with every scope but admin."""
    return ApiClient(ApiKey.issue("staging agent", "write,decide", project=other_project)[1])


@pytest.fixture
def owned(api):
    """A session of the default project with items, a waiting client action and a parked run."""
    assert api.post("sessions", {"sessionId": SESSION, "agent": "support"}).status_code == 201
    api.post(f"sessions/{SESSION}/items", {"items": [{"role": "user", "content": "refund me"}]})
    opened = api.post(f"sessions/{SESSION}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}})
    assert opened.status_code == 201
    parked = api.put(f"sessions/{SESSION}/runs/r1", {"agent": "support", "state": "{}", "callIds": ["c1"]})
    assert parked.status_code == 201
    return sessions.get(SESSION)


def path_of(template, session_id):
    return (
        template.removeprefix("/api/v1/")
        .replace("{sessionId}", session_id)
        .replace("{callId}", "c1")
        .replace("{runId}", "r1")
        .replace("{messageId}", "m1")
    )


def answer(response):
    """Status and body, without the session id as it was named and the times, to compare two answers."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode().replace(SESSION, "<id>").replace(NOWHERE, "<id>")
    return response.status_code, timeless(json.loads(text)) if text else None


def timeless(value):
    if isinstance(value, dict):
        return {key: timeless(item) for key, item in value.items() if key != "timestamp" and not key.endswith("At")}
    if isinstance(value, list):
        return [timeless(item) for item in value]
    return value


def state_of_default():
    return (
        list(Session.objects.values_list("id", "version", "name", "item_count")),
        Item.objects.count(),
        list(ClientAction.objects.values_list("call_id", "status")),
        list(Run.objects.values_list("run_id", "claimed_by")),
    )


def test_every_operation_naming_a_session_answers_another_projects_key_as_for_an_id_that_exists_nowhere(
    api, owned, stranger, other_project
):
    stranger_project = other_project
    spec = api.get("/api/openapi.json").json()
    before = state_of_default()
    walked = set()
    for (method, template), operation in operations(spec).items():
        name = operation["operationId"]
        if "{sessionId}" not in template:
            assert name in PROJECT_WIDE, f"{name}: say whether it names a session (BODIES) or acts project-wide"
            continue
        body = BODIES.get(name) if "requestBody" in operation else None
        assert "requestBody" not in operation or body is not None, f"{name} needs a valid body in BODIES"
        theirs = answer(stranger.request(method, path_of(template, SESSION), body))
        missing = answer(stranger.request(method, path_of(template, NOWHERE), body))
        # What the stranger's calls made lives in its own project; each call starts from none of it.
        for key in Session.objects.filter(project=stranger_project).values_list("id", flat=True):
            sessions.delete(key, actor="tests")
        assert theirs == missing, name
        # The agent SDK's protocol reads a missing session as an empty one, and writing to one creates it.
        assert (theirs[0] == 404) == (name not in AS_IF_EMPTY), (name, theirs)
        walked.add(name)
    assert walked >= set(BODIES) and len(walked) >= 25
    assert state_of_default() == before
    assert client_actions.get(SESSION, "c1").status == "waiting"


def test_lists_show_only_the_keys_project(api, owned, stranger):
    for path in ("sessions", "client-actions", "runs"):
        assert api.get(path).json()["total"] >= 1
        answer = stranger.get(path).json()
        assert answer["total"] == 0 and answer["items"] == [], path
    assert stranger.get("client-actions", sessionId=SESSION).json()["total"] == 0
    assert stranger.get("sessions", q="refund").json()["total"] == 0


def test_two_projects_each_hold_the_same_session_id_apart(api, owned, stranger):
    created = stranger.post("sessions", {"sessionId": SESSION, "agent": "staging-support"})
    assert created.status_code == 201 and created.json()["sessionId"] == SESSION
    stranger.post(f"sessions/{SESSION}/items", {"items": [{"role": "user", "content": "staging only"}]})

    ours, theirs = api.get(f"sessions/{SESSION}").json(), stranger.get(f"sessions/{SESSION}").json()
    assert (ours["agent"], theirs["agent"]) == ("support", "staging-support")
    assert ours["itemCount"] == 1 and theirs["itemCount"] == 1
    assert api.get(f"sessions/{SESSION}/messages").json()["messages"][0]["content"] == "refund me"
    assert stranger.get(f"sessions/{SESSION}/messages").json()["messages"][0]["content"] == "staging only"
    assert stranger.delete(f"sessions/{SESSION}").status_code == 204
    assert api.get(f"sessions/{SESSION}").status_code == 200


def test_a_child_session_cannot_name_a_parent_of_another_project(owned, stranger):
    response = stranger.post(
        "sessions", {"sessionId": "child-1", "agent": "sub", "parentSessionId": SESSION, "parentCallId": "c1"}
    )
    assert response.status_code == 404 and response.json()["error"]["code"] == "session_not_found"
    assert not Session.objects.filter(session_id="child-1").exists()


def test_a_decision_key_of_another_project_cannot_decide_and_learns_nothing(owned, stranger):
    response = stranger.post(f"sessions/{SESSION}/client-actions/c1/decision", {"decision": "approve"})
    assert_error(response, 404, "session_not_found", f"Session {SESSION!r} was not found.")
    assert client_actions.get(SESSION, "c1").status == "waiting"


def test_get_project_answers_the_keys_project(read_api, other_project, stranger):
    assert read_api.get("project").json() == {"projectId": "default", "name": "Default", "retentionDays": None}
    assert stranger.get("project").json() == {"projectId": "staging", "name": "Staging", "retentionDays": None}


def test_an_admin_key_changes_the_name_and_retention_and_others_may_not(api, admin_api):
    assert_error(api.patch("project", {"retentionDays": 30}), 403, "forbidden")
    changed = admin_api.patch("project", {"retentionDays": 30})
    assert changed.status_code == 200 and changed.json()["retentionDays"] == 30
    assert changed.json()["name"] == "Default"
    assert admin_api.patch("project", {"name": "Support"}).json() == {
        "projectId": "default",
        "name": "Support",
        "retentionDays": 30,
    }
    assert admin_api.patch("project", {"retentionDays": None}).json()["retentionDays"] is None
    for bad in ({"retentionDays": 0}, {"retentionDays": -3}, {"name": ""}, {"name": "x" * 201}):
        assert_error(admin_api.patch("project", bad), 400, "invalid_input")
    assert Project.objects.get(pk="default").name == "Support"


def test_groups_are_kept_as_code_with_members_of_the_project_only(admin_api, api, django_user_model):
    for username in ("ana", "ben"):
        user = django_user_model.objects.create_user(username)
        Membership.objects.create(user=user, project_id="default", role=Role.APPROVER)
    django_user_model.objects.create_user("outsider")

    assert_error(api.get("groups"), 403, "forbidden")
    put = admin_api.put("groups/finance", {"members": ["ben", "ana"]})
    assert put.status_code == 200 and put.json() == {"name": "finance", "members": ["ana", "ben"]}
    refused = admin_api.put("groups/finance", {"members": ["ana", "outsider"]})
    assert_error(refused, 400, "invalid_input", "'outsider' is not a member of this project.")
    assert admin_api.get("groups").json() == {"items": [{"name": "finance", "members": ["ana", "ben"]}]}
    assert admin_api.put("groups/finance", {"members": ["ana"]}).json()["members"] == ["ana"]
    assert admin_api.delete("groups/finance").status_code == 204
    assert_error(admin_api.delete("groups/finance"), 404, "not_found")
    assert not Group.objects.exists()
