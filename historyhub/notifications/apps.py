from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "historyhub.notifications"
    verbose_name = "Notifications"
