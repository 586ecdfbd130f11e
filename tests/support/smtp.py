"""A local SMTP server (aiosmtpd) that keeps what it is sent, with Django's mail pointed at it."""

from contextlib import contextmanager

from aiosmtpd.controller import Controller

from bench.server import free_port
from tests.notifications.test_email import Inbox


@contextmanager
def local_inbox(settings):
    handler = Inbox()
    handler.port = port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    try:
        yield handler
    finally:
        controller.stop()


def text_of(message):
    return message.get_body(preferencelist=("plain",)).get_content()
