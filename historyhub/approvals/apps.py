from django.apps import AppConfig


class ApprovalsConfig(AppConfig):
    name = "historyhub.approvals"
    label = "approvals"
    verbose_name = "Approvals"

    def ready(self):
        # A person deactivated, made or unmade superuser, or deleted is noticed whatever saved them.
        from historyhub.approvals import eligibility  # noqa: F401
