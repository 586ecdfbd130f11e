"""The OpenAPI document is the contract, byte for byte: moving code between apps must not change it.

``openapi.json`` beside this test is the document as served at /api/openapi.json under the test settings. A change
of the contract itself (a new field, a new route) updates it in the same commit: write the served document over it
(``client.get("/api/openapi.json").content``) and review the diff as the contract's diff. Route order, operationIds,
tags and the schemas' names and order are all in it.
"""

from pathlib import Path

SERVED = Path(__file__).with_name("openapi.json")


def test_the_served_document_is_the_recorded_one_byte_for_byte(client):
    answer = client.get("/api/openapi.json")

    assert answer.status_code == 200
    assert answer.content == SERVED.read_bytes()
