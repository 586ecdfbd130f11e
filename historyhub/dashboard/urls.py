from django.urls import path

from historyhub.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.sessions, name="sessions"),
]
