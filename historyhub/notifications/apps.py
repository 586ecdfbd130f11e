from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "historyhub.notifications"
    verbose_name = "Notifications"

    def ready(self):
        # The domain announces; this app listens (historyhub.history.action_events), so history and approvals,
        # lower in the stack, never import notifications.
        from historyhub.history import action_events
        from historyhub.notifications import events

        action_events.happened.connect(events.on_action_event, dispatch_uid="historyhub.notifications.events")
