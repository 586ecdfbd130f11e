"""The audit log's hash chain (historyhub.audit.chain): each row's place and hashes, null until it is linked
(0003 links the rows there are), and each project's head."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('audit', '0001_audit_entries_from_data'),
        ('projects', '0002_members_of_default'),
    ]

    operations = [
        migrations.CreateModel(
            name='AuditChainHead',
            fields=[
                ('project', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='audit_chain_head', serialize=False, to='projects.project')),
                ('seq', models.PositiveBigIntegerField(default=0)),
                ('hash', models.CharField(default='sha256:0000000000000000000000000000000000000000000000000000000000000000', max_length=71)),
                ('pruned_through_seq', models.PositiveBigIntegerField(default=0)),
                ('pruned_through_hash', models.CharField(default='sha256:0000000000000000000000000000000000000000000000000000000000000000', max_length=71)),
            ],
        ),
        migrations.AddField(
            model_name='auditentry',
            name='hash',
            field=models.CharField(blank=True, max_length=71, null=True),
        ),
        migrations.AddField(
            model_name='auditentry',
            name='prev_hash',
            field=models.CharField(blank=True, max_length=71, null=True),
        ),
        migrations.AddField(
            model_name='auditentry',
            name='seq',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='auditentry',
            index=models.Index(condition=models.Q(('seq__isnull', True)), fields=['project', 'id'], name='audit_unchained'),
        ),
        migrations.AddConstraint(
            model_name='auditentry',
            constraint=models.UniqueConstraint(fields=('project', 'seq'), name='audit_seq_once'),
        ),
    ]
