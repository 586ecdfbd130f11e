from django.apps import AppConfig


class ApprovalsConfig(AppConfig):
    name = "historyhub.approvals"
    label = "approvals"
    verbose_name = "Approvals"
