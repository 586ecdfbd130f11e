from django.apps import AppConfig


class IdempotencyConfig(AppConfig):
    name = "historyhub.idempotency"
    label = "idempotency"
    verbose_name = "Idempotency keys"
