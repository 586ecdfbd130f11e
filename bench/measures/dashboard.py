"""Dashboard pages on the whole data set: the sessions page plain, with each
filter, with a search and on page 2; a typical session's timeline and the long
session's; the approvals page with every waiting client action.

Server time, measured in process: Django's test client runs each request
through the whole middleware stack (DEBUG off, logged in as a superuser),
so what is timed is the server's work without the network or a browser.
Static file URLs come from the plain storage rather than the collected
manifest, which would take collectstatic first; a page's time does not change.
"""

import warnings
from urllib.parse import urlencode

from django.conf import settings
from django.test import Client, override_settings

from bench import hub, seed
from bench.items import SEARCH_WORD
from bench.report import Row, spread
from bench.timing import FEW_SAMPLES, percentile, samples

TARGET_SECONDS = 0.050


def pages(sizes):
    return {
        "sessions page": "/p/default/",
        f"… agent filter ({seed.FILTER_AGENT})": "/p/default/?" + urlencode({"agent": seed.FILTER_AGENT}),
        "… status filter (completed)": "/p/default/?status=completed",
        "… runStatus filter (failed)": "/p/default/?runStatus=failed",
        "… waiting on a person": "/p/default/?waiting=on",
        f"… search q={SEARCH_WORD} (a word in message text)": "/p/default/?" + urlencode({"q": SEARCH_WORD}),
        "… page 2": "/p/default/?page=2",
        "a typical session's timeline": f"/p/default/sessions/{seed.base_id(1)}/",
        f"the {sizes.big_items:,}-item session's timeline": f"/p/default/sessions/{seed.BIG_SESSION}/",
        f"approvals page ({sizes.waiting_actions:,} waiting)": "/p/default/approvals/",
    }


def run(job, progress):
    # whitenoise looks for collectstatic's output, which these pages do not need.
    warnings.filterwarnings("ignore", "No directory at", UserWarning)
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(STORAGES=storages):
        return _measure(job.size, progress)


def _measure(sizes, progress):
    client = Client()
    client.force_login(hub.dashboard_user())

    def fetch(url):
        def call():
            answer = client.get(url)
            if answer.status_code != 200:
                raise RuntimeError(f"GET {url} answered {answer.status_code}")

        return call

    urls = pages(sizes)
    seconds = samples(
        {name: fetch(url) for name, url in urls.items()}, sizes.dashboard_samples, warmup=1, budget=sizes.budget
    )
    progress(f"dashboard: up to {sizes.dashboard_samples} samples a page")
    rows = []
    for name, times in seconds.items():
        p90 = percentile(times, 0.9)
        rows.append(
            Row(
                f"dashboard: {name}, server time",
                spread(percentile(times, 0.5), p90),
                target="p90 under 50 ms",
                met=p90 < TARGET_SECONDS,
            )
        )
        if len(times) < FEW_SAMPLES:
            rows[-1].notes.append(f"dashboard: {name}: only {len(times)} samples in its time budget.")
    return rows
