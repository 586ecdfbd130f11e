from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from historyhub.api import api
from historyhub.approvals import well_known
from historyhub.dashboard import favicon, invitation_page, my_notifications_page, profile_page
from historyhub.notifications import slack_interactions
from historyhub.sso import views as sso_views

# /healthz and /healthz/details are answered before Django, by historyhub.serving.health.
# Of Django's account views only logging in and out, and changing one's own password once logged in: there is no
# self-service password reset (it would mail reset links from an unthrottled form); an operator resets a
# password in the admin or with `manage.py changepassword` (docs/operations.md, "People and passwords").
accounts = [
    path("login/", sso_views.login, name="login"),
    path("logout/", sso_views.logout, name="logout"),
    path("sso/start/", sso_views.Authenticate.as_view(), name="oidc_authentication_init"),
    path("sso/callback/", sso_views.Callback.as_view(), name="oidc_authentication_callback"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("notifications/", my_notifications_page.my_notifications, name="my_notifications"),
    path("profile/", profile_page.profile, name="profile"),
    path("profile/email/<str:token>/", profile_page.confirm_email, name="confirm_email"),
    path("invitations/<str:token>/", invitation_page.accept_invitation, name="accept_invitation"),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/", include(accounts)),
    path("favicon.ico", favicon.favicon, name="favicon"),
    path(".well-known/jwks.json", well_known.jwks, name="jwks"),
    path("integrations/slack/interactions", slack_interactions.interactions, name="slack_interactions"),
    path("integrations/slack/link/<str:token>/", my_notifications_page.slack_link, name="slack_link"),
    path("", include("historyhub.dashboard.urls")),
]

# A PermissionDenied from an htmx request is said in the page's message area, not swallowed (dashboard/refusals.py).
handler403 = "historyhub.dashboard.refusals.forbidden"
