"""The test run's environment, set before Django reads its settings."""

import os

os.environ.setdefault("DEBUG", "True")
os.environ.setdefault("SECRET_KEY", "tests-only-secret-key")
# A key of the tests' own (base64 of "tests-only-field-encryption-key!"), which the servers they start inherit.
os.environ.setdefault("FIELD_ENCRYPTION_KEYS", "dGVzdHMtb25seS1maWVsZC1lbmNyeXB0aW9uLWtleSE=")
# The receipts' signing key, likewise (base64 of "tests-only-receipt-signing-key!!").
os.environ.setdefault("RECEIPT_SIGNING_KEYS", "dGVzdHMtb25seS1yZWNlaXB0LXNpZ25pbmcta2V5ISE=")
# Browser tests drive a live server from Playwright's event loop thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
