from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "historyhub.runs"
    label = "runs"
    verbose_name = "Parked runs"
