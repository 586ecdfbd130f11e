"""Link the rows written before the chain, per project in the order they were written (their pk), as
``historyhub.audit.chain.link`` links new ones; each project's head ends at its last row."""

from django.db import migrations

from historyhub.audit.chain import hash_of
from historyhub.audit.models import GENESIS
from historyhub.lib import jsonvalues
from historyhub.lib.times import format_time

CHUNK = 1000


def link_existing(apps, schema_editor):
    alias = schema_editor.connection.alias
    AuditEntry = apps.get_model("audit", "AuditEntry")
    AuditChainHead = apps.get_model("audit", "AuditChainHead")
    projects = AuditEntry.objects.using(alias).values_list("project_id", flat=True).distinct()
    for project in sorted(set(projects)):
        seq, prev = 0, GENESIS
        after = 0
        while True:
            chunk = list(AuditEntry.objects.using(alias).filter(project_id=project, pk__gt=after).order_by("pk")[:CHUNK])
            for entry in chunk:
                seq += 1
                fields = {
                    "seq": seq,
                    "at": format_time(entry.at),
                    "actor": entry.actor,
                    "action": entry.action,
                    "target": entry.target,
                    "details": jsonvalues.loads(entry.details_json),
                }
                entry.seq, entry.prev_hash, entry.hash = seq, prev, hash_of(prev, fields)
                prev = entry.hash
            AuditEntry.objects.using(alias).bulk_update(chunk, ["seq", "prev_hash", "hash"])
            if len(chunk) < CHUNK:
                break
            after = chunk[-1].pk
        AuditChainHead.objects.using(alias).update_or_create(project_id=project, defaults={"seq": seq, "hash": prev})


def unlink(apps, schema_editor):
    alias = schema_editor.connection.alias
    apps.get_model("audit", "AuditChainHead").objects.using(alias).all().delete()
    apps.get_model("audit", "AuditEntry").objects.using(alias).update(seq=None, prev_hash=None, hash=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_hash_chain")]

    operations = [migrations.RunPython(link_existing, unlink)]
