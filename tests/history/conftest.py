import pytest

from historyhub.history import sessions


@pytest.fixture
def session_id(db):
    """An empty session of the support agent."""
    session, _ = sessions.ensure(agent="supportAgent", session_id="ses_support")
    return session.id
