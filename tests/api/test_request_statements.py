"""What an API call costs in SQL statements beside its work: pinned, so a statement added to every request fails here.

Transactional tests: each request's own transactions, as production runs them. BEGIN and COMMIT are not counted
(``tests.support.statements``).
"""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.actors import ApiClient, KeyedApiClient
from tests.support.items import assistant, function_call, function_output, user
from tests.support.statements import on_sqlite, statements

pytestmark = pytest.mark.django_db(transaction=True)

TURN = [function_call("call_1"), function_output("call_1"), assistant("22C and sunny in Paris.")]


@pytest.fixture
def key():
    key = ApiKey.issue("tests (write)", "write")[1]
    # The key's first call records when it was used; the next minute's calls write nothing for it.
    assert ApiClient(key).post("sessions", {"sessionId": "support-1", "agent": "support"}).status_code == 201
    return key


def test_an_authenticated_read_costs_one_statement_beside_its_own(key):
    with statements() as sent:
        response = ApiClient(key).get("sessions/support-1/items", limit=0)

    assert response.status_code == 200
    # The key looked up by its hash (never kept: a revoked key stops at once); limit=0 reads nothing.
    assert len(sent) == 1, sent


def test_a_turn_costs_the_key_s_look_up_and_the_append_s_statements(key):
    ApiClient(key).post("sessions/support-1/items", {"items": [user("Weather in Paris?")]})

    with statements() as sent:
        response = ApiClient(key).post("sessions/support-1/items", {"items": TURN})

    assert response.status_code == 200
    # The key; then the append's (tests/history/test_write_statements.py).
    assert len(sent) == on_sqlite(1 + 6, sqlite_more=1), sent


def test_a_turn_with_an_idempotency_key_records_its_answer_in_two_statements(key):
    ApiClient(key).post("sessions/support-1/items", {"items": [user("Weather in Paris?")]})

    with statements() as sent:
        response = KeyedApiClient(key, "turn-1").post("sessions/support-1/items", {"items": TURN})

    assert response.status_code == 200
    # As without one, and the key's record taken and its answer written, in the request's one transaction;
    # the append's transaction is a savepoint inside it (SAVEPOINT and RELEASE), so a write that fails leaves
    # the record free to answer its error.
    assert len(sent) == on_sqlite(1 + 6 + 2 + 2, sqlite_more=1), sent
