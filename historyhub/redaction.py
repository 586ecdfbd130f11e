"""Credentials never reach a log line or an error report.

``RedactCredentials`` is a logging filter on every handler of settings.LOGGING;
``CredentialRedactingReporter`` and its filter make Django's error reports (the
DEBUG error page, error e-mails). They hide Authorization header values, whatever
their scheme, and HistoryHub API keys wherever they appear.
"""

import logging
import re

from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

REDACTED = "[redacted]"

CREDENTIALS = [
    # A header as a dict or META entry prints it: 'HTTP_AUTHORIZATION': 'Basic …', "Authorization: Bearer …".
    re.compile(r"""(?i)((?:http_)?(?:proxy_)?authorization['"]?\s*[:=]\s*['"]?)[^'"\n]+"""),
    # ninja logs a header whose scheme is not Bearer in full: "Unexpected auth - '<header>'".
    re.compile(r"(?i)(unexpected auth - ')[^'\n]*"),
    # A scheme and a token of 8 or more characters with a digit or a base64 sign in it (not "basic settings").
    re.compile(r"(?i)(\b(?:basic|bearer|digest|negotiate)\s+)(?=[\w.~+/=-]{8})[\w.~+/-]*[0-9+/=][\w.~+/=-]*"),
    # A key, also percent-encoded as a URL may carry it (an access log line shows the query as it came).
    re.compile(r"()\bhh(?:_|%5[Ff])(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2}){16,}"),
]


def redact(text):
    for pattern in CREDENTIALS:
        text = pattern.sub(lambda match: match.group(1) + REDACTED, text)
    return text


class RedactCredentials(logging.Filter):
    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the handler's to report, as it would be unfiltered
            return True
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class CredentialRedactingReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, active with DEBUG on too: what sensitive_variables and
    sensitive_post_parameters name (the login form's password) stays hidden."""

    def is_active(self, request):
        return True


class CredentialRedactingReporter(ExceptionReporter):
    """Django's error report (the DEBUG page, error e-mails) with every credential it shows redacted:
    in the exception's message, a variable's value, the source around a frame."""

    def get_traceback_html(self):
        return redact(super().get_traceback_html())

    def get_traceback_text(self):
        return redact(super().get_traceback_text())
