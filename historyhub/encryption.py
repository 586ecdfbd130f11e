"""Columns kept encrypted at rest (docs/configuration.md, "Encryption at rest"): a database dump alone
reveals no secret.

``EncryptedTextField`` is a text column whose Python value is the plain text and whose stored value is
``fernet:`` and a Fernet token (``cryptography``'s authenticated encryption), or empty for an empty value.
The keys are ``settings.FIELD_ENCRYPTION_KEYS``: the first encrypts, every one decrypts, so keys rotate by
putting a new one first, re-encrypting (``rotate_encryption_keys``) and dropping the old one.

The prefix says a stored value is encrypted: a plain value is never taken for a token, nor a token for a
plain value. A value is decrypted when it is first read, not when its row is loaded, and a plain value read
through the field is refused, not used; the upgrade that brings a column under the field encrypts its rows
with ``encrypt_column`` (and a downgrade decrypts them with ``decrypt_column``). These work on the stored
values with SQL, below the field, and take each row's value only if it is still the one they read, so a
change made meanwhile is never overwritten.

Nothing here imports an app: any model may use the field on any text column.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.db import migrations, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.query_utils import DeferredAttribute
from django.dispatch import receiver

PREFIX = "fernet:"


class UnreadableValue(ImproperlyConfigured):
    """A stored value the keys cannot read: encrypted with a key no longer listed, or never encrypted."""


@cache
def _keys() -> MultiFernet:
    return MultiFernet([Fernet(key) for key in settings.FIELD_ENCRYPTION_KEYS])


@receiver(setting_changed)
def _forget_keys(*, setting: str, **kwargs: Any) -> None:
    if setting == "FIELD_ENCRYPTION_KEYS":
        _keys.cache_clear()


def is_encrypted(stored: str) -> bool:
    return stored.startswith(PREFIX)


def encrypt(text: str) -> str:
    """The stored form of ``text``, encrypted with the first key; empty stays empty."""
    if text == "":
        return ""
    return PREFIX + _keys().encrypt(text.encode()).decode()


def decrypt(stored: str, where: str = "a value") -> str:
    """The text of a stored value; ``where`` names the column in the error when it cannot be read."""
    if stored == "":
        return ""
    if not is_encrypted(stored):
        raise UnreadableValue(f"{where} is stored unencrypted: run `manage.py rotate_encryption_keys` to encrypt it")
    try:
        return _keys().decrypt(stored.removeprefix(PREFIX).encode()).decode()
    except InvalidToken:
        raise UnreadableValue(
            f"{where} was encrypted with a key FIELD_ENCRYPTION_KEYS does not list (docs/configuration.md)"
        ) from None


def reencrypt(stored: str, where: str = "a value") -> str:
    """A stored value encrypted again with the first key (a plain one encrypted for the first time)."""
    if stored == "":
        return ""
    if not is_encrypted(stored):
        return encrypt(stored)
    try:
        return PREFIX + _keys().rotate(stored.removeprefix(PREFIX).encode()).decode()
    except InvalidToken:
        raise UnreadableValue(
            f"{where} was encrypted with a key FIELD_ENCRYPTION_KEYS does not list (docs/configuration.md)"
        ) from None


@dataclass(frozen=True)
class Sealed:
    """A value as read from the database and not yet decrypted. Not a string, so nothing takes it for the
    secret: ``values()`` of an encrypted column gives these."""

    stored: str


class DecryptedOnRead(DeferredAttribute):
    """The field's attribute on a model: a row is loaded without decrypting anything, and a value is decrypted
    when it is first read. A key missing for one row's secret fails only what uses that secret (its delivery
    records the error), never the loading of the rows beside it (an agent's write announcing an event)."""

    def __get__(self, instance: Any, cls: Any = None) -> Any:
        value = super().__get__(instance, cls)
        if isinstance(value, Sealed):
            value = decrypt(value.stored, f"{self.field.model._meta.db_table}.{self.field.column}")
            instance.__dict__[self.field.attname] = value
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.field.attname] = value


