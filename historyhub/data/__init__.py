"""A project's data as a whole: export and import (``export``, ``importing``, the ``export``/``import`` commands)
and erasure (``erasure``), plus the rotation of the encryption keys that protect it at rest. The audit log is its
own app, ``historyhub.audit``; retention is time-driven upkeep, in ``historyhub.upkeep``."""
