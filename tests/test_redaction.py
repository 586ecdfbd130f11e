"""Credentials never reach a log line or an error page: Authorization headers and API keys are redacted."""

import io
import logging
import sys

import pytest
from django.test import Client, RequestFactory
from django.views.debug import technical_500_response

from historyhub.apikeys.models import ApiKey
from tests.support.html import parse

SECRET = "dXNlcjpzdXBlci1zZWNyZXQtcGFzc3dvcmQ="  # base64 of user:super-secret-password


@pytest.fixture
def log_output():
    """What the log handlers of settings.LOGGING (and any Django added) write, rather than pytest's capture."""
    loggers = [logging.getLogger(), *(logging.getLogger(name) for name in list(logging.root.manager.loggerDict))]
    handlers = {handler for logger in loggers for handler in logger.handlers if type(handler) is logging.StreamHandler}
    stream = io.StringIO()
    previous = {handler: handler.setStream(stream) for handler in handlers}
    yield stream
    for handler, old in previous.items():
        handler.setStream(old)


@pytest.mark.parametrize("header", [f"Basic {SECRET}", f"Token {SECRET}", SECRET])
def test_with_debug_on_an_authorization_header_the_api_refuses_is_not_logged(db, settings, log_output, header):
    settings.DEBUG = True

    response = Client().get("/api/v1/sessions", headers={"Authorization": header})

    assert response.status_code == 401
    assert "Unexpected auth - '[redacted]'" in log_output.getvalue()
    assert SECRET not in log_output.getvalue()


def test_an_api_key_or_a_bearer_header_in_a_logged_error_and_its_traceback_is_redacted(db, log_output):
    _, key = ApiKey.issue("logged", "write")
    try:
        raise ValueError(f"could not use Authorization: Bearer {key} for {key}")
    except ValueError:
        logging.getLogger("historyhub").exception("request failed with Bearer %s", key)

    output = log_output.getvalue()
    assert key not in output and key[:10] not in output
    assert "request failed with Bearer [redacted]" in output
    assert "ValueError: could not use Authorization: [redacted]" in output


def test_the_debug_error_page_hides_the_authorization_header_and_keys_in_variables(db, settings):
    settings.DEBUG = True
    _, key = ApiKey.issue("debugged", "write")
    request = RequestFactory().get("/api/v1/sessions", headers={"Authorization": f"Basic {SECRET}"})

    def authenticate(request):
        header = request.headers["Authorization"]  # noqa: F841 - what the page would show
        headers = dict(request.headers)  # noqa: F841
        raise RuntimeError(f"key {key} refused")

    try:
        authenticate(request)
    except RuntimeError:
        response = technical_500_response(request, *sys.exc_info())

    # The raw answer: a secret must appear nowhere in it, neither as text nor in any attribute or script.
    assert SECRET not in response.content.decode() and key not in response.content.decode()
    assert "key [redacted] refused" in parse(response).text("#summary")


def test_a_key_percent_encoded_in_a_logged_url_is_redacted(db, log_output):
    _, key = ApiKey.issue("encoded", "read")
    encoded = key.replace("_", "%5F").replace("-", "%2D")

    logging.getLogger("historyhub").warning('"GET /api/v1/sessions?api_key=%s HTTP/1.1" 401', encoded)

    assert '"GET /api/v1/sessions?api_key=[redacted] HTTP/1.1" 401' in log_output.getvalue()
