from django.contrib import admin

from historyhub.sso.models import Identity


@admin.register(Identity)
class IdentityAdmin(admin.ModelAdmin[Identity]):
    """Operators link an IdP subject to the right account by hand when its email cannot (docs/sso.md, "Accounts")."""

    list_display = ["subject", "issuer", "user", "linked_at"]
    search_fields = ["subject", "user__username", "user__email"]
    raw_id_fields = ["user"]
