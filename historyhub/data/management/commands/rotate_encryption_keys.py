"""Encrypt every stored secret again with the first of FIELD_ENCRYPTION_KEYS, after a new key was put first
(docs/configuration.md, "Encryption at rest"); once it has run, the keys after the first may be dropped."""

from django.core.management.base import BaseCommand, CommandError
from django.db import connections, router

from historyhub.encryption import UnreadableValue, encrypted_columns, rotate_column


class Command(BaseCommand):
    help = "Re-encrypt every encrypted column with the first of FIELD_ENCRYPTION_KEYS, printing how many values."

    def handle(self, **options):
        total = 0
        for model, field in encrypted_columns():
            connection = connections[router.db_for_write(model)]
            try:
                count = rotate_column(connection, model._meta.db_table, field.column, model._meta.pk.column)
            except UnreadableValue as error:
                raise CommandError(str(error)) from None
            total += count
            self.stdout.write(f"{model._meta.label}.{field.name}: {count} re-encrypted")
        self.stdout.write(f"{total} value{'s' if total != 1 else ''} re-encrypted with the first key.")
