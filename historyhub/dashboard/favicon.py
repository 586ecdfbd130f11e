"""``/favicon.ico``, which browsers and tools ask for whatever a page links: a redirect to the SVG icon that
templates/base.html links (docs/dashboard.md). It names nobody's data, so caches may keep it for a day."""

from django.http import HttpResponseRedirect
from django.templatetags.static import static
from django.utils.cache import patch_cache_control

ICON = "favicon.svg"
KEPT_SECONDS = 86_400


def favicon(request):
    # Temporary (302), kept a day: a browser keeps a 301 for good, and the icon's static name may change.
    response = HttpResponseRedirect(static(ICON))
    # Not a page: historyhub.middleware.NoStoreMiddleware leaves answers marked public to their own Cache-Control.
    response.public = True
    patch_cache_control(response, public=True, max_age=KEPT_SECONDS)
    return response
