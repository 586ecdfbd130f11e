"""``/mcp`` before its MCP session starts (historyhub/serving/mcp.py): a host not served and a request without a
valid key are refused with the API's error envelope, as the API refuses them."""

import pytest

from tests.support.readers import envelope
from tests.support.servers import fetch

INITIALIZE = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}'
JSON_RPC = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("authorization", [None, "Bearer hh_not-a-key"])
def test_a_request_without_a_valid_key_is_401_with_the_apis_envelope(asgi_live_server, authorization):
    headers = {**JSON_RPC, **({"Authorization": authorization} if authorization else {})}

    answer = fetch(f"{asgi_live_server.url}/mcp", headers, INITIALIZE)

    assert answer.status == 401 and answer.headers["WWW-Authenticate"] == "Bearer"
    assert envelope(answer.headers["Content-Type"], answer.read()) == {
        "code": "unauthorized",
        "message": "A valid API key is required: Authorization: Bearer <key>.",
    }


def test_a_host_not_served_is_400_with_the_envelope(asgi_live_server):
    answer = fetch(f"{asgi_live_server.url}/mcp", {**JSON_RPC, "Host": "evil.example.com"}, INITIALIZE)

    assert answer.status == 400
    assert envelope(answer.headers["Content-Type"], answer.read()) == {
        "code": "invalid_input",
        "message": "This host is not served here.",
    }
