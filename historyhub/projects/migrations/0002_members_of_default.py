"""Everyone who could log in before projects existed becomes a member of ``default`` with the role they had:
superusers are its admins, the Approvers group's members its approvers, everyone else its viewers. Roles take
the place of the Approvers group, which goes."""

from django.db import migrations

DEFAULT = "default"


def members_of_default(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Group = apps.get_model("auth", "Group")
    Membership = apps.get_model("projects", "Membership")
    approvers = Group.objects.filter(name="Approvers").first()
    approver_ids = set(approvers.user_set.values_list("pk", flat=True)) if approvers else set()
    # Also whoever held the permission itself, or through another group.
    approver_ids |= set(User.objects.filter(user_permissions__codename="decide_clientaction").values_list("pk", flat=True))
    approver_ids |= set(
        User.objects.filter(groups__permissions__codename="decide_clientaction").values_list("pk", flat=True)
    )
    for user in User.objects.filter(is_active=True):
        role = "admin" if user.is_superuser else "approver" if user.pk in approver_ids else "viewer"
        Membership.objects.get_or_create(project_id=DEFAULT, user=user, defaults={"role": role})
    if approvers is not None:
        approvers.delete()


def approvers_group_again(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    Membership = apps.get_model("projects", "Membership")
    group, _ = Group.objects.get_or_create(name="Approvers")
    permission = Permission.objects.filter(codename="decide_clientaction").first()
    if permission is not None:
        group.permissions.add(permission)
    deciders = Membership.objects.filter(project_id=DEFAULT, role__in=["approver", "admin"]).values("user")
    group.user_set.add(*User.objects.filter(pk__in=deciders))


class Migration(migrations.Migration):
    dependencies = [
        ("projects", "0001_initial"),
        ("history", "0003_approvers_group"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(members_of_default, approvers_group_again)]
