"""The project settings page's forms: the project, a member, a group, a key (docs/projects.md)."""

from django import forms

from historyhub.apikeys.models import Scope
from historyhub.projects.models import Role


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=200)
    retention_days = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=36500,
        label="Keep sessions for (days)",
        help_text="Sessions not updated for this many days are deleted. Empty keeps them forever.",
    )


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices)


class RemoveMemberForm(forms.Form):
    username = forms.CharField(max_length=150)


class GroupForm(forms.Form):
    name = forms.CharField(max_length=200)
    members = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Usernames of the project's members, separated by spaces, commas or new lines.",
    )

    def clean_members(self):
        return sorted({name for name in self.cleaned_data["members"].replace(",", " ").split() if name})


class DeleteGroupForm(forms.Form):
    name = forms.CharField(max_length=200)


class KeyForm(forms.Form):
    name = forms.CharField(max_length=200, label="Key name", help_text="Who uses it, e.g. “support agent”.")
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Scope.WRITE],
        help_text="Agents need write; a client application or bot that decides needs decide. "
        "The key that opened an action can never decide it.",
    )


class RevokeKeyForm(forms.Form):
    key = forms.IntegerField(min_value=1)


class InviteForm(forms.Form):
    email = forms.CharField(max_length=254, label="Email", help_text="The link goes there; it works once, for 7 days.")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER)

    def __init__(self, *args, **kwargs):
        # Ids of its own: the member form beside it on the page has a role field too.
        kwargs.setdefault("auto_id", "invite-%s")
        super().__init__(*args, **kwargs)


class RevokeInvitationForm(forms.Form):
    invitation = forms.CharField(max_length=26)


# What each button of the page posts, by the name of its ``action``.
FORMS = {
    "project": ProjectForm,
    "member": MemberForm,
    "remove_member": RemoveMemberForm,
    "group": GroupForm,
    "delete_group": DeleteGroupForm,
    "key": KeyForm,
    "revoke_key": RevokeKeyForm,
    "invite": InviteForm,
    "revoke_invitation": RevokeInvitationForm,
}
