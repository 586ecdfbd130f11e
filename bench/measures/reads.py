"""Reads: get_items(limit=50), the newest items of the long session, as an SDK
session asks for its context before each model call."""

from bench import hub, hub_client, seed
from bench.plan import READ_LIMIT
from bench.report import Row, ratio, spread
from bench.sdk import SdkStore
from bench.timing import p50_p90, samples


def run(job, progress):
    sizes = job.size
    sdk = SdkStore(job.backend, job.sdk_location)
    calls = {
        "domain": lambda: hub.newest_items(seed.BIG_SESSION, READ_LIMIT),
        "sdk": lambda: sdk.get_items(seed.BIG_SESSION, READ_LIMIT),
    }
    if job.server_url:
        client = hub_client.connect(job.server_url, hub.issue_api_key())
        calls["http"] = lambda: hub_client.get_items(client, seed.BIG_SESSION, READ_LIMIT)
    notes = []
    answers = {name: call() for name, call in calls.items()}
    if any(answer != answers["sdk"] for answer in answers.values()):
        notes.append(
            f"get_items(limit={READ_LIMIT}): HistoryHub's answer differs from {sdk.name}'s "
            "(the stores do not hold the same long session: see the data set above)."
        )
    seconds = samples(calls, sizes.samples)
    progress(f"reads on {job.backend}: {sizes.samples} samples each")
    sdk.close()
    p50, p90 = p50_p90(seconds)
    database = "PostgreSQL" if job.backend == "postgresql" else "SQLite"
    what = f"get_items(limit={READ_LIMIT}) on the {sizes.big_items:,}-item session"
    alternative = f"{sdk.name} in process {spread(p50['sdk'], p90['sdk'])}"
    rows = []
    for name, how in (("http", "over HTTP"), ("domain", "in process")):
        if name in p50:
            rows.append(
                Row(
                    f"{what}, {how} ({database}), p50",
                    spread(p50[name], p90[name]),
                    alternative,
                    ratio(p50[name], p50["sdk"]),
                    target="≤ 1.5× the SDK store",
                    met=p50[name] <= 1.5 * p50["sdk"],
                )
            )
    rows[0].notes += notes
    return rows
