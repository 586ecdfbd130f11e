"""What serving needs to know of the static files: whether they are collected, and a stamp of their sources.

With DEBUG off, pages name static files through collectstatic's manifest (whitenoise's
CompressedManifestStaticFilesStorage); without it every page answers 500. So ``bin/start`` runs
``collectstatic --if-stale``, which collects when the files are missing or their sources changed,
and ``/healthz`` answers 503 "not ready" while the manifest is missing (historyhub.serving.health).

The stamp is a SHA-256 of every file collectstatic would collect, found as it finds them (our
``static/`` and each installed app's), names and contents, with the storage and STATIC_URL. Our
``collectstatic`` (management/commands/) keeps it in STATIC_ROOT, beside what it describes. Reading
the sources takes a fraction of a second; collecting and compressing them takes seconds.
"""

import hashlib
import os
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

STAMP_NAME = ".sources-stamp"


def collected():
    """Whether pages can name static files: the manifest is there, or the storage needs none (DEBUG on)."""
    manifest = getattr(staticfiles_storage, "manifest_name", None)
    return manifest is None or staticfiles_storage.exists(manifest)


def sources_stamp():
    digest = hashlib.sha256(f"{settings.STORAGES['staticfiles']['BACKEND']}\0{settings.STATIC_URL}\0".encode())
    ignored = apps.get_app_config("staticfiles").ignore_patterns
    for finder in finders.get_finders():
        found = sorted(
            (os.path.join(getattr(storage, "prefix", None) or "", path), storage.path(path))
            for path, storage in finder.list(ignored)
        )
        for name, location in found:
            digest.update(name.encode() + b"\0")
            with open(location, "rb") as file:
                digest.update(hashlib.file_digest(file, "sha256").digest())
    return digest.hexdigest()


def collected_stamp():
    """The stamp of the sources STATIC_ROOT was last collected from, or None."""
    try:
        return _stamp_path().read_text().strip()
    except FileNotFoundError:
        return None


def record_stamp(stamp):
    _stamp_path().write_text(stamp + "\n")


def _stamp_path():
    return Path(settings.STATIC_ROOT) / STAMP_NAME
