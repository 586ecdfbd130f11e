"""A run parked while a person decides, its process gone, resumed by another process with the resume command."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

REPOSITORY = Path(__file__).resolve().parents[2]


def resume_command(asgi_live_server, key):
    """The README's resume command, in a process of its own, with the agent module the test agent lives in."""
    return subprocess.run(
        [sys.executable, "-m", "historyhub.client.resume", "tests.client.parked_agent:agent"],
        cwd=REPOSITORY,
        env={**os.environ, "HISTORYHUB_URL": asgi_live_server.url, "HISTORYHUB_API_KEY": key},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_whose_process_is_gone_is_resumed_elsewhere_after_the_decision(people, asgi_live_server, key, hub):
    agent_process = subprocess.Popen(
        [sys.executable, "-m", "tests.client.parked_agent", asgi_live_server.url, key, "parked-elsewhere"],
        cwd=REPOSITORY,
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
    [parked] = hub.list_runs(session_id="parked-elsewhere")["items"]
    assert (parked["agent"], parked["callIds"], parked["ready"]) == ("refunds", ["call_refund"], False)
    assert hub.get_session("parked-elsewhere")["runStatus"] == "waiting_for_client_action"

    people.decide("parked-elsewhere", "call_refund", "approve", arguments={"order": 1234, "amount": 20})
    assert [run["runId"] for run in hub.list_runs(ready=True)["items"]] == [parked["runId"]]

    resumer = resume_command(asgi_live_server, key)
    assert resumer.returncode == 0, resumer.stderr
    assert resumer.stdout == (f"parked-elsewhere {parked['runId']}: completed: Done: Refunded 20.0 on order 1234.\n")
    items = hub.get_items("parked-elsewhere")
    assert [item.get("type", "message") for item in items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert items[2]["output"] == "Refunded 20.0 on order 1234."
    assert hub.get_session("parked-elsewhere")["runStatus"] == "completed"
    assert hub.list_runs(session_id="parked-elsewhere")["items"] == []


def test_the_resume_command_with_nothing_to_resume_says_nothing_and_succeeds(asgi_live_server, key):
    resumer = resume_command(asgi_live_server, key)
    assert (resumer.returncode, resumer.stdout) == (0, "")
