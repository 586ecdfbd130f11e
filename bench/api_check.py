"""Schemathesis against /api/openapi.json of the production server on PostgreSQL (docs/stress.md).

    make api-check                               # what CI runs
    .venv/bin/python bench/api_check.py --examples 300

It makes its own PostgreSQL cluster (bench/production.py), starts ``bin/start``
on it, and runs ``schemathesis run`` with every check, so a 5xx, an answer
that does not match its schema, an undocumented status, a valid request
refused or an invalid one accepted fails the run. The hooks in
bench/schemathesis_hooks.py keep generated requests meaningful. Exits with
schemathesis's status, or 1 if the server logged an internal error.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.production import ROOT, production_run  # noqa: E402


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=int(os.environ.get("API_CHECK_EXAMPLES") or 200))
    # One: with more, schemathesis 4.32 on Python 3.11 now and then fails in its own code (a SystemError).
    parser.add_argument("--workers", type=int, default=1, help="schemathesis's concurrent requests")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the folder with the logs and the JUnit report")
    return parser.parse_args()


def main():
    options = arguments()
    started = time.monotonic()
    with production_run("hh-api-check-", workers=2) as run:
        command = [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file",
            str(Path(__file__).with_name("schemathesis.toml")),
            "run",
            f"{run.server.base}/api/openapi.json",
            "--checks",
            "all",
            "--max-examples",
            str(options.examples),
            "--workers",
            str(options.workers),
            "--request-timeout",
            "70",
            "--generation-database",
            "none",
            "--no-color",
            "--report",
            "junit",
            "--report-dir",
            str(run.folder / "report"),
        ]
        if options.seed is not None:
            command += ["--seed", str(options.seed)]
        extra = {
            "SCHEMATHESIS_HOOKS": "bench.schemathesis_hooks",
            "PYTHONPATH": str(ROOT),
            "HISTORYHUB_API_KEY": run.keys.agent,
        }
        result = subprocess.run(command, cwd=ROOT, env={**os.environ, **extra})
        run.server.stop()
        crashes = (run.folder / "server.log").read_text().count("Internal error on ")
        print(f"server log: {crashes} internal errors; {time.monotonic() - started:.0f} s in all")
        passed = result.returncode == 0 and crashes == 0
        run.keep = options.keep or not passed
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
