from django.contrib import admin
from django.urls import include, path

from historyhub.api import api

# /healthz and /healthz/details are answered before Django, by historyhub.serving.health.
urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("historyhub.dashboard.urls")),
]
