from django.urls import include, path

from historyhub.dashboard import (
    audit_page,
    batch_page,
    channels_page,
    data_page,
    erasure_page,
    inbox_page,
    insights_page,
    landing,
    live_updates,
    policies_page,
    receipts,
    session_page,
    sessions_page,
    settings_page,
)

app_name = "dashboard"

# The pages of one project, under /p/<project id>/ (docs/projects.md, "The dashboard").
project_pages = [
    path("", sessions_page.session_list, name="sessions"),
    path("sessions/<str:session_id>/", session_page.session_detail, name="session"),
    path("sessions/<str:session_id>/updates/", session_page.session_updates, name="session_updates"),
    path("sessions/<str:session_id>/entries/<int:entry_id>/decision/", session_page.decide_entry, name="decide_entry"),
    path(
        "sessions/<str:session_id>/entries/<int:entry_id>/arguments/",
        session_page.entry_arguments,
        name="entry_arguments",
    ),
    # A call id may hold any character, "/" included: the path converter, then a fixed last segment.
    path(
        "sessions/<str:session_id>/client-actions/<path:call_id>/arguments/",
        session_page.action_arguments,
        name="action_arguments",
    ),
    path(
        "sessions/<str:session_id>/client-actions/<path:call_id>/description/",
        session_page.action_description,
        name="action_description",
    ),
    path(
        "sessions/<str:session_id>/client-actions/<path:call_id>/receipt/",
        receipts.download_receipt,
        name="action_receipt",
    ),
    path("approvals/", inbox_page.approvals, name="approvals"),
    path("approvals/decisions/", batch_page.decide_selected, name="decide_selected"),
    path("approvals/decisions/<str:session_id>/<path:call_id>/", inbox_page.decide_action, name="decide_action"),
    path("approvals/count/", inbox_page.inbox_count, name="inbox_count"),
    path("insights/", insights_page.insights_page, name="insights"),
    path("insights/alerts/", insights_page.alert_rules, name="insight_alerts"),
    path("policies/", policies_page.policy_page, name="policies"),
    path("settings/", settings_page.project_settings, name="settings"),
    path("settings/erasure/", erasure_page.erasure_page, name="erasure"),
    path("settings/audit/", audit_page.audit_page, name="audit"),
    path("settings/data/", data_page.data_page, name="data"),
    path("settings/channels/", channels_page.channel_settings, name="channels"),
    path(
        "settings/channels/<str:channel_id>/deliveries/<int:delivery_id>/",
        channels_page.delivery_row,
        name="channel_delivery",
    ),
    path("live/", live_updates.live_updates, name="live"),
]

urlpatterns = [
    # The person's current project: the one last opened, else the first they belong to.
    path("", landing.home, name="home"),
    path("sessions/<str:session_id>/", landing.current_session, name="current_session"),
    path("approvals/", landing.current_approvals, name="current_approvals"),
    path("p/<str:project_id>/", include(project_pages)),
]
