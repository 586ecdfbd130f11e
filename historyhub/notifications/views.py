"""The channels page of a project's settings, for its admins, and a person's own notifications page
(docs/notifications.md, "On the dashboard")."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils import timezone

from historyhub.dashboard.views import admins_only, project_page
from historyhub.history.errors import DomainError, InvalidInput
from historyhub.notifications import channels, outbox, slack_links
from historyhub.notifications.forms import (
    ChannelChoiceForm,
    ChannelForm,
    DeliveryChoiceForm,
    PersonForm,
    SlackLinkChoiceForm,
)
from historyhub.notifications.models import EmailPreference, NotificationSettings

RECENT_DELIVERIES = 20
DONE = {
    "toggle": "The channel was switched.",
    "delete": "The channel was deleted.",
    "retry": "The delivery will be sent again.",
}


@project_page
def channel_settings(request):
    """The project's channels, each with its latest deliveries; a new webhook's secret, or a rotated one, is shown
    on this answer only."""
    admins_only(request)
    project = request.project
    form, created, rotated, status = ChannelForm(), None, None, 200
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
        (channel, channel.deliveries.prefetch_related("attempts").order_by("-created_at", "-id")[:RECENT_DELIVERIES])
        for channel in channels.of_project(project.pk)
    ]
    context = {"form": form, "created": created, "rotated": rotated, "channels": shown}
    return render(request, "notifications/channels.html", context, status=status)


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
        else:
            which = DeliveryChoiceForm(request.POST)
            if not which.is_valid():
                return HttpResponseBadRequest("Which delivery?")
            outbox.send_again(channels.delivery(channel, which.cleaned_data["delivery"]), actor=actor)
    except DomainError as error:
        return HttpResponseBadRequest(error.message)
    return None


@login_required
def my_notifications(request):
    """How notifications reach this person: their email preference, and the Slack users who act as them, each
    with a button that removes the link."""
    person = request.user
    mine = NotificationSettings.objects.filter(user=person).first()
    form, status = PersonForm(initial={"email": mine.email if mine else EmailPreference.EVERY_EVENT}), 200
    if request.method == "POST":
        if request.POST.get("action") == "unlink":
            chosen = SlackLinkChoiceForm(request.POST)
            # Only one's own link: another person's id removes nothing.
            if not chosen.is_valid() or not person.slack_links.filter(pk=chosen.cleaned_data["link"]).delete()[0]:
                return HttpResponseBadRequest("Which Slack link?")
            messages.success(request, "The Slack user was unlinked: their clicks decide nothing until linked again.")
            return redirect("my_notifications")
        form = PersonForm(request.POST)
        if form.is_valid():
            NotificationSettings.objects.update_or_create(user=person, defaults={"email": form.cleaned_data["email"]})
            messages.success(request, "Your notification settings were saved.")
            return redirect("my_notifications")
        status = 422
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    links = person.slack_links.order_by("created_at", "pk")
    return render(request, "notifications/mine.html", {"form": form, "slack_links": links}, status=status)


@login_required
def slack_link(request, token):
    """The page a Slack user's one-time link opens (docs/notifications.md, "Linking a Slack user"): it names the
    Slack user and workspace, and Confirm (a POST) links them to the person logged in. A link that is unknown,
    used or expired, or a Slack user already another person's, links nothing and says why."""
    now = timezone.now()
    if request.method == "POST":
        try:
            slack_links.confirm(token, request.user, now)
        except slack_links.LinkRefused as refused:
            return render(request, "notifications/slack_link.html", {"refused": refused.message}, status=refused.status)
        messages.success(request, "Your Slack user is linked: its clicks in Slack now decide as you do here.")
        return redirect("my_notifications")
    if request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    try:
        pending = slack_links.pending(token, now)
    except slack_links.LinkRefused as refused:
        return render(request, "notifications/slack_link.html", {"refused": refused.message}, status=refused.status)
    owner = slack_links.owner_of(pending)
    context = {"pending": pending, "owner": owner}
    if owner is not None and owner.user_id != request.user.pk:
        return render(request, "notifications/slack_link.html", {**context, "refused": slack_links.TAKEN}, status=409)
    return render(request, "notifications/slack_link.html", context)
