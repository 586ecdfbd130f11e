"""``python -m deploy.cluster start|stop``: what ``make cluster`` and ``make cluster-stop`` run (docs/scaling.md)."""

import argparse
import sys
from pathlib import Path

from deploy import cluster


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.cluster", description=__doc__)
    parser.add_argument("command", choices=["start", "stop"])
    parser.add_argument("--folder", type=Path, default=cluster.DEFAULT_FOLDER, help="its logs and state.json")
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers per app server")
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="more of the app servers' environment"
    )
    options = parser.parse_args()
    if options.command == "stop":
        print("stopped" if cluster.stop(options.folder) else f"no cluster runs from {options.folder}")
        return 0
    extra = dict(setting.split("=", 1) for setting in options.env)
    state = cluster.start(options.folder, servers=options.servers, workers=options.workers, **extra)
    print(f"HistoryHub on {state.url} ({len(state.servers)} app servers behind HAProxy)")
    print(f"  primary 127.0.0.1:{state.primary['port']}, standby 127.0.0.1:{state.standby['port']}, ", end="")
    print(f"PgBouncer 127.0.0.1:{state.pgbouncer['port']} and 127.0.0.1:{state.replica_pgbouncer['port']}")
    print(f"  an agent's API key: {state.keys['agent']}")
    print(f"  a decider's API key: {state.keys['people']}")
    print(f"  logs and state: {options.folder}; make cluster-stop removes it all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
