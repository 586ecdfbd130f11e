"""A turn: one 3-item add_items, as an agent sends after each model reply.

HistoryHub's Agents SDK session (``HistoryHubSession``) over HTTP, against the
SDK's own store called in process; beside them, HistoryHub's domain alone (no
HTTP) and a bare API call, to show where a turn's time goes. Each contender
appends to its own session, which already holds a little history.
"""

from bench import hub, hub_client
from bench.items import conversation
from bench.report import Row, ratio, spread
from bench.sdk import SdkStore
from bench.timing import p50_p90, samples

TURN = 3
HISTORY = 20


def run(job, progress):
    if not job.server_url:
        return []
    sizes = job.size
    sdk = SdkStore(job.backend, job.sdk_location)
    key = hub.issue_api_key()
    client = hub_client.connect(job.server_url, key)
    agent_session = hub_client.agent_session(hub_client.connect_async(job.server_url, key), "turn-http")
    turns = {}
    for name in ("http", "domain", "sdk"):
        items = conversation("turn", HISTORY + TURN * (sizes.samples + 3))
        turns[name] = iter([items[start : start + TURN] for start in range(HISTORY, len(items), TURN)])
        history = items[:HISTORY]
        if name == "sdk":
            sdk.add_items("turn-sdk", history)
        else:
            hub.append(f"turn-{name}", history)

    calls = {
        "http": lambda: sdk.run(agent_session.add_items(next(turns["http"]))),
        "domain": lambda: hub.append("turn-domain", next(turns["domain"])),
        "sdk": lambda: sdk.add_items("turn-sdk", next(turns["sdk"])),
        "bare": lambda: hub_client.get_items(client, "turn-http", 0),
    }
    seconds = samples(calls, sizes.samples)
    progress(f"turns: {sizes.samples} samples each")
    sdk.close()
    p50, p90 = p50_p90(seconds)
    alternative = f"{sdk.name}.add_items in process {spread(p50['sdk'], p90['sdk'])}"
    return [
        Row(
            "a 3-item turn: HistoryHubSession.add_items over HTTP, p50",
            spread(p50["http"], p90["http"]),
            alternative,
            ratio(p50["http"], p50["sdk"]),
            target=f"p50 ≤ 2× {sdk.name}.add_items in process",
            met=p50["http"] <= 2 * p50["sdk"],
        ),
        Row(
            "… the same turn through the domain alone, in process, p50",
            spread(p50["domain"], p90["domain"]),
            alternative,
            ratio(p50["domain"], p50["sdk"]),
        ),
        Row("… a bare API call with the same client (GET …/items?limit=0), p50", spread(p50["bare"], p90["bare"])),
    ]
