"""History pages: GET …/history?page=N&pageSize=50 of the long session over
HTTP, the newest page (1), a middle one and the oldest; each against page 1."""

from bench import hub, hub_client, seed
from bench.plan import PAGE_SIZE
from bench.report import Row, milliseconds, ratio, spread
from bench.timing import FEW_SAMPLES, p50_p90, samples


def run(job, progress):
    if not job.server_url:
        return []
    sizes = job.size
    client = hub_client.connect(job.server_url, hub.issue_api_key())
    total = hub_client.history_page(client, seed.BIG_SESSION, 1, PAGE_SIZE)["total"]
    last = max(1, -(-total // PAGE_SIZE))
    pages = {"newest": 1, "middle": max(1, last // 2), "oldest": last}
    for page in pages.values():
        if not hub_client.history_page(client, seed.BIG_SESSION, page, PAGE_SIZE)["items"]:
            raise RuntimeError(f"history page {page} of {last} is empty")
    calls = {
        name: (lambda page=page: hub_client.history_page(client, seed.BIG_SESSION, page, PAGE_SIZE))
        for name, page in pages.items()
    }
    seconds = samples(calls, sizes.samples, budget=sizes.budget)
    progress(f"history pages: {sizes.samples} samples each")
    p50, p90 = p50_p90(seconds)
    notes = [
        f"history page {pages[name]:,}: only {len(times)} samples in its time budget."
        for name, times in seconds.items()
        if len(times) < FEW_SAMPLES
    ]
    rows = [
        Row(
            f"history page 1 of {last:,} (newest), pageSize {PAGE_SIZE}, over HTTP",
            spread(p50["newest"], p90["newest"]),
        )
    ]
    for name in ("middle", "oldest"):
        rows.append(
            Row(
                f"… page {pages[name]:,} ({name})",
                spread(p50[name], p90[name]),
                f"page 1: {milliseconds(p50['newest'])}",
                ratio(p50[name], p50["newest"]),
                target="within 1.5× of page 1",
                met=p50[name] <= 1.5 * p50["newest"],
            )
        )
    rows[0].notes += notes
    return rows
