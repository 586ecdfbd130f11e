from django.contrib.auth.models import Group


def test_migrations_give_every_install_an_approvers_group_that_may_decide(db):
    approvers = Group.objects.get(name="Approvers")

    assert [permission.codename for permission in approvers.permissions.all()] == ["decide_clientaction"]
