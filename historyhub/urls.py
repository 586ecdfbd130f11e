from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from historyhub.api import api
from historyhub.notifications import slack_interactions
from historyhub.notifications import views as notification_views

# /healthz and /healthz/details are answered before Django, by historyhub.serving.health.
# Of Django's account views only logging in and out, and changing one's own password once logged in: there is no
# self-service password reset (it would mail reset links from an unthrottled form); an operator resets a
# password in the admin or with `manage.py changepassword` (docs/operations.md, "People and passwords").
accounts = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("notifications/", notification_views.my_notifications, name="my_notifications"),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/", include(accounts)),
    path("integrations/slack/interactions", slack_interactions.interactions, name="slack_interactions"),
    path("integrations/slack/link/<str:token>/", notification_views.slack_link, name="slack_link"),
    path("", include("historyhub.dashboard.urls")),
]
