import logging

import pytest
from django.db import transaction

from historyhub.lib.commits import after_commit_robust

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_call_runs_once_the_transaction_commits_with_its_arguments():
    calls = []
    with transaction.atomic():
        after_commit_robust(calls.append, "linked")
        assert calls == []
    assert calls == ["linked"]


def test_a_call_that_fails_is_logged_by_its_name_and_the_commit_goes_on(caplog):
    def link_the_chain(project):
        raise RuntimeError(f"the database went away while linking {project}")

    with caplog.at_level(logging.ERROR, logger="django.db.backends.base"), transaction.atomic():
        after_commit_robust(link_the_chain, "acme")
    assert "link_the_chain" in caplog.text
    assert "the database went away while linking acme" in caplog.text
