"""Dashboard pages on the whole data set: the sessions page plain, with each
filter, with a search and on page 2; a typical session's timeline and the long
session's; the approvals page with every waiting client action; and the
approvals page of a project whose 50 waiting actions hold arguments and a
description as large as the API accepts (1 MiB each), with the page's size.

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
# The approvals page of 50 actions at the caps (docs/dashboard.md, "Large arguments and descriptions"): opened in
# the run's own copy of the data set, in a project of their own, so the other pages stay as the data set holds them.
CAPS_PROJECT, CAPS_TOOL, CAPS_ACTIONS = "alpha", "big", 50
CAPS_URL = f"/p/{CAPS_PROJECT}/approvals/?tool={CAPS_TOOL}"
CAPS_TARGET_SECONDS, CAPS_TARGET_BYTES = 0.150, 500_000


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
    return [*_rows(seconds), _at_the_caps(client, fetch, sizes, progress)]


def _at_the_caps(client, fetch, sizes, progress):
    hub.open_actions_at_the_caps(CAPS_PROJECT, CAPS_ACTIONS, CAPS_TOOL)
    progress(f"dashboard: {CAPS_ACTIONS} actions at the caps opened")
    size = len(client.get(CAPS_URL).content)
    # Samples enough for a p90 whatever the size's budget: this page is the one the target is about.
    times = samples({"caps": fetch(CAPS_URL)}, max(sizes.dashboard_samples, 20), warmup=1)["caps"]
    p90 = percentile(times, 0.9)
    return Row(
        f"dashboard: approvals page, {CAPS_ACTIONS} actions at the 1 MiB caps, server time and size",
        f"{spread(percentile(times, 0.5), p90)}, {size / 1000:,.0f} KB",
        target="page under 500 KB, p90 under 150 ms",
        met=size < CAPS_TARGET_BYTES and p90 < CAPS_TARGET_SECONDS,
    )


def _rows(seconds):
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
