"""The NinjaAPI: /api/v1, its auth, its errors and its OpenAPI schema."""

from ninja import NinjaAPI

api = NinjaAPI(title="HistoryHub", version="1", urls_namespace="api")
