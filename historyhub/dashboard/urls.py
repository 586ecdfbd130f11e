from django.urls import include, path

from historyhub.approvals import views as policy_views
from historyhub.dashboard import data_views, views
from historyhub.notifications import views as notification_views

app_name = "dashboard"

# The pages of one project, under /p/<project id>/ (docs/projects.md, "The dashboard").
project_pages = [
    path("", views.session_list, name="sessions"),
    path("sessions/<str:session_id>/", views.session_detail, name="session"),
    path("sessions/<str:session_id>/updates/", views.session_updates, name="session_updates"),
    path("sessions/<str:session_id>/entries/<int:entry_id>/decision/", views.decide_entry, name="decide_entry"),
    path("sessions/<str:session_id>/entries/<int:entry_id>/arguments/", views.entry_arguments, name="entry_arguments"),
    # A call id may hold any character, "/" included: the path converter, then a fixed last segment.
    path(
        "sessions/<str:session_id>/client-actions/<path:call_id>/arguments/",
        views.action_arguments,
        name="action_arguments",
    ),
    path(
        "sessions/<str:session_id>/client-actions/<path:call_id>/description/",
        views.action_description,
        name="action_description",
    ),
    path("approvals/", views.approvals, name="approvals"),
    path("approvals/decisions/", views.decide_selected, name="decide_selected"),
    path("approvals/decisions/<str:session_id>/<path:call_id>/", views.decide_action, name="decide_action"),
    path("approvals/count/", views.inbox_count, name="inbox_count"),
    path("policies/", policy_views.policy_page, name="policies"),
    path("settings/", views.project_settings, name="settings"),
    path("settings/erasure/", data_views.erasure_page, name="erasure"),
    path("settings/audit/", data_views.audit_log, name="audit"),
    path("settings/channels/", notification_views.channel_settings, name="channels"),
    path("live/", views.live_updates, name="live"),
]

urlpatterns = [
    # The person's current project: the one last opened, else the first they belong to.
    path("", views.home, name="home"),
    path("sessions/<str:session_id>/", views.current_session, name="current_session"),
    path("approvals/", views.current_approvals, name="current_approvals"),
    path("p/<str:project_id>/", include(project_pages)),
]