class EncryptedTextField(models.TextField):
    """Text that is stored encrypted and read back plain. Use it where a ``TextField`` or ``CharField`` would
    be (``max_length`` still bounds forms); lookups other than on the empty value find nothing, since each
    encryption of a value differs."""

    descriptor_class = DecryptedOnRead

    def from_db_value(self, value: str | None, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        return Sealed(value) if value else value

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        # A value never read is saved as it was stored, without being decrypted.
        return model_instance.__dict__[self.attname]

    def get_prep_value(self, value: Any) -> Any:
        if isinstance(value, Sealed):
            return value.stored
        value = super().get_prep_value(value)
        if value is None:
            return None
        return encrypt(value)


def encrypted_columns() -> list[tuple[type[models.Model], EncryptedTextField]]:
    """Every model's encrypted columns, as (model, field)."""
    from django.apps import apps

    return [
        (model, field)
        for model in apps.get_models()
        for field in model._meta.concrete_fields
        if isinstance(field, EncryptedTextField)
    ]


def encrypt_column(connection: BaseDatabaseWrapper, table: str, column: str, pk: str = "id") -> int:
    """Encrypt the plain values of ``table.column`` (an upgrade); answers how many it encrypted."""
    return _rewrite(connection, table, pk, column, lambda stored: None if is_encrypted(stored) else encrypt(stored))


def decrypt_column(connection: BaseDatabaseWrapper, table: str, column: str, pk: str = "id") -> int:
    """Decrypt the encrypted values of ``table.column`` back to plain text (a downgrade); answers how many."""
    return _rewrite(connection, table, pk, column, lambda stored: decrypt(stored, f"{table}.{column}"))


def rotate_column(connection: BaseDatabaseWrapper, table: str, column: str, pk: str = "id") -> int:
    """Encrypt every value of ``table.column`` with the first key; answers how many it rewrote."""
    return _rewrite(connection, table, pk, column, lambda stored: reencrypt(stored, f"{table}.{column}"))


def encrypting(table: str, *columns: str, pk: str = "id") -> migrations.RunPython:
    """The migration operation that brings the rows of ``columns``, now ``EncryptedTextField``s, under
    encryption, and says how many values it encrypted; reversed, it decrypts them again. It follows the
    ``AlterField`` that makes each an ``EncryptedTextField``. The constraints are checked at its end: on
    PostgreSQL a table whose rows were updated cannot be altered in the same transaction while their deferred
    checks are pending (the reversal alters the columns back next)."""

    def encrypt_rows(apps: Any, schema_editor: Any) -> None:
        count = sum(encrypt_column(schema_editor.connection, table, column, pk) for column in columns)
        schema_editor.connection.check_constraints(table_names=[table])
        if count:
            print(f"\n  {table}: {count} stored value{'s' if count != 1 else ''} encrypted ({', '.join(columns)}).")

    def decrypt_rows(apps: Any, schema_editor: Any) -> None:
        for column in columns:
            decrypt_column(schema_editor.connection, table, column, pk)
        schema_editor.connection.check_constraints(table_names=[table])

    return migrations.RunPython(encrypt_rows, decrypt_rows)


def _rewrite(
    connection: BaseDatabaseWrapper, table: str, pk: str, column: str, change: Callable[[str], str | None]
) -> int:
    """Each non-empty stored value of ``column`` replaced by ``change(value)`` (None: kept), where it is still
    the value read; in one transaction."""
    quote = connection.ops.quote_name
    table, pk, column = quote(table), quote(pk), quote(column)
    rewritten = 0
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute(f"SELECT {pk}, {column} FROM {table} WHERE {column} <> ''")
        for key, stored in cursor.fetchall():
            new = change(stored)
            if new is None or new == stored:
                continue
            cursor.execute(
                f"UPDATE {table} SET {column} = %s WHERE {pk} = %s AND {column} = %s",
                [new, key, stored],
            )
            rewritten += cursor.rowcount
    return rewritten
