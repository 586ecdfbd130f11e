"""The HTTP layer: JSON requests with a bearer key, errors as exceptions."""

import json
import urllib.error
import urllib.parse
import urllib.request


class HistoryHubError(Exception):
    """An error answer of the API: ``status``, ``code`` and ``message`` as API.md names them."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class HistoryHubClient:
    """Blocking calls to ``/api/v1``; one method an endpoint, named as API.md names it."""

    def __init__(self, base_url, api_key, timeout=70):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def request(self, method, path, body=None, **query):
        params = {name: value for name, value in query.items() if value is not None}
        url = f"{self.base_url}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.api_key}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            raise _as_error(error) from None
        return json.loads(payload) if payload else None

    # Sessions ---------------------------------------------------------------

    def create_session(self, agent, session_id=None, **fields):
        return self.request("POST", "sessions", {"agent": agent, "sessionId": session_id, **fields})

    def get_session(self, session_id):
        return self.request("GET", f"sessions/{_quote(session_id)}")

    def list_sessions(self, **filters):
        return self.request("GET", "sessions", **filters)

    def update_session(self, session_id, **changes):
        return self.request("PATCH", f"sessions/{_quote(session_id)}", changes)

    def delete_session(self, session_id):
        self.request("DELETE", f"sessions/{_quote(session_id)}")

    def history(self, session_id, page=1, page_size=50):
        return self.request("GET", f"sessions/{_quote(session_id)}/history", page=page, pageSize=page_size)

    # The item log -------------------------------------------------------------

    def get_items(self, session_id, limit=None):
        return self.request("GET", f"sessions/{_quote(session_id)}/items", limit=limit)["items"]

    def add_items(self, session_id, items, agent=None):
        body = {"items": list(items)}
        if agent is not None:
            body["agent"] = agent
        return self.request("POST", f"sessions/{_quote(session_id)}/items", body)

    def pop_item(self, session_id):
        return self.request("POST", f"sessions/{_quote(session_id)}/items/pop", {})["item"]

    def clear_items(self, session_id):
        self.request("DELETE", f"sessions/{_quote(session_id)}/items")

    def replace_items(self, session_id, items):
        return self.request("PUT", f"sessions/{_quote(session_id)}/items", {"items": list(items)})

    def compact(self, session_id, items):
        return self.request("POST", f"sessions/{_quote(session_id)}/compaction", {"items": list(items)})

    def apply_transaction(self, session_id, operation_id, transaction):
        body = {"operationId": operation_id, "transaction": transaction}
        return self.request("POST", f"sessions/{_quote(session_id)}/transactions", body)["applied"]

    def find_response(self, session_id, message_id):
        return self.request("GET", f"sessions/{_quote(session_id)}/responses/{_quote(message_id)}")

    def entries(self, session_id):
        return self.request("GET", f"sessions/{_quote(session_id)}/entries")["entries"]

    def get_messages(self, session_id):
        return self.request("GET", f"sessions/{_quote(session_id)}/messages")["messages"]

    def set_messages(self, session_id, messages):
        return self.request("PUT", f"sessions/{_quote(session_id)}/messages", {"messages": messages})

    # Client actions -------------------------------------------------------------

    def open_client_action(self, session_id, call_id, name, arguments, **fields):
        body = {"callId": call_id, "name": name, "arguments": arguments, **fields}
        return self.request("POST", f"sessions/{_quote(session_id)}/client-actions", body)

    def get_client_action(self, session_id, call_id, wait=None):
        return self.request("GET", f"sessions/{_quote(session_id)}/client-actions/{_quote(call_id)}", wait=wait)

    def wait_for_client_action(self, session_id, call_id, timeout=60):
        """The action once it is no longer waiting, or as it is after ``timeout`` seconds."""
        return self.get_client_action(session_id, call_id, wait=min(60, max(0, timeout)))


def _quote(value):
    return urllib.parse.quote(value, safe="")


def _as_error(error):
    try:
        detail = json.loads(error.read())["error"]
        return HistoryHubError(error.code, detail["code"], detail["message"])
    except (ValueError, KeyError, TypeError):
        return HistoryHubError(error.code, "http_error", error.reason or "")
