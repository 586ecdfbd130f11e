"""``/.well-known/jwks.json``: the public keys receipts are signed with (docs/receipts.md, "Keys").

Public by design: no login, no key, and any cache may keep it for a while. Retired keys stay listed, so a receipt
signed before a rotation still verifies.
"""

from django.http import HttpRequest, JsonResponse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe

from historyhub.approvals import signing_keys

# Long enough to spare a verifier's repeated fetches, short enough that a key put first is known within minutes.
CACHE_SECONDS = 300
# RFC 7517, section 8.5.
MEDIA_TYPE = "application/jwk-set+json"


@require_safe
def jwks(request: HttpRequest) -> JsonResponse:
    response = JsonResponse(signing_keys.jwks(), content_type=MEDIA_TYPE)
    # Not a Django attribute: the mark historyhub.middleware.NoStoreMiddleware reads (getattr) to leave it cacheable.
    response.public = True  # type: ignore[attr-defined]
    patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
    return response
