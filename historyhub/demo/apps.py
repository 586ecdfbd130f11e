from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "historyhub.demo"
    label = "demo"
    verbose_name = "Demo data"
