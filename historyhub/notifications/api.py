"""Channels and their deliveries over the API, for admin keys (docs/notifications.md, "Managing channels").

Every function acts on ``request.auth.project_id``: a channel of another project answers 404 as one that
exists nowhere.
"""

from typing import Annotated

from ninja import Path, Query, Status

from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.lib.endpoints import errors, page_of
from historyhub.lib.schemas import WITHOUT_NUL, Pagination
from historyhub.notifications import channels, outbox
from historyhub.notifications.schemas import (
    ChannelCreated,
    ChannelIn,
    ChannelList,
    ChannelOut,
    ChannelPatch,
    DeliveryOut,
    DeliveryPage,
)
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["notifications"])
ADMIN = ApiKeyAuth(Scope.ADMIN)

# Channel ids are made by the server: the example's shape, the walk-through's id from createChannel's answer.
ChannelId = Annotated[
    str,
    Path(alias="channelId", example="ch_01KBAQ0ZJ4Y0V6D4YF3W1M2N8S", min_length=1, max_length=40, pattern=WITHOUT_NUL),
]
DeliveryId = Annotated[int, Path(alias="deliveryId", example=1, ge=1, le=2**63 - 1)]
WIRE_FIELDS = {"slackChannel": "slack_channel"}


def given(body, leave_out=()):
    """The fields the body sent, named as the domain names them."""
    return {WIRE_FIELDS.get(name, name): getattr(body, name) for name in body.model_fields_set if name not in leave_out}


@router.get("/channels", auth=ADMIN, response={200: ChannelList, **errors(403)})
def list_channels(request):
    return {"items": list(channels.of_project(request.auth.project_id))}


@router.post("/channels", auth=ADMIN, response={201: ChannelCreated, **errors(403, 413)})
def create_channel(request, body: ChannelIn):
    """Create a channel; a webhook's `secret` is in this answer and no other."""
    fields = given(body, leave_out=("kind",))
    channel = channels.create(request.auth.project_id, body.kind, actor=resolved_by(request), **fields)
    return Status(201, channel)


@router.patch("/channels/{channelId}", auth=ADMIN, response={200: ChannelOut, **errors(403, 404, 413)})
def update_channel(request, channel_id: ChannelId, body: ChannelPatch):
    """Change the fields sent; the others stay as they are."""
    channel = channels.get(request.auth.project_id, channel_id)
    return channels.update(channel, actor=resolved_by(request), **given(body))


@router.post("/channels/{channelId}/rotate-secret", auth=ADMIN, response={200: ChannelCreated, **errors(403, 404)})
def rotate_channel_secret(request, channel_id: ChannelId):
    """A new `whsec_` secret for a webhook, in this answer only; the old one also signs for 24 hours."""
    return channels.rotate_secret(channels.get(request.auth.project_id, channel_id), actor=resolved_by(request))


@router.delete("/channels/{channelId}", auth=ADMIN, response={204: None, **errors(403, 404)})
def delete_channel(request, channel_id: ChannelId):
    channels.delete(channels.get(request.auth.project_id, channel_id), actor=resolved_by(request))
    return Status(204, None)


@router.get("/channels/{channelId}/deliveries", auth=ADMIN, response={200: DeliveryPage, **errors(403, 404)})
def list_deliveries(request, channel_id: ChannelId, query: Query[Pagination]):
    """The channel's deliveries, newest first, each with its attempts."""
    channel = channels.get(request.auth.project_id, channel_id)
    rows = channel.deliveries.prefetch_related("attempts").order_by("-created_at", "-id")
    return page_of(rows, query)


@router.post(
    "/channels/{channelId}/deliveries/{deliveryId}/retry",
    auth=ADMIN,
    response={202: DeliveryOut, **errors(403, 404)},
)
def retry_delivery(request, channel_id: ChannelId, delivery_id: DeliveryId):
    """Send the delivery again, with its same body and `webhook-id`."""
    channel = channels.get(request.auth.project_id, channel_id)
    return Status(202, outbox.send_again(channels.delivery(channel, delivery_id), actor=resolved_by(request)))
