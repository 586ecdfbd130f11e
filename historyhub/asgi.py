"""The application as production serves it: Django's ASGI handler under gunicorn's uvicorn workers
(``bin/start``, ``historyhub.serving``), so a request that waits is a suspended coroutine, not a blocked thread."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")

application = get_asgi_application()
