from django.apps import AppConfig


class HistoryConfig(AppConfig):
    name = "historyhub.history"
    label = "history"
    verbose_name = "History"
