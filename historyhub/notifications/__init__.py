"""Notifications: channels, the outbox, the worker and its transports (docs/notifications.md).

The domain announces what happened to a client action through ``historyhub.history.action_events``; this app
listens there (``apps.NotificationsConfig.ready``) and turns each event into outbox rows, in the transaction that
changed the action. The domain does not import it.
"""
