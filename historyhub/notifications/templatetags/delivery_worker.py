"""``{% delivery_worker_warning %}``: a warning on the pages about channels when the notification worker has not
run for a minute (its heartbeat, docs/operations.md, "Workers that stay alive"). It only reads."""

from django import template

from historyhub.notifications.worker import HEARTBEAT_NAME
from historyhub.serving import heartbeats

register = template.Library()


@register.inclusion_tag("notifications/worker_warning.html")
def delivery_worker_warning():
    return {"stopped": heartbeats.stopped(HEARTBEAT_NAME), "minutes": heartbeats.STALE_SECONDS // 60}
