"""Resume every parked run whose approvals have been decided: ``historyhub-resume``.

    HISTORYHUB_URL=http://127.0.0.1:8000 HISTORYHUB_API_KEY=hh_… \\
        historyhub-resume myapp.agents:support_agent [more.module:agent …] [--watch 30]

``python -m historyhub_client.resume`` is the same command. Each
``module:name`` is a starting agent (an ``agents.Agent``), imported from the
current directory or this process's path; runs are matched to agents by the
agent's name. Once, or with ``--watch SECONDS`` again and again until
stopped. Prints one line a run; exits 1 when a run failed
(docs/python-client.md).
"""

import argparse
import asyncio
import importlib
import os
import sys
from typing import Any, TextIO

from historyhub_client.approvals import ResumedRun, resume_decided_runs
from historyhub_client.http import AsyncHistoryHubClient


def load(reference: str) -> Any:
    """The object a ``module:attribute`` reference names."""
    module_name, _, attribute = reference.partition(":")
    if not attribute:
        raise argparse.ArgumentTypeError(f"{reference!r} is not module:attribute")
    target = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="historyhub-resume", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("agents", nargs="+", type=load, metavar="module:agent", help="starting agents")
    parser.add_argument("--url", default=os.environ.get("HISTORYHUB_URL"), help="default: $HISTORYHUB_URL")
    parser.add_argument("--api-key", default=os.environ.get("HISTORYHUB_API_KEY"), help="default: $HISTORYHUB_API_KEY")
    parser.add_argument("--watch", type=float, metavar="SECONDS", help="look again every SECONDS until stopped")
    arguments = parser.parse_args(argv)
    if not arguments.url or not arguments.api_key:
        parser.error("give --url and --api-key, or set HISTORYHUB_URL and HISTORYHUB_API_KEY")
    return arguments


async def resume(arguments: argparse.Namespace, out: TextIO = sys.stdout) -> bool:
    """One pass, or one every ``--watch`` seconds; True when every resumed run went well."""
    all_well = True
    async with AsyncHistoryHubClient(arguments.url, arguments.api_key) as client:
        while True:
            for run in await resume_decided_runs(client, arguments.agents):
                all_well = all_well and run.error is None
                print(f"{run.session_id} {run.run_id}: {_outcome(run)}", file=out, flush=True)
            if arguments.watch is None:
                return all_well
            await asyncio.sleep(arguments.watch)


def _outcome(run: ResumedRun) -> str:
    if run.error is not None:
        return f"failed: {run.error}"
    if run.result.interruptions:
        return f"parked again, waiting for {len(run.result.interruptions)} approval(s)"
    return f"completed: {run.result.final_output}"


def main(argv: list[str] | None = None) -> None:
    # `python -m` puts the current directory first on the path, a console script its own folder: agents
    # are looked for in the current directory either way.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    arguments = parse(argv)
    sys.exit(0 if asyncio.run(resume(arguments)) else 1)


if __name__ == "__main__":
    main()
