"""The OpenAPI document declares the Idempotency-Key header and its 409 on every write."""

import pytest

from tests.support.readers import ERROR_REF, operations


@pytest.fixture
def spec(anonymous):
    return anonymous.get("/api/openapi.json").json()


def header_parameters(operation):
    return [parameter for parameter in operation.get("parameters", []) if parameter["in"] == "header"]


def test_every_write_declares_the_optional_header_and_the_409_it_may_answer(spec):
    writes = {key: operation for key, operation in operations(spec).items() if key[0] != "get"}

    assert writes
    for (method, path), operation in writes.items():
        [parameter] = header_parameters(operation)
        assert parameter["name"] == "Idempotency-Key" and parameter["required"] is False, (method, path)
        assert parameter["schema"] == {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"}
        conflict = operation["responses"]["409"]
        assert "idempotency_key_reused" in conflict["description"], (method, path)
        assert conflict["content"]["application/json"]["schema"] == ERROR_REF


def test_an_endpoint_that_had_its_own_409_keeps_it_beside_the_key_reuse(spec):
    conflict = operations(spec)[("post", "/api/v1/sessions/{sessionId}/transactions")]["responses"]["409"]

    assert conflict["description"].startswith("Conflict; or ")


def test_reads_do_not_declare_the_header(spec):
    reads = [operation for (method, _), operation in operations(spec).items() if method == "get"]

    assert reads and all(header_parameters(operation) == [] for operation in reads)
