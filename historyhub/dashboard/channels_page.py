"""The channels page of a project's settings, for its admins (docs/notifications.md, "On the dashboard"): every
channel with its settings (editable), its latest deliveries, and "Send a test event"."""

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render

from historyhub.dashboard.access import admins_only, project_page
from historyhub.dashboard.notification_forms import (
    ChannelChoiceForm,
    ChannelEditForm,
    ChannelForm,
    DeliveryChoiceForm,
)
from historyhub.lib.errors import DomainError, InvalidInput, NotFound
from historyhub.notifications import channels, outbox, trial_event

RECENT_DELIVERIES = 20
DONE = {
    "toggle": "The channel was switched.",
    "delete": "The channel was deleted.",
    "retry": "The delivery will be sent again.",
    "test": "A test event is on its way: its delivery, at the top of the channel's list, shows how it went.",
}


@project_page
def channel_settings(request):
    """The project's channels, each with its latest deliveries; a new webhook's secret, or a rotated one, is shown
    on this answer only. A refused form is shown again, with why, and changes nothing."""
    admins_only(request)
    project = request.project
    form, created, rotated, editing, status = ChannelForm(), None, None, None, 200
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            form = ChannelForm(request.POST)
            if form.is_valid():
                try:
                    kind, actor = form.cleaned_data["kind"], request.user.get_username()
                    created = channels.create(project.pk, kind, actor=actor, **form.channel_fields())
                except DomainError as error:
                    form.add_error(None, error.message)
            if form.errors:
                status = 422
            else:
                form = ChannelForm()
        elif action == "edit":
            try:
                editing = edited(request, project)
            except DomainError as error:
                return HttpResponseBadRequest(error.message)
            if not editing.errors:
                messages.success(request, f"The channel {editing.cleaned_data['name']} was saved.")
                return redirect("dashboard:channels", project_id=project.pk)
            status = 422
        elif action == "rotate":
            # Answered with the page rather than a redirect: the new secret is shown on this answer only.
            try:
                rotated = channels.rotate_secret(chosen_channel(request, project), actor=request.user.get_username())
            except DomainError as error:
                return HttpResponseBadRequest(error.message)
        elif action in DONE:
            answer = change(request, project, action)
            if answer is not None:
                return answer
            messages.success(request, DONE[action])
            return redirect("dashboard:channels", project_id=project.pk)
        else:
            return HttpResponseBadRequest("Unknown channels action.")
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    shown = [
        (
            channel,
            channel.deliveries.prefetch_related("attempts").order_by("-created_at", "-id")[:RECENT_DELIVERIES],
            editing if editing is not None and editing.channel.pk == channel.pk else ChannelEditForm(channel),
        )
        for channel in channels.of_project(project.pk)
    ]
    context = {"form": form, "created": created, "rotated": rotated, "channels": shown}
    return render(request, "dashboard/channels.html", context, status=status)


def edited(request, project):
    """The edit form of the channel the request names, saved through ``channels.update`` (which audits the
    change) if valid; with its errors, and nothing changed, if not."""
    channel = chosen_channel(request, project)
    form = ChannelEditForm(channel, request.POST)
    if form.is_valid():
        try:
            # A fresh copy: channels.update sets fields before it refuses one; the form keeps ``channel`` as saved.
            channels.update(
                channels.get(project.pk, channel.pk), actor=request.user.get_username(), **form.channel_fields()
            )
        except DomainError as error:
            form.add_error(None, error.message)
    return form


@project_page
def delivery_row(request, channel_id, delivery_id):
    """One delivery's row of the channels page, which the row asks for again while its first attempt is due."""
    admins_only(request)
    if request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET"})
    try:
        channel = channels.get(request.project.pk, channel_id)
        delivery = channels.delivery(channel, delivery_id)
    except NotFound as error:
        raise Http404(error.message) from None
    return render(request, "dashboard/fragments/delivery_row.html", {"channel": channel, "delivery": delivery})


def chosen_channel(request, project):
    """The project's channel a row's button names; ``InvalidInput`` or ``NotFound`` otherwise."""
    chosen = ChannelChoiceForm(request.POST)
    if not chosen.is_valid():
        raise InvalidInput("Which channel?")
    return channels.get(project.pk, chosen.cleaned_data["channel"])


def change(request, project, action):
    """Carry out a button of a channel's row; a bad request's answer, or None when done."""
    actor = request.user.get_username()
    try:
        channel = chosen_channel(request, project)
        if action == "toggle":
            channels.update(channel, actor=actor, enabled=not channel.enabled)
        elif action == "delete":
            channels.delete(channel, actor=actor)
        elif action == "test":
            trial_event.send(channel, actor=actor)
        else:
            which = DeliveryChoiceForm(request.POST)
            if not which.is_valid():
                return HttpResponseBadRequest("Which delivery?")
            outbox.send_again(channels.delivery(channel, which.cleaned_data["delivery"]), actor=actor)
    except DomainError as error:
        return HttpResponseBadRequest(error.message)
    return None
