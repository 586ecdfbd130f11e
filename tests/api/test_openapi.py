"""The OpenAPI document: valid, complete, and honest about every answer."""

import jsonschema
import pytest
from openapi_spec_validator import validate

from historyhub.history import response_schemas
from historyhub.lib.errors import InvalidInput
from tests.support.html import parse
from tests.support.readers import ERROR_REF, operations

ENDPOINTS = {
    ("post", "/api/v1/sessions"),
    ("get", "/api/v1/sessions"),
    ("get", "/api/v1/sessions/{sessionId}"),
    ("patch", "/api/v1/sessions/{sessionId}"),
    ("delete", "/api/v1/sessions/{sessionId}"),
    ("get", "/api/v1/sessions/{sessionId}/history"),
    ("get", "/api/v1/sessions/{sessionId}/items"),
    ("post", "/api/v1/sessions/{sessionId}/items"),
    ("put", "/api/v1/sessions/{sessionId}/items"),
    ("delete", "/api/v1/sessions/{sessionId}/items"),
    ("post", "/api/v1/sessions/{sessionId}/items/pop"),
    ("post", "/api/v1/sessions/{sessionId}/compaction"),
    ("post", "/api/v1/sessions/{sessionId}/transactions"),
    ("get", "/api/v1/sessions/{sessionId}/responses/{messageId}"),
    ("get", "/api/v1/sessions/{sessionId}/entries"),
    ("post", "/api/v1/sessions/{sessionId}/injections"),
    ("get", "/api/v1/sessions/{sessionId}/messages"),
    ("put", "/api/v1/sessions/{sessionId}/messages"),
    ("post", "/api/v1/sessions/{sessionId}/client-actions"),
    ("get", "/api/v1/client-actions"),
    ("get", "/api/v1/sessions/{sessionId}/client-actions/{callId}"),
    ("post", "/api/v1/sessions/{sessionId}/client-actions/{callId}/result"),
    ("post", "/api/v1/sessions/{sessionId}/client-actions/{callId}/decision"),
    ("post", "/api/v1/sessions/{sessionId}/client-actions/{callId}/execution"),
    ("get", "/api/v1/sessions/{sessionId}/client-actions/{callId}/receipt"),
    ("put", "/api/v1/sessions/{sessionId}/runs/{runId}"),
    ("get", "/api/v1/sessions/{sessionId}/runs/{runId}"),
    ("delete", "/api/v1/sessions/{sessionId}/runs/{runId}"),
    ("post", "/api/v1/sessions/{sessionId}/runs/{runId}/claim"),
    ("get", "/api/v1/runs"),
    # Reads of the actions whose callId ends in /result, /decision or /execution: the paths answer GET too (Allow
    # says so).
    ("get", "/api/v1/sessions/{sessionId}/client-actions/{callId}/result"),
    ("get", "/api/v1/sessions/{sessionId}/client-actions/{callId}/decision"),
    ("get", "/api/v1/sessions/{sessionId}/client-actions/{callId}/execution"),
    ("get", "/api/v1/project"),
    ("patch", "/api/v1/project"),
    ("get", "/api/v1/groups"),
    ("put", "/api/v1/groups/{name}"),
    ("delete", "/api/v1/groups/{name}"),
    ("post", "/api/v1/invitations"),
    ("get", "/api/v1/invitations"),
    ("delete", "/api/v1/invitations/{invitationId}"),
    ("post", "/api/v1/erasures"),
    ("get", "/api/v1/export"),
    ("post", "/api/v1/import"),
    ("get", "/api/v1/audit"),
    ("get", "/api/v1/channels"),
    ("post", "/api/v1/channels"),
    ("patch", "/api/v1/channels/{channelId}"),
    ("delete", "/api/v1/channels/{channelId}"),
    ("post", "/api/v1/channels/{channelId}/rotate-secret"),
    ("get", "/api/v1/channels/{channelId}/deliveries"),
    ("post", "/api/v1/channels/{channelId}/deliveries/{deliveryId}/retry"),
    ("get", "/api/v1/policies"),
    ("put", "/api/v1/policies"),
    ("get", "/api/v1/insights/approvals"),
    ("get", "/api/v1/insights/usage"),
    ("get", "/api/v1/prices"),
    ("put", "/api/v1/prices"),
}


