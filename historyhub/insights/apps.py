from django.apps import AppConfig


class InsightsConfig(AppConfig):
    name = "historyhub.insights"
    label = "insights"
    verbose_name = "Insights"
