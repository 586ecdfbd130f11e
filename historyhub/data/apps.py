from django.apps import AppConfig


class DataConfig(AppConfig):
    name = "historyhub.data"
    label = "data"
    verbose_name = "Data: erasure, export and import"