@pytest.fixture
def spec(anonymous):
    response = anonymous.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_it_is_a_valid_openapi_3_document(spec):
    assert spec["openapi"].startswith("3.")
    validate(spec)


def test_it_describes_every_endpoint_of_the_contract(spec):
    assert set(operations(spec)) == ENDPOINTS


def test_every_operation_has_a_unique_camel_case_id(spec):
    ids = [operation["operationId"] for operation in operations(spec).values()]

    assert len(set(ids)) == len(ids)
    assert "createSession" in ids and "decideClientAction" in ids


def test_every_operation_needs_a_bearer_key(spec):
    assert spec["components"]["securitySchemes"] == {"ApiKeyAuth": {"type": "http", "scheme": "bearer"}}
    for operation in operations(spec).values():
        assert operation["security"] == [{"ApiKeyAuth": []}]


def test_every_operation_declares_its_errors_in_the_error_shape(spec):
    for (method, path), operation in operations(spec).items():
        responses = operation["responses"]
        assert {"400", "401"} <= set(responses), (method, path)
        if method != "get":
            assert "403" in responses, (method, path)
        for status, response in responses.items():
            if status.startswith(("4", "5")):
                assert response["content"]["application/json"]["schema"] == ERROR_REF, (method, path, status)


def test_the_error_schema_has_a_code_and_a_message(spec):
    schemas = spec["components"]["schemas"]

    assert schemas["Error"]["required"] == ["error"]
    assert set(schemas["ErrorDetail"]["required"]) == {"code", "message"}


def test_request_bodies_with_a_limit_declare_413(spec):
    for (method, path), operation in operations(spec).items():
        if "requestBody" in operation:
            assert "413" in operation["responses"], (method, path)


def test_pagination_is_documented_as_integers(spec):
    parameters = {p["name"]: p["schema"] for p in operations(spec)[("get", "/api/v1/sessions")]["parameters"]}

    assert parameters["page"].items() >= {"type": "integer", "minimum": 1, "default": 1}.items()
    assert parameters["pageSize"].items() >= {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}.items()


def test_creating_answers_201_or_200(spec):
    created = operations(spec)[("post", "/api/v1/sessions")]["responses"]
    injected = operations(spec)[("post", "/api/v1/sessions/{sessionId}/injections")]["responses"]

    assert {"200", "201"} <= set(created)
    assert "201" in injected


def test_the_interactive_docs_are_served_from_our_own_static_files(client):
    response = client.get("/api/docs")

    assert response.status_code == 200
    assert parse(response).one("script[src='/static/ninja/swagger-ui-bundle.js']")
    assert "script-src 'self'" in response["Content-Security-Policy"]


SCHEMAS = [
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}, True),
    ({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3.0}}, "title": "T"}, True),
    (
        {"type": "object", "properties": {"a": {"type": "boolean", "default": True}}, "additionalProperties": False},
        True,
    ),
    ({"type": "array"}, False),
    ({"type": "object", "properties": {}}, False),
    ({"type": "object", "properties": {"": {"type": "string"}}}, False),
    ({"type": "object", "properties": {"a": {"type": "object"}}}, False),
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}, False),
    ({"type": "object", "properties": {"a": {"type": "array"}}}, False),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}}, False),
    ({"type": "object", "properties": {"a": {"type": "number", "enum": ["x"]}}}, False),
    ({"type": "object", "properties": {"a": {"type": "string", "maxLength": 0}}}, False),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}, False),
]


@pytest.mark.parametrize(("schema", "accepted"), SCHEMAS)
def test_it_states_the_response_schema_subset_the_server_accepts(spec, schema, accepted):
    """Generated clients and checkers read the subset from the OpenAPI document; it must say what the server
    does (but for the two rules JSON Schema cannot state, which check_schema alone keeps)."""
    form = spec["components"]["schemas"]["ClientActionIn"]["properties"]["responseSchema"]["anyOf"][0]
    try:
        response_schemas.check_schema(schema)
        server = True
    except InvalidInput:
        server = False

    assert (jsonschema.Draft202012Validator(form).is_valid(schema), server) == (accepted, accepted)
