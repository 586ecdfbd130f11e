"""A project's settings page, for its admins: the project itself, its members, groups and API keys
(docs/projects.md). The domain changes them (``projects.administration``); a form refused shows its errors."""

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render

from historyhub.dashboard import settings_forms
from historyhub.dashboard.access import admins_only, project_page
from historyhub.dashboard.settings_forms import ProjectForm
from historyhub.lib.errors import DomainError
from historyhub.projects import administration, invitations
from historyhub.projects.models import Role


@project_page
def project_settings(request):
    """The project, its members, groups and keys, for its admins; a new key is shown on this answer only."""
    admins_only(request)
    project = request.project
    forms_shown, issued, status = {}, None, 200
    if request.method == "POST":
        action = request.POST.get("action")
        form_class = settings_forms.FORMS.get(action)
        if form_class is None:
            return HttpResponseBadRequest("Unknown settings action.")
        form = form_class(request.POST)
        if form.is_valid():
            try:
                issued = change_settings(project, action, form.cleaned_data, request.user)
            except DomainError as error:
                form.add_error(None, error.message)
        if form.errors:
            forms_shown[action], status = form, 422
        elif issued is None:
            messages.success(request, SETTINGS_DONE[action])
            return redirect("dashboard:settings", project_id=project.pk)
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    context = {
        "forms": {
            "project": ProjectForm(initial={"name": project.name, "retention_days": project.retention_days}),
            "member": settings_forms.MemberForm(),
            "group": settings_forms.GroupForm(),
            "key": settings_forms.KeyForm(),
            "invite": settings_forms.InviteForm(),
            **forms_shown,
        },
        # A button beside a member, group or key has no form on the page to show its refusal in.
        "refused": [
            error
            for action in ROW_BUTTON_ACTIONS & forms_shown.keys()
            for error in forms_shown[action].non_field_errors()
        ],
        "members": administration.members(project),
        "groups": administration.groups(project),
        "api_keys": administration.api_keys(project),
        "invitations": invitations.open_invitations(project),
        "issued": issued,
        "roles": Role.choices,
    }
    return render(request, "dashboard/settings.html", context, status=status)


SETTINGS_DONE = {
    "project": "The project's settings were saved.",
    "member": "The member's role was saved.",
    "remove_member": "The person left the project.",
    "group": "The group was saved.",
    "delete_group": "The group was deleted.",
    "revoke_key": "The key was revoked: it no longer works.",
    "invite": "The invitation was made: its link goes by email.",
    "revoke_invitation": "The invitation was revoked: its link no longer works.",
}


# The settings actions a button beside a member, group or key sends: they have no form of their own on the page.
ROW_BUTTON_ACTIONS = {"remove_member", "delete_group", "revoke_key", "revoke_invitation"}


def change_settings(project, action, data, person):
    """Carry out one settings form as ``person``; returns the key in clear for a new key (None otherwise). A key
    made here is the person's: it decides as them."""
    actor = person.get_username()
    if action == "project":
        administration.update_project(project, actor=actor, name=data["name"], retention_days=data["retention_days"])
    elif action == "member":
        administration.set_member(project, data["username"], data["role"], actor=actor)
    elif action == "remove_member":
        administration.remove_member(project, data["username"], actor=actor)
    elif action == "group":
        administration.put_group(project, data["name"], data["members"], actor=actor)
    elif action == "delete_group":
        administration.delete_group(project, data["name"], actor=actor)
    elif action == "key":
        api_key, key = administration.issue_key(project, data["name"], data["scopes"], actor=actor, made_by=person)
        return {"api_key": api_key, "key": key}
    elif action == "invite":
        invitations.invite(project, data["email"], data["role"], actor=actor)
    elif action == "revoke_invitation":
        invitations.revoke(project, data["invitation"], actor=actor)
    else:
        administration.revoke_key(project, data["key"], actor=actor)
    return None
