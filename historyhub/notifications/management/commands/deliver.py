"""The notification worker (docs/notifications.md): ``bin/start`` runs it beside the server; run as many as you
like on other machines too, against the same database (on PostgreSQL; SQLite takes one)."""

from django.core.management.base import BaseCommand

from historyhub.notifications import delivery_worker


class Command(BaseCommand):
    help = "Deliver notifications from the outbox: webhooks, email and Slack messages."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Send what is due now, then end.")
        parser.add_argument(
            "--with-parent",
            action="store_true",
            help="End when the process that started this one ends (bin/start uses it).",
        )

    def handle(self, *args, once=False, with_parent=False, **options):
        stop_when = delivery_worker.parent_gone() if with_parent else (lambda: False)
        running = delivery_worker.Worker(stop_when)
        running.announce()
        try:
            if once:
                sent = running.deliver_due()
                self.stdout.write(f"Sent {sent} deliveries.")
            else:
                running.run()
        finally:
            running.close()
