"""The channel endpoints: admin keys only, bad input a 400 that changes nothing, another project's channels
answer as ones that exist nowhere, and webhooks to private addresses refused unless allowed."""

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.notifications.models import Channel
from historyhub.projects import administration
from tests.support.actors import ApiClient
from tests.support.readers import assert_error

pytestmark = pytest.mark.django_db


def webhook_body(**fields):
    return {
        "kind": "webhook",
        "name": "ops",
        "events": ["client_action.opened"],
        "url": "http://127.0.0.1:9/",
        **fields,
    }


def test_only_admin_keys_manage_channels(api, decide_api, read_api):
    for client in (api, decide_api, read_api):
        assert_error(client.get("channels"), 403, "forbidden")
        assert_error(client.post("channels", webhook_body()), 403, "forbidden")
    assert Channel.objects.count() == 0


def test_a_channel_answers_with_the_fields_of_the_contract(admin_api):
    created = admin_api.post("channels", webhook_body(agents=["support*"], actions=["send_*"])).json()
    assert set(created) == {
        "channelId",
        "kind",
        "name",
        "events",
        "agents",
        "actions",
        "enabled",
        "url",
        "slackChannel",
        "createdAt",
        "secret",
    }
    assert created["agents"] == ["support*"] and created["actions"] == ["send_*"]
    assert created["enabled"] is True and created["slackChannel"] is None
    slack = admin_api.post(
        "channels",
        {
            "kind": "slack",
            "name": "approvals",
            "events": ["client_action.opened", "client_action.decided"],
            "slackChannel": "C123",
        },
    )
    assert slack.status_code == 201
    assert slack.json()["secret"] is None and slack.json()["slackChannel"] == "C123"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (webhook_body(events=[]), "events"),
        (webhook_body(events=["client_action.nope"]), "events"),
        (webhook_body(kind="pigeon"), "kind"),
        (webhook_body(url="ftp://example.com/"), "url"),
        (webhook_body(url=None), "url"),
        (webhook_body(name=""), "name"),
        (webhook_body(agents="support"), "agents"),
        ({"kind": "email", "name": "mail", "events": ["client_action.opened"], "url": "http://127.0.0.1/"}, "url"),
        ({"kind": "slack", "name": "s", "events": ["client_action.opened"]}, "slackChannel"),
        ({"kind": "slack", "name": "s", "events": ["client_action.opened"], "slackChannel": "C" * 201}, "slackChannel"),
        (webhook_body(color="red"), "color"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_changes_nothing(admin_api, body, field):
    assert field in assert_error(admin_api.post("channels", body), 400, "invalid_input")
    assert Channel.objects.count() == 0


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/", "http://10.0.0.8/", "http://192.168.1.1/", "http://169.254.169.254/", "http://[::1]/"],
)
def test_webhooks_to_private_addresses_are_refused(admin_api, settings, url):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    message = "url must not point at a loopback, private or link-local address."
    assert_error(admin_api.post("channels", webhook_body(url=url)), 400, "invalid_input", message)
    assert Channel.objects.count() == 0


def test_a_name_resolving_to_a_private_address_is_refused(admin_api, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    assert_error(admin_api.post("channels", webhook_body(url="http://localhost:8000/hook")), 400, "invalid_input")


def test_a_private_address_is_refused_when_connecting_too(admin_api, api, session_id, settings, receiver):
    """Saved while allowed, sent when no longer: the address connected to is the one checked."""
    channel = admin_api.post("channels", webhook_body(url=receiver.url)).json()
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send_email", "arguments": {}})
    from tests.notifications.conftest import deliver_due

    deliver_due()
    assert receiver.requests == []
    [delivery] = admin_api.get(f"channels/{channel['channelId']}/deliveries").json()["items"]
    assert delivery["attempts"][0]["status"] is None


def test_patch_changes_only_what_it_sends(admin_api):
    created = admin_api.post("channels", webhook_body()).json()
    changed = admin_api.patch(
        f"channels/{created['channelId']}", {"enabled": False, "events": ["client_action.decided"]}
    )
    assert changed.status_code == 200
    assert changed.json()["enabled"] is False
    assert changed.json()["events"] == ["client_action.decided"]
    assert changed.json()["url"] == created["url"] and changed.json()["name"] == "ops"
    refused = admin_api.patch(f"channels/{created['channelId']}", {"slackChannel": "C1"})
    assert_error(refused, 400, "invalid_input")
    assert Channel.objects.get().slack_channel == ""


def test_delete_removes_the_channel(admin_api):
    created = admin_api.post("channels", webhook_body()).json()
    assert admin_api.delete(f"channels/{created['channelId']}").status_code == 204
    assert_error(admin_api.delete(f"channels/{created['channelId']}"), 404, "not_found")


def test_another_projects_channels_do_not_exist_for_a_key(admin_api):
    created = admin_api.post("channels", webhook_body()).json()
    administration.create_project("staging", "Staging")
    theirs = ApiClient(ApiKey.issue("staging admin", "admin", project="staging")[1])
    assert theirs.get("channels").json() == {"items": []}
    channel_id = created["channelId"]
    for method, path in [
        ("PATCH", f"channels/{channel_id}"),
        ("DELETE", f"channels/{channel_id}"),
        ("GET", f"channels/{channel_id}/deliveries"),
        ("POST", f"channels/{channel_id}/deliveries/1/retry"),
    ]:
        mine = theirs.request(method, path, {} if method == "PATCH" else None)
        nowhere = theirs.request(method, path.replace(channel_id, "ch_nowhere"), {} if method == "PATCH" else None)
        assert (mine.status_code, mine.content.replace(channel_id.encode(), b"ch_nowhere")) == (
            nowhere.status_code,
            nowhere.content,
        )
        assert mine.status_code == 404
    assert Channel.objects.get().name == "ops"


def test_deliveries_are_paginated_newest_first(admin_api, api, session_id):
    created = admin_api.post("channels", webhook_body()).json()
    for index in range(3):
        api.post(f"sessions/{session_id}/client-actions", {"callId": f"c{index}", "name": "x", "arguments": {}})
    page = admin_api.get(f"channels/{created['channelId']}/deliveries", pageSize=2).json()
    assert page["total"] == 3 and page["hasMore"] is True
    first, second = page["items"]
    assert first["deliveryId"] > second["deliveryId"]
    assert first["status"] == "pending" and first["attempts"] == []
    assert_error(admin_api.get(f"channels/{created['channelId']}/deliveries", pageSize=0), 400, "invalid_input")


@pytest.mark.parametrize("field", ["slackToken", "slackSigningSecret"])
def test_a_project_admin_can_no_longer_give_a_slack_channel_credentials(admin_api, field):
    """The Slack app is the installation's: a project admin who could set a signing secret could sign clicks."""
    body = {"kind": "slack", "name": "s", "events": ["client_action.opened"], "slackChannel": "C1", field: "mine"}
    assert field in assert_error(admin_api.post("channels", body), 400, "invalid_input")
    assert Channel.objects.count() == 0
    without = {name: value for name, value in body.items() if name != field}
    channel_id = admin_api.post("channels", without).json()["channelId"]
    assert field in assert_error(admin_api.patch(f"channels/{channel_id}", {field: "mine"}), 400, "invalid_input")
    assert list(Channel.objects.values_list("slack_channel", flat=True)) == ["C1"]
