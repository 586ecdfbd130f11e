"""API keys in the admin: a new key is shown once, only its hash is kept, and keys are revoked, not edited."""

from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from historyhub.apikeys.models import ApiKey, Scope, parse_scopes


class ApiKeyForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Scope.WRITE],
        help_text="Agents need write. A client application or bot that decides client actions needs decide; "
        "the key that opened an action can never decide it.",
    )

    class Meta:
        model = ApiKey
        fields = ("project", "name", "scopes")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["scopes"] = self.instance.scope_list

    def clean_scopes(self):
        return ",".join(parse_scopes(",".join(self.cleaned_data["scopes"])))


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    form = ApiKeyForm
    list_display = ("name", "project", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = ("project", "scopes", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "=prefix")
    ordering = ("-created_at",)
    actions = ("revoke",)

    def get_readonly_fields(self, request, obj=None):
        # A key stays in the project it was issued for.
        if obj is None:
            return ()
        return ("project", "prefix", "created_at", "last_used_at", "revoked_at")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("project", "name", "scopes")
        return ("project", "name", "scopes", "prefix", "created_at", "last_used_at", "revoked_at")

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        # Made by a person (an operator logged in): it decides as them, so it adds no approval of its own
        # (docs/api.md, "A decider is a person or a key").
        issued, key = ApiKey.issue(obj.name, obj.scopes, project=obj.project, created_by=request.user)
        # The admin goes on with the object it built (its log entry, its redirect): make it the issued key.
        for field in ApiKey._meta.concrete_fields:
            setattr(obj, field.attname, getattr(issued, field.attname))
        obj._state = issued._state
        obj.issued_key = key

    def response_add(self, request, obj, post_url_continue=None):
        """The key in clear, once, on the answer to the add itself: never in a message,
        which would carry it in the (signed, not encrypted) messages cookie."""
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Copy the new API key now",
            "api_key": obj,
            "key": obj.issued_key,
        }
        response = TemplateResponse(request, "admin/apikeys/apikey/issued.html", context)
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke the selected API keys", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for api_key in queryset.filter(revoked_at__isnull=True):
            api_key.revoke()
            revoked += 1
        self.message_user(request, f"Revoked {revoked} API key{'s' if revoked != 1 else ''}.", messages.SUCCESS)
