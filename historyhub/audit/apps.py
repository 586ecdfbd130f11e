from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "historyhub.audit"
    label = "audit"
    verbose_name = "Audit log"
