"""``{% delivery_worker_warning %}``: a warning on the pages about channels when the notification worker has not
run for a minute (its heartbeat, docs/operations.md, "Workers that stay alive"). It only reads."""

from django import template

from historyhub.notifications.delivery_worker import HEARTBEAT_NAME
from historyhub.serving import heartbeats

register = template.Library()


@register.inclusion_tag("dashboard/fragments/delivery_worker_warning.html")
def delivery_worker_warning():
    return {"stopped": heartbeats.stopped(HEARTBEAT_NAME), "minutes": heartbeats.STALE_SECONDS // 60}


@register.inclusion_tag("dashboard/fragments/delivery_worker_status.html")
def delivery_worker_status():
    """The channels page's line on the worker: when it last ran, where, or the warning when it stopped."""
    return {
        **delivery_worker_warning(),
        "last_run": heartbeats.last_runs().get(HEARTBEAT_NAME),
    }
