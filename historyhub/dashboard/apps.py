from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "historyhub.dashboard"
    label = "dashboard"
    verbose_name = "Dashboard"
