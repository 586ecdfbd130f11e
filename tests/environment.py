"""The test run's environment, set before Django reads its settings."""

import os

os.environ.setdefault("DEBUG", "True")
os.environ.setdefault("SECRET_KEY", "tests-only-secret-key")
# Browser tests drive a live server from Playwright's event loop thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
