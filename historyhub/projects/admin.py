"""Projects in the admin, for operators: each with its members (and their roles) and its groups.

Changes go through historyhub.projects.administration where it has a rule (a group holds members of its
project only; a change of a project's name or retention is checked and recorded in the audit log there);
project admins do the same on their project's settings page.
"""

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponseRedirect

from historyhub.lib import validation
from historyhub.lib.errors import DecisionNotAllowed, InvalidInput
from historyhub.projects import administration, member_changes
from historyhub.projects.models import Group, Membership, Project


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ("user",)


class ProjectForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = ("id", "name", "retention_days")

    def clean_id(self):
        return _checked(validation.project_id, self.cleaned_data["id"], "id")

    def clean_name(self):
        return _checked(administration.checked_name, self.cleaned_data["name"])

    def clean_retention_days(self):
        return _checked(administration.checked_retention_days, self.cleaned_data["retention_days"])


def _checked(check, value, *args):
    """The value as ``check`` takes it; its refusal is the form field's error."""
    try:
        return check(value, *args)
    except InvalidInput as error:
        raise forms.ValidationError(error.message) from None


class RefusedChangesShown:
    """A change of members, roles or groups that would leave a policy nobody can satisfy is refused by
    administration as it is saved (``member_changes.changing``, where approvals guards its policies): the admin's
    transaction rolls back whole, and the page comes back with the refusal, naming the policy."""

    def changeform_view(self, request, *args, **kwargs):
        try:
            return super().changeform_view(request, *args, **kwargs)
        except DecisionNotAllowed as refusal:
            self.message_user(request, refusal.message, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


@admin.register(Project)
class ProjectAdmin(RefusedChangesShown, admin.ModelAdmin):
    form = ProjectForm
    list_display = ("id", "name", "retention_days", "created_at")
    search_fields = ("id", "name")
    inlines = (MembershipInline,)

    def get_readonly_fields(self, request, obj=None):
        # Session keys start with the project's id: it never changes once made.
        return ("id", "created_at") if obj is not None else ("created_at",)

    def save_model(self, request, obj, form, change):
        if not change:
            super().save_model(request, obj, form, change)
            return
        administration.update_project(
            obj,
            actor=request.user.get_username(),
            name=form.cleaned_data["name"],
            retention_days=form.cleaned_data["retention_days"],
        )

    def save_formset(self, request, form, formset, change):
        """Members join, change role and leave through administration, which records each in the audit log."""
        project, actor = form.instance, request.user.get_username()
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        for row in formset.deleted_forms:
            if row.instance.pk is not None:
                administration.remove_member(
                    project, Membership.objects.get(pk=row.instance.pk).user.username, actor=actor
                )
                formset.deleted_objects.append(row.instance)
        for row in formset.forms:
            if row in formset.deleted_forms or not row.has_changed():
                continue
            user, role = row.cleaned_data["user"], row.cleaned_data["role"]
            if row.instance.pk is not None:
                before = Membership.objects.get(pk=row.instance.pk).user
                if before != user:
                    administration.remove_member(project, before.username, actor=actor)
            membership = administration.set_member(project, user.username, role, actor=actor)
            if row.instance.pk is None:
                formset.new_objects.append(membership)
            else:
                formset.changed_objects.append((membership, row.changed_data))


class GroupForm(forms.ModelForm):
    class Meta:
        model = Group
        fields = ("project", "name", "members")

    def clean_name(self):
        return _checked(administration.group_name, self.cleaned_data["name"])

    def clean(self):
        cleaned = super().clean()
        project, people = cleaned.get("project"), cleaned.get("members")
        if project is not None and people:
            # Superusers are admins of every project, members or not.
            outside = people.exclude(memberships__project=project).exclude(is_superuser=True)
            if outside.exists():
                raise forms.ValidationError(f"{outside.first().username!r} is not a member of this project.")
        return cleaned


@admin.register(Group)
class GroupAdmin(RefusedChangesShown, admin.ModelAdmin):
    form = GroupForm
    list_display = ("name", "project")
    list_filter = ("project",)
    search_fields = ("name",)
    filter_horizontal = ("members",)

    def get_readonly_fields(self, request, obj=None):
        # Policies name a group by its name: a new name is a new group (and the old one stays until deleted).
        return ("project", "name") if obj is not None else ()

    def save_model(self, request, obj, form, change):
        """Through administration, with its members, recorded in the audit log (save_related has nothing left)."""
        members = [person.username for person in form.cleaned_data["members"]]
        group = administration.put_group(obj.project, obj.name, members, actor=request.user.get_username())
        obj.pk = group.pk

    def save_related(self, request, form, formsets, change):
        pass

    def get_deleted_objects(self, objs, request):
        """A group a policy names is protected: the admin shows which policy and deletes nothing."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        for group in objs:
            protected += [
                f"{kind.capitalize()}: {name} (names the group {group.name})"
                for kind, name in member_changes.uses_of_group(group.project_id, group.name)
            ]
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        administration.delete_group(obj.project, obj.name, actor=request.user.get_username())

    def delete_queryset(self, request, queryset):
        for group in queryset.select_related("project"):
            self.delete_model(request, group)
