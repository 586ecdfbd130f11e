from django.conf import settings
from django.core.management.base import BaseCommand

from historyhub.idempotency.records import prune


class Command(BaseCommand):
    help = "Delete Idempotency-Key records older than HISTORYHUB_IDEMPOTENCY_TTL_HOURS (24 by default)."

    def handle(self, *args, **options):
        deleted = prune()
        hours = settings.HISTORYHUB_IDEMPOTENCY_TTL_HOURS
        records = "record" if deleted == 1 else "records"
        self.stdout.write(f"Pruned {deleted} Idempotency-Key {records} older than {hours} hours.")
