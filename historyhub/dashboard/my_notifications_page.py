"""A person's own notifications page (their email address and preference, their Slack links), under their
current project's header, and the page a Slack user's one-time link opens to link them to the person
(docs/notifications.md, "On the dashboard", "Linking a Slack user")."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils import timezone

from historyhub.dashboard.access import under_current_project
from historyhub.dashboard.notification_forms import PersonForm, SlackLinkChoiceForm
from historyhub.dashboard.profile_page import EmailForm, asked_for_email
from historyhub.notifications import slack_links
from historyhub.notifications.models import EmailPreference, NotificationSettings
from historyhub.projects.models import PendingEmail


@under_current_project
def my_notifications(request):
    """How notifications reach this person: their email address (changed as on their profile, by a link mailed
    to the new one), their email preference, and the Slack users who act as them, each with a button that
    removes the link."""
    person = request.user
    mine = NotificationSettings.objects.filter(user=person).first()
    form, status = PersonForm(initial={"email": mine.email if mine else EmailPreference.EVERY_EVENT}), 200
    email_form = EmailForm()
    if request.method == "POST":
        if request.POST.get("action") == "email":
            email_form = EmailForm(request.POST)
            if email_form.is_valid() and asked_for_email(request, email_form):
                return redirect("my_notifications")
            status = 422
        elif request.POST.get("action") == "unlink":
            chosen = SlackLinkChoiceForm(request.POST)
            # Only one's own link: another person's id removes nothing.
            if not chosen.is_valid() or not person.slack_links.filter(pk=chosen.cleaned_data["link"]).delete()[0]:
                return HttpResponseBadRequest("Which Slack link?")
            messages.success(request, "The Slack user was unlinked: their clicks decide nothing until linked again.")
            return redirect("my_notifications")
        else:
            form = PersonForm(request.POST)
            if form.is_valid():
                NotificationSettings.objects.update_or_create(
                    user=person, defaults={"email": form.cleaned_data["email"]}
                )
                messages.success(request, "Your notification settings were saved.")
                return redirect("my_notifications")
            status = 422
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    context = {
        "form": form,
        "email_form": email_form,
        "pending": PendingEmail.objects.filter(user=person).first(),
        "slack_links": person.slack_links.order_by("created_at", "pk"),
    }
    return render(request, "dashboard/mine.html", context, status=status)


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
            return render(request, "dashboard/slack_link.html", {"refused": refused.message}, status=refused.status)
        messages.success(request, "Your Slack user is linked: its clicks in Slack now decide as you do here.")
        return redirect("my_notifications")
    if request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    try:
        pending = slack_links.pending(token, now)
    except slack_links.LinkRefused as refused:
        return render(request, "dashboard/slack_link.html", {"refused": refused.message}, status=refused.status)
    owner = slack_links.owner_of(pending)
    context = {"pending": pending, "owner": owner}
    if owner is not None and owner.user_id != request.user.pk:
        return render(request, "dashboard/slack_link.html", {**context, "refused": slack_links.TAKEN}, status=409)
    return render(request, "dashboard/slack_link.html", context)
