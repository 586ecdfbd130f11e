"""A run parked while a person decides, its process gone, resumed by another process with the resume command."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.ids import unique

PACKAGE = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def processes(server, key, agent):
    """The environment of the agent's and the resumer's processes: the server, the key, the agent's name."""
    return {**os.environ, "HISTORYHUB_URL": server.url, "HISTORYHUB_API_KEY": key, "PARKED_AGENT": agent}


def resume_command(command, environment):
    """A resume command in a process of its own, with the agent module the test agent lives in."""
    return subprocess.run(
        [*command, "tests.parked_agent:agent"],
        cwd=PACKAGE,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_whose_process_is_gone_is_resumed_elsewhere_after_the_decision(people, server, key, hub):
    session_id, environment = unique("parked-elsewhere"), processes(server, key, unique("refunds"))
    agent_process = subprocess.Popen(
        [sys.executable, "-m", "tests.parked_agent", server.url, key, session_id],
        cwd=PACKAGE,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        announced = agent_process.stdout.readline()
        assert announced, agent_process.stderr.read()
    finally:
        agent_process.kill()
        agent_process.wait()
    action = json.loads(announced)
    assert (action["callId"], action["name"], action["arguments"]) == (
        "call_refund",
        "issue_refund",
        {"order": 1234, "amount": 25},
    )
    [parked] = hub.list_runs(session_id=session_id)["items"]
    agent = environment["PARKED_AGENT"]
    assert (parked["agent"], parked["callIds"], parked["ready"]) == (agent, ["call_refund"], False)
    assert hub.get_session(session_id)["runStatus"] == "waiting_for_client_action"

    people.decide(session_id, "call_refund", "approve", arguments={"order": 1234, "amount": 20})
    assert [run["runId"] for run in hub.list_runs(ready=True, session_id=session_id)["items"]] == [parked["runId"]]

    resumer = resume_command([sys.executable, "-m", "historyhub_client.resume"], environment)
    assert resumer.returncode == 0, resumer.stderr
    assert resumer.stdout == f"{session_id} {parked['runId']}: completed: Done: Refunded 20.0 on order 1234.\n"
    items = hub.get_items(session_id)
    assert [item.get("type", "message") for item in items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert items[2]["output"] == "Refunded 20.0 on order 1234."
    assert hub.get_session(session_id)["runStatus"] == "completed"
    assert hub.list_runs(session_id=session_id)["items"] == []


def test_the_resume_command_with_nothing_to_resume_says_nothing_and_succeeds(server, key):
    resumer = resume_command([BIN / "historyhub-resume"], processes(server, key, unique("refunds")))
    assert (resumer.returncode, resumer.stdout) == (0, "")
