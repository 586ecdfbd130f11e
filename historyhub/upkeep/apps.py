from django.apps import AppConfig


class UpkeepConfig(AppConfig):
    name = "historyhub.upkeep"
    label = "upkeep"
    verbose_name = "Upkeep: expiry, escalation, retention and pruning"
