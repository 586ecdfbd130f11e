"""Single sign-on is configured from the environment, and a value that cannot be right stops the start."""

import json
import runpy

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.support.servers import ROOT

SETTINGS = ROOT / "historyhub" / "settings.py"
VARIABLES = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_ROLES_CLAIM", "OIDC_PROJECT_ROLES"]
VARIABLES += ["OIDC_PROVIDER_NAME", "PASSWORD_LOGIN"]
CLIENT = {"OIDC_ISSUER": "https://idp.example.com/realms/acme/", "OIDC_CLIENT_ID": "hh", "OIDC_CLIENT_SECRET": "s"}


def settings_with(monkeypatch, **environment):
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS))


def refused(monkeypatch, **environment):
    with pytest.raises(ImproperlyConfigured) as refusal:
        settings_with(monkeypatch, **environment)
    return str(refusal.value)


def test_without_an_issuer_there_is_no_single_sign_on(monkeypatch):
    settings = settings_with(monkeypatch)

    assert settings["SSO_ENABLED"] is False and settings["PASSWORD_LOGIN"] is True
    assert "historyhub.sso.backend.OidcBackend" not in settings["AUTHENTICATION_BACKENDS"]


def test_an_issuer_with_its_client_turns_it_on(monkeypatch):
    settings = settings_with(monkeypatch, **CLIENT)

    assert settings["SSO_ENABLED"] is True and settings["OIDC_ISSUER"] == "https://idp.example.com/realms/acme"
    assert settings["AUTHENTICATION_BACKENDS"][-2:] == [
        "django.contrib.auth.backends.ModelBackend",
        "historyhub.sso.backend.OidcBackend",
    ]


def test_password_login_off_removes_the_password_backend(monkeypatch):
    settings = settings_with(monkeypatch, PASSWORD_LOGIN="False", **CLIENT)

    assert "django.contrib.auth.backends.ModelBackend" not in settings["AUTHENTICATION_BACKENDS"]


def test_the_roles_mapping_is_read(monkeypatch):
    mapping = {"engineers": {"default": "viewer"}, "leads": {"default": "admin", "ops": "approver"}}

    settings = settings_with(monkeypatch, OIDC_ROLES_CLAIM="groups", OIDC_PROJECT_ROLES=json.dumps(mapping), **CLIENT)

    assert settings["OIDC_PROJECT_ROLES"] == mapping


@pytest.mark.parametrize(
    ("environment", "complaint"),
    [
        ({"OIDC_ISSUER": "https://idp.example.com"}, "all three"),
        ({**CLIENT, "OIDC_CLIENT_SECRET": ""}, "all three"),
        ({**CLIENT, "OIDC_ISSUER": "idp.example.com"}, "OIDC_ISSUER must be an http(s) URL"),
        ({**CLIENT, "OIDC_ISSUER": "https://idp.example.com/?tenant=1"}, "OIDC_ISSUER must be an http(s) URL"),
        ({"PASSWORD_LOGIN": "False"}, "nobody could log in"),
        ({**CLIENT, "PASSWORD_LOGIN": "no"}, "PASSWORD_LOGIN must be True or False"),
        ({"OIDC_ROLES_CLAIM": "groups"}, "single sign-on is not"),
        ({**CLIENT, "OIDC_ROLES_CLAIM": "groups", "OIDC_PROJECT_ROLES": "{engineers: 1}"}, "must be JSON"),
        ({**CLIENT, "OIDC_ROLES_CLAIM": "groups", "OIDC_PROJECT_ROLES": "[]"}, "must be {"),
        ({**CLIENT, "OIDC_ROLES_CLAIM": "groups", "OIDC_PROJECT_ROLES": '{"a": "viewer"}'}, "maps to 'viewer'"),
        ({**CLIENT, "OIDC_ROLES_CLAIM": "groups", "OIDC_PROJECT_ROLES": '{"a": {"p": "owner"}}'}, "role 'owner'"),
        ({**CLIENT, "OIDC_PROJECT_ROLES": '{"a": {"p": "admin"}}'}, "needs OIDC_ROLES_CLAIM"),
    ],
)
def test_a_setting_that_cannot_be_right_stops_the_start(monkeypatch, environment, complaint):
    assert complaint in refused(monkeypatch, **environment)
