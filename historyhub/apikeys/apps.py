from django.apps import AppConfig


class ApiKeysConfig(AppConfig):
    name = "historyhub.apikeys"
    label = "apikeys"
    verbose_name = "API keys"
