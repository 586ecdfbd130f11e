"""A project's approval policies page (docs/dashboard.md, "Approval policies"): every member reads the policies
in order and previews which one would govern an action; its admins add, edit, reorder and delete them. Every
change replaces the list through ``policies.edit``, so the page keeps the rules PUT /api/v1/policies keeps."""

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render

from historyhub.approvals import policies
from historyhub.dashboard.access import admins_only, project_page
from historyhub.dashboard.policy_forms import PolicyChoiceForm, PolicyForm, PreviewForm
from historyhub.lib.errors import DomainError, NotFound
from historyhub.projects import access, administration
from historyhub.projects.models import Role

DONE = {
    "save": "The policy was saved.",
    "move_up": "The policy was moved up.",
    "move_down": "The policy was moved down.",
    "delete": "The policy was deleted.",
}


@project_page
def policy_page(request):
    """The policies and the preview for the project's members (the preview a GET form: ``agent``, ``action``,
    ``arguments``); a POST from an admin changes the list, and one that is refused changes nothing and says why."""
    project = request.project
    groups = list(administration.groups(project).values_list("name", flat=True))
    form, status = None, 200
    if request.method == "POST":
        admins_only(request)
        action = request.POST.get("action")
        if action == "save":
            form = PolicyForm(request.POST, groups=groups)
            change = saving(form.policy(), form.cleaned_data["original"]) if form.is_valid() else None
        elif action in POLICY_ROW_CHANGES:
            chosen = PolicyChoiceForm(request.POST)
            if not chosen.is_valid():
                return HttpResponseBadRequest("Which policy?")
            change = POLICY_ROW_CHANGES[action](chosen.cleaned_data["policy"])
        else:
            return HttpResponseBadRequest("Unknown policies action.")
        if change is not None:
            try:
                policies.edit(project.pk, change, actor=request.user.get_username())
            except DomainError as error:
                if form is None:
                    messages.error(request, f"{error.message} Nothing was changed.")
                else:
                    form.add_error(None, error.message)
            else:
                messages.success(request, DONE[action])
                return redirect("dashboard:policies", project_id=project.pk)
        status = 422
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})

    items = policies.listing(project.pk)
    if form is None and access.grants(request.role, Role.ADMIN):
        form = PolicyForm(initial=policy_to_edit(items, request.GET.get("edit")), groups=groups)
    preview = PreviewForm(request.GET if "action" in request.GET else None)
    context = {"items": items, "form": form, "preview": preview, "previewed": previewed(project.pk, preview, items)}
    return render(request, "dashboard/policies.html", context, status=status)


def policy_to_edit(items, name):
    """The form's initial values: the policy ``?edit=`` names, or none for a new one."""
    if not name:
        return {}
    for item in items:
        if item["name"] == name:
            return {**item, "original": name}
    raise Http404("No such policy.")


def previewed(project, preview, items):
    """Which policy would govern the action the preview describes, found as an opening action finds it, and its
    place in the list; None until a valid preview is asked for."""
    if not preview.is_bound or not preview.is_valid():
        return None
    data = preview.cleaned_data
    policy = policies.governing(project, data["agent"], data["action"], data["arguments"])
    names = [item["name"] for item in items]
    return {"policy": policy, "position": names.index(policy["name"]) + 1 if policy else None}


# What each change does to the list, in order; each raises NotFound when the policy it names is gone.


def saving(policy, original):
    """``policy`` in place of the one named ``original``, or, when that is empty, added at the end."""

    def change(items):
        if not original:
            return [*items, policy]
        index = index_of(items, original)
        return [*items[:index], policy, *items[index + 1 :]]

    return change


def moving(name, offset):
    def change(items):
        index = index_of(items, name)
        other = min(max(index + offset, 0), len(items) - 1)
        items[index], items[other] = items[other], items[index]
        return items

    return change


def deleting(name):
    def change(items):
        index = index_of(items, name)
        return [*items[:index], *items[index + 1 :]]

    return change


# The buttons beside each policy on the page, by the action they send: each makes a change of the list.
POLICY_ROW_CHANGES = {
    "move_up": lambda name: moving(name, -1),
    "move_down": lambda name: moving(name, 1),
    "delete": deleting,
}


def index_of(items, name):
    for index, item in enumerate(items):
        if item["name"] == name:
            return index
    raise NotFound(f"There is no policy named {name!r} any more: the list changed meanwhile.")
