from django.apps import AppConfig


class SsoConfig(AppConfig):
    name = "historyhub.sso"
    label = "sso"
    verbose_name = "Single sign-on"
