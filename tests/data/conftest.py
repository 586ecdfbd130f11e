"""The actors the data tests share: another project with a write key, a project admin on the dashboard and an
operator on the admin site."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from historyhub.apikeys.models import ApiKey
from historyhub.projects.models import Project, Role
from tests.data.sessions import write_client
from tests.support.actors import ApiClient, logged_in, make_member


@pytest.fixture
def acme(db):
    """A write client of a second project, ``acme``: what is done in ``default`` must leave it alone."""
    Project.objects.create(id="acme", name="Acme")
    return write_client("acme")


@pytest.fixture
def acme_admin(acme):
    """An admin key of ``acme``: what an import into it needs."""
    return ApiClient(ApiKey.issue("importer", "admin", project="acme")[1])


@pytest.fixture
def admin_client(db):
    """The dashboard as ``ada``, an admin of the default project."""
    return logged_in(make_member("ada", Role.ADMIN))


@pytest.fixture
def operator(db):
    """The admin site as ``root``, a superuser."""
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="root-password-1"))
    return client
