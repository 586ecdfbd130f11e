"""Pages of a list read in parts, with a total that is exact or counted up to a limit."""

import pytest

from historyhub.history import sessions
from historyhub.lib import paging


@pytest.fixture
def five(db):
    for number in range(5):
        sessions.ensure(agent="pagingAgent", session_id=f"ses_{number}", name=f"Heron {number}")


def page(number, count_limit=None, q=None):
    return paging.page_of_parts(
        lambda first: sessions.search("default", q=q, first=first),
        lambda up_to: sessions.count("default", q=q, up_to=up_to),
        number,
        2,
        count_limit=count_limit,
    )


def summary(paged):
    return [session.id for session in paged.items], paged.total, paged.total_is_exact, paged.has_more


@pytest.mark.parametrize("q", [None, "heron"])
def test_without_a_count_limit_the_total_is_exact_on_every_page(five, q):
    assert summary(page(1, q=q)) == (["ses_4", "ses_3"], 5, True, True)
    assert summary(page(3, q=q)) == (["ses_0"], 5, True, False)
    assert summary(page(4, q=q)) == ([], 5, True, False)


@pytest.mark.parametrize("q", [None, "heron"])
def test_a_count_limit_counts_to_the_limit_or_to_the_end_of_the_page_and_says_whether_it_got_to_the_end(five, q):
    assert summary(page(1, count_limit=2, q=q)) == (["ses_4", "ses_3"], 2, False, True)
    assert summary(page(2, count_limit=2, q=q)) == (["ses_2", "ses_1"], 4, False, True)
    assert summary(page(3, count_limit=2, q=q)) == (["ses_0"], 5, True, False)
    assert summary(page(4, count_limit=2, q=q)) == ([], 5, True, False)
    assert summary(page(1, count_limit=5, q=q)) == (["ses_4", "ses_3"], 5, True, True)
