"""The READMEs' Python examples, saved and run as they say, in the virtualenv the wheel is installed in.

The repository's README and the package's both show them; each runs against
the live server, and where an example waits for a person, the test decides
over the API with the people's key while it waits.
"""

import re
import subprocess

import pytest

from tests.support.readme import Readme, Running, environment
from tests.support.server import REPOSITORY
from tests.support.waiting import until

PACKAGE_README = REPOSITORY / "clients" / "python" / "README.md"
BOTH_READMES = pytest.mark.parametrize(
    "readme", [REPOSITORY / "README.md", PACKAGE_README], ids=["repository README", "package README"]
)


@pytest.fixture
def example(tmp_path, server, key):
    """Starts the README's command that mentions a file, in a fresh folder holding the README's example files."""
    started = []

    def start(readme, mentioning):
        readme = Readme(readme)
        readme.save(tmp_path)
        running = Running(readme.command(mentioning), tmp_path, environment(server, key))
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


def waiting_session(line, server):
    """The session of the example's "Waiting for a decision" line, which names this server's Approvals page."""
    waiting = re.fullmatch(r"Waiting for a decision on (\S+)/approvals/ \(session (\S+)\)", line)
    assert waiting, line
    assert waiting.group(1) == server.url
    return waiting.group(2)


def test_the_script_example_prints_the_timeline_of_what_it_wrote(example, hub):
    running = example(PACKAGE_README, "history_report.py")
    heading = re.fullmatch(r"4 items in session (\S+); its timeline:", running.line())
    assert heading, "the first line names the session"
    assert [running.line() for _ in range(3)] == [
        "  user: Where is order 1234?",
        "  lookup_order({'order': 1234}) completed: shipped on Monday",
        "  assistant: It shipped on Monday.",
    ]
    assert running.exit_code() == 0
    assert hub.get_session(heading.group(1))["agent"] == "support"


@BOTH_READMES
def test_the_session_example_keeps_the_conversation_and_waits_for_a_person(readme, example, server, hub, people):
    running = example(readme, "support_chat.py")
    assert running.line() == "Your refund of 10 EUR needs a quick approval."
    assert running.line() == "The session holds 2 items."
    session_id = waiting_session(running.line(), server)
    assert hub.get_client_action(session_id, "call-3")["status"] == "waiting"
    people.decide(session_id, "call-3", "approve", comment="Go ahead.")
    assert running.line() == "approved (api key: people): Go ahead."
    assert running.exit_code() == 0
    assert [item["role"] for item in hub.get_items(session_id)] == ["user", "assistant"]


def waiting_refund(hub, session_id):
    """The example's approval request, once it is open."""
    return until(
        lambda: hub.list_client_actions(status="waiting", session_id=session_id)["items"],
        30,
        "the example's approval request",
    )


@BOTH_READMES
def test_the_approval_example_runs_the_tool_once_a_person_approves(readme, example, server, hub, people):
    running = example(readme, "approve_refund.py")
    session_id = waiting_session(running.line(), server)
    [action] = waiting_refund(hub, session_id)
    assert (action["name"], action["arguments"]) == ("issue_refund", {"order": 1234, "amount": 25})
    assert action["description"] == "Refund part of an order to the customer's card."
    people.decide(session_id, action["callId"], "approve")
    assert running.line() == "Refunded 25.0 EUR on order 1234."
    assert running.exit_code() == 0
    assert hub.get_session(session_id)["runStatus"] == "completed"


@BOTH_READMES
def test_the_resume_command_finishes_a_run_whose_process_stopped(readme, example, tmp_path, server, key, hub, people):
    running = example(readme, "approve_refund.py")
    session_id = waiting_session(running.line(), server)
    [action] = waiting_refund(hub, session_id)
    [parked] = until(lambda: hub.list_runs(session_id=session_id)["items"], 30, "the run's parking")
    assert running.interrupt() != 0
    # The agent process is gone; its run waits for the person, parked.
    assert hub.get_session(session_id)["runStatus"] == "waiting_for_client_action"
    assert hub.list_runs(session_id=session_id)["items"] == [parked]
    people.decide(session_id, action["callId"], "approve")

    resumer = subprocess.run(
        Readme(readme).command("approve_refund:agent"),
        cwd=tmp_path,
        env=environment(server, key),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumer.returncode == 0, resumer.stderr
    assert resumer.stdout == f"{session_id} {parked['runId']}: completed: Refunded 25.0 EUR on order 1234.\n"
    assert hub.get_session(session_id)["runStatus"] == "completed"
    assert hub.list_runs(session_id=session_id)["items"] == []


@BOTH_READMES
def test_the_mcp_example_asks_through_historyhub_mcp_and_prints_the_decision(readme, example, hub, people):
    running = example(readme, "ask_a_person.py")
    waiting = re.fullmatch(r"Waiting for a person in HistoryHub \(sessionId (\S+), callId (\S+)\)\.", running.line())
    assert waiting, "the first progress report names the session and the call"
    session_id, call_id = waiting.groups()
    action = hub.get_client_action(session_id, call_id)
    assert (action["name"], action["status"]) == ("deploy", "waiting")
    assert hub.get_session(session_id)["agent"] == "release-bot"
    people.decide(session_id, call_id, "approve", arguments={"service": "billing", "version": "2.4.2"})
    assert running.line() == "approved: {'service': 'billing', 'version': '2.4.2'}"
    assert running.exit_code() == 0


@BOTH_READMES
def test_the_langgraph_example_runs_the_refund_a_person_approves(readme, example, server, hub, people):
    running = example(readme, "review_refund.py")
    session_id = waiting_session(running.line(), server)
    [action] = waiting_refund(hub, session_id)
    assert (action["name"], action["arguments"]) == ("issue_refund", {"order": 1234, "amount": 25})
    people.decide(session_id, action["callId"], "approve")
    assert running.line() == "Refunded 25 EUR on order 1234."
    assert running.line() == "The refund is on its way."
    assert running.exit_code() == 0
    assert [item["role"] for item in hub.get_items(session_id)] == ["user", "assistant", "tool", "assistant"]
