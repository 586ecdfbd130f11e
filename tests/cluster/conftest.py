"""The cluster the tests in this folder share: started once by ``python -m deploy.cluster``, as ``make cluster`` does,
and stopped at the end. HISTORYHUB_CLUSTER_FOLDER names one already running instead (it must have been started
with the environment below), which is then left running."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deploy import cluster as deployment
from tests.cluster.support import HELD_WAITS, Cluster

ROOT = Path(__file__).resolve().parents[2]
# The sweep every second (expiry within the test's patience), webhooks to the test's own receiver, a replica
# more than a second behind not read, a key's waits capped at what the test of many waits holds, and a person's
# streams at one on each server.
ENVIRONMENT = (
    "SWEEP_SECONDS=1",
    "WEBHOOKS_ALLOW_PRIVATE_NETWORKS=True",
    "DATABASE_REPLICA_MAX_LAG_SECONDS=1",
    f"HISTORYHUB_MAX_WAITS_PER_KEY={HELD_WAITS}",
    "HISTORYHUB_MAX_STREAMS_PER_USER=3",
)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    running = os.environ.get("HISTORYHUB_CLUSTER_FOLDER")
    if running:
        yield Cluster(deployment.State.read(Path(running)))
        return
    folder = tmp_path_factory.mktemp("cluster") / "deployment"
    command = [sys.executable, "-m", "deploy.cluster", "start", "--folder", str(folder)]
    for setting in ENVIRONMENT:
        command += ["--env", setting]
    started = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    try:
        if started.returncode != 0:
            pytest.fail(f"the cluster did not start:\n{started.stdout}{started.stderr}")
        yield Cluster(deployment.State.read(folder))
    finally:
        subprocess.run([sys.executable, "-m", "deploy.cluster", "stop", "--folder", str(folder)], cwd=ROOT)
