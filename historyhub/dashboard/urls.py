from django.urls import path

from historyhub.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.session_list, name="sessions"),
    path("sessions/<str:session_id>/", views.session_detail, name="session"),
    path("sessions/<str:session_id>/updates/", views.session_updates, name="session_updates"),
    path("sessions/<str:session_id>/entries/<int:entry_id>/decision/", views.decide_entry, name="decide_entry"),
    path("approvals/", views.approvals, name="approvals"),
    path("approvals/decisions/", views.decide_selected, name="decide_selected"),
    path("approvals/count/", views.inbox_count, name="inbox_count"),
    path("live/", views.live_updates, name="live"),
]
