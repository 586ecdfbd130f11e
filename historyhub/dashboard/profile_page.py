"""Everyone's own page, ``/accounts/profile/`` (docs/people.md, "Everyone's own page"): their name, their email
(changed by a link sent to the new address), the time zone times show in (docs/dashboard.md, "Times"), how
notifications reach them, the Slack users linked to them, the
keys they made (each revocable, as on the settings page) and their own decisions, newest first."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from historyhub.apikeys.models import ApiKey
from historyhub.approvals.models import Vote
from historyhub.dashboard.pagination import page_context
from historyhub.lib import paging
from historyhub.lib.errors import DomainError
from historyhub.notifications.models import EmailPreference, NotificationSettings
from historyhub.projects import administration, email_change, time_zones
from historyhub.projects.models import Membership, PendingEmail, Project

DECISIONS_PAGE_SIZE = 25


class NameForm(forms.Form):
    first_name = forms.CharField(max_length=150, required=False, label="First name")
    last_name = forms.CharField(max_length=150, required=False, label="Last name")


class EmailForm(forms.Form):
    email = forms.CharField(max_length=254, label="New email address")


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(label="Time zone", required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [("", "Your browser's time zone"), *((z, z) for z in time_zones.choices())]


class RevokeKeyForm(forms.Form):
    key = forms.IntegerField(min_value=1)


class PageForm(forms.Form):
    page = forms.IntegerField(min_value=1, required=False)


@never_cache
@login_required
def profile(request):
    person = request.user
    name_form = NameForm(initial={"first_name": person.first_name, "last_name": person.last_name})
    email_form, status = EmailForm(), 200
    zone_form = TimeZoneForm(initial={"time_zone": time_zones.chosen(person)})
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "name":
            name_form = NameForm(request.POST)
            if name_form.is_valid():
                person.first_name = name_form.cleaned_data["first_name"].strip()
                person.last_name = name_form.cleaned_data["last_name"].strip()
                person.save(update_fields=["first_name", "last_name"])
                messages.success(request, "Your name was saved.")
                return redirect("profile")
        elif action == "email":
            email_form = EmailForm(request.POST)
            if email_form.is_valid() and asked_for_email(request, email_form):
                return redirect("profile")
        elif action == "time_zone":
            zone_form = TimeZoneForm(request.POST)
            if zone_form.is_valid():
                zone = zone_form.cleaned_data["time_zone"]
                time_zones.choose(person, zone)
                said = f"Times now show in {zone}." if zone else "Times now show in your browser's time zone."
                messages.success(request, said)
                return redirect("profile")
        elif action == "revoke_key":
            chosen = RevokeKeyForm(request.POST)
            # Only a key of one's own: another's id revokes nothing.
            mine = chosen.is_valid() and own_keys(person).filter(pk=chosen.cleaned_data["key"]).first()
            if not mine:
                return HttpResponseBadRequest("Which of your keys?")
            administration.revoke_key(mine.project, mine.pk, actor=person.get_username())
            messages.success(request, f"The key {mine.name} was revoked: it no longer works.")
            return redirect("profile")
        else:
            return HttpResponseBadRequest("Unknown profile action.")
        status = 422
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    page = PageForm(request.GET)
    paged = paging.page_of(decisions(person), (page.is_valid() and page.cleaned_data["page"]) or 1, DECISIONS_PAGE_SIZE)
    mine = NotificationSettings.objects.filter(user=person).first()
    context = {
        "name_form": name_form,
        "email_form": email_form,
        "zone_form": zone_form,
        "pending": PendingEmail.objects.filter(user=person).first(),
        "preference": EmailPreference(mine.email if mine else EmailPreference.EVERY_EVENT).label,
        "slack_links": person.slack_links.order_by("created_at", "pk"),
        "api_keys": own_keys(person).select_related("project").order_by("revoked_at", "-created_at"),
        "decisions": page_context(paged),
    }
    return render(request, "dashboard/profile.html", context, status=status)


def asked_for_email(request, form):
    """Mail the link to the new address; False with the form's error if the address or the mail was refused."""
    try:
        email = email_change.request_change(request.user, form.cleaned_data["email"])
    except DomainError as error:
        form.add_error("email", error.message)
        return False
    except OSError:
        form.add_error("email", "The mail server did not take the confirmation mail; nothing changed. Try again.")
        return False
    messages.success(request, f"A link went to {email}: your address changes when it is opened.")
    return True


def own_keys(person):
    """The keys this person made on a settings page, in the projects they still may see."""
    return ApiKey.objects.filter(created_by=person, project__in=visible_projects(person))


def visible_projects(person):
    if person.is_superuser:
        return Project.objects.all()
    return Membership.objects.filter(user=person).values("project_id")


def decisions(person):
    """This person's votes, newest first, in the projects they still may see (a link to one elsewhere would
    only meet a 404)."""
    return (
        Vote.objects.filter(user=person, action__session__project__in=visible_projects(person))
        .select_related("action__session")
        .order_by("-at", "-pk")
    )


@never_cache
def confirm_email(request, token):
    """The link mailed to a new address: opening it makes that address the person's."""
    if request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET"})
    try:
        user = email_change.confirm(token)
    except email_change.LinkRefused as refused:
        return render(request, "dashboard/email_confirmed.html", {"refused": str(refused)}, status=404)
    return render(request, "dashboard/email_confirmed.html", {"email": user.email})
