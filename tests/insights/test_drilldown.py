"""Every bar of the Insights page leads to the actions it counts: the inbox page a bar links to lists exactly as
many actions as the bar shows, for every outcome, action, decider and bucket, on a known data set."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup

from historyhub.projects import administration
from tests.insights.seeding import START, action, minutes, session

CUSTOM = {"range": "custom", "since": "2026-09-01", "until": "2026-09-01"}
PAGE = "/p/default/insights/"


@pytest.fixture
def seeded(db):
    support = session("s1", agent="support")
    billing = session("s2", agent="billing")
    action(support, "a1", "refund", minutes(0), minutes(2), "approve", by="ann")
    action(support, "a2", "refund", minutes(10), minutes(4), "approve", by="ann", edited=True)
    action(support, "a3", "delete_account", minutes(20), minutes(6), "reject", by="bob")
    action(billing, "a4", "delete_account", minutes(70), minutes(8), "reject", by="bob")
    action(billing, "a5", "delete_account", minutes(200), minutes(30), "reject", by="ann")
    action(billing, "a6", "refund", minutes(300), minutes(1), "respond", by="carol")
    action(billing, "a7", "refund", minutes(400), minutes(3), "dismiss", by="carol")
    expiry = {"status": "expired", "resolved_at": START + minutes(90), "expires_at": START + minutes(90)}
    action(billing, "a8", "delete_account", minutes(30), **expiry)
    # Decided the day after the range, and still waiting: neither counts, neither is listed.
    action(support, "a9", "delete_account", timedelta(days=1, minutes=5), minutes(1), "reject", by="bob")
    action(support, "w1", "delete_account", minutes(5))
    # Another project's rejection never counts.
    administration.create_project("other", "Other")
    other = session("o1", agent="support", project="other")
    action(other, "o1", "delete_account", minutes(15), minutes(1), "reject", by="bob")


def soup(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def bars(page, key):
    """(what the bar shows, where it leads) of each bar with a link in the chart ``key``."""
    found = []
    for link in page.find(id=key).select("svg a"):
        label = link["aria-label"]
        found.append((label.rsplit(": ", 1)[1], link["href"]))
    return found


def by_state(page, key):
    """(what the bar shows, where it leads) per inbox state the bars of chart ``key`` link to."""
    return {parse_qs(urlsplit(href).query)["state"][0]: (shown, href) for shown, href in bars(page, key)}


def listed(client, href):
    """The call ids of the cards the inbox page at ``href`` lists, and whether any card offers a decision."""
    page = soup(client.get(href))
    cards = page.select("li.approval")
    return sorted(card.select_one(".approval-title code").get_text() for card in cards), bool(
        page.select("form.approval-decision, #bulk-decision")
    )


@pytest.mark.parametrize("key", ["outcomes", "by-action", "deciders"])
def test_each_bar_lists_as_many_actions_as_it_counts(admin_client, seeded, key):
    page = soup(admin_client.get(PAGE, CUSTOM))
    found = bars(page, key)
    assert found
    for shown, href in found:
        call_ids, decidable = listed(admin_client, href)
        assert len(call_ids) == int(shown), (key, href, call_ids)
        assert not decidable  # decided cards are read, not decided, even by an admin


def test_a_bar_of_rejected_opens_exactly_the_rejected_ones(admin_client, seeded):
    page = soup(admin_client.get(PAGE, CUSTOM))
    outcomes = by_state(page, "outcomes")
    assert listed(admin_client, outcomes["rejected"][1])[0] == ["a3", "a4", "a5"]
    assert listed(admin_client, outcomes["edited"][1])[0] == ["a2"]


def test_the_filters_of_the_page_go_along(admin_client, seeded):
    page = soup(admin_client.get(PAGE, {**CUSTOM, "agent": "billing", "action": "delete_account"}))
    by_outcome = by_state(page, "outcomes")
    assert by_outcome["rejected"][0] == "2"
    assert listed(admin_client, by_outcome["rejected"][1])[0] == ["a4", "a5"]
    assert listed(admin_client, by_outcome["expired"][1])[0] == ["a8"]


def test_a_decider_filter_narrows_decisions_and_not_expiries_as_insights_counts(admin_client, seeded):
    page = soup(admin_client.get(PAGE, {**CUSTOM, "decider": "bob"}))
    for shown, href in bars(page, "by-action"):
        assert len(listed(admin_client, href)[0]) == int(shown)
    (shown, href), *_ = [bar for bar in bars(page, "by-action") if "delete_account" in bar[1]]
    assert listed(admin_client, href)[0] == ["a3", "a4", "a8"]


def test_each_bucket_lists_the_actions_decided_or_expired_in_it(admin_client, seeded):
    page = soup(admin_client.get(PAGE, CUSTOM))
    table = page.find(id="actions-over-time-table")
    counts = [
        int(cells[2].get_text()) + int(cells[3].get_text())
        for cells in (row.find_all(["td", "th"]) for row in table.find_all("tr")[1:])
    ]
    hrefs = list(dict.fromkeys(href for _, href in bars(page, "actions-over-time")))
    assert len(hrefs) == len(counts) == 24
    assert [len(listed(admin_client, href)[0]) for href in hrefs] == counts
    assert sum(counts) == 8


def test_the_waiting_inbox_is_the_default_and_still_decides(admin_client, seeded):
    call_ids, decidable = listed(admin_client, "/p/default/approvals/")
    assert call_ids == ["w1"]
    assert decidable


def test_a_malformed_time_is_left_out_rather_than_refused(admin_client, seeded):
    call_ids, _ = listed(admin_client, "/p/default/approvals/?state=rejected&from=yesterday")
    assert call_ids == ["a3", "a4", "a5", "a9"]
