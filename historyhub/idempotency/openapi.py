"""The ``Idempotency-Key`` header and its 409 answers in the OpenAPI document, for every write under /api/v1."""

from historyhub.idempotency.middleware import API_PREFIX, HEADER, WRITE_METHODS
from historyhub.idempotency.records import REPLAYED_HEADER

PARAMETER = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "description": (
        "Makes the request safe to retry. Scoped to the API key; kept at least 24 hours. The first request "
        "with a key is applied and its answer (2xx or 4xx) recorded; a repeat with the same method, path and "
        "a body equal as JSON gets the recorded status and body back, with the response header "
        f"`{REPLAYED_HEADER}: true`, and changes nothing; a repeat that arrives while the first is still "
        "running waits for it. The same key with another method, path or body: 409 `idempotency_key_reused`. "
        "A value that is not 1-255 printable ASCII characters: 400 `invalid_input`."
    ),
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
}
CONFLICT = "`idempotency_key_reused`: the Idempotency-Key was already used with a different request."
ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}


def document(schema):
    """Declare the header and its 409 on every POST, PUT, PATCH and DELETE under /api/v1 of ninja's schema."""
    for path, operations in schema["paths"].items():
        if not path.startswith(API_PREFIX):
            continue
        for method, operation in operations.items():
            if method.upper() not in WRITE_METHODS:
                continue
            operation.setdefault("parameters", []).append(dict(PARAMETER))
            responses = operation["responses"]
            conflict = responses.get(409)
            if conflict is None:
                responses[409] = {"description": CONFLICT, "content": ERROR_CONTENT}
            else:
                conflict["description"] = f"{conflict['description']}; or {CONFLICT}"
    return schema
