"""Private destinations (docs/notifications.md, "SSRF"): a webhook goes only to globally routable addresses, an
IPv6 address that embeds an IPv4 one judged by the address it embeds; refused at registration with 400 and again
on every address a name resolves to when connecting, unless the installation allows private networks."""

from urllib.parse import urlsplit, urlunsplit

import pytest

from historyhub.notifications import destinations
from historyhub.notifications.models import Attempt, Channel
from tests.notifications.conftest import deliver_due
from tests.support.readers import assert_error

pytestmark = pytest.mark.django_db

REFUSED_MESSAGE = "url must not point at a loopback, private or link-local address."

ALLOWED = [
    "8.8.8.8",
    "1.1.1.1",
    "192.0.1.1",  # beside 192.0.0.0/24, which is refused whole
    "100.128.0.1",  # just past the shared block 100.64.0.0/10
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",  # IPv4-mapped, of a public address
    "64:ff9b::808:808",  # NAT64 of 8.8.8.8
    "2002:808:808::1",  # 6to4 of 8.8.8.8
    "2001:0:808:808:0:0:fefe:fefe",  # Teredo: server 8.8.8.8, client 1.1.1.1
]

REFUSED = [
    # IPv4: this network, private, shared, loopback, link-local (cloud metadata), the IETF block, documentation,
    # benchmarking, multicast, reserved, broadcast.
    "0.0.0.0",
    "10.0.0.8",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "127.0.0.1",
    "127.1.2.3",
    "169.254.169.254",
    "192.0.0.8",
    "192.0.0.9",
    "192.0.0.170",
    "192.0.2.1",
    "198.18.0.1",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    # IPv6: unspecified, loopback, unique-local, link-local, site-local, multicast, documentation, discard.
    "::",
    "::1",
    "fd00::1",
    "fe80::1",
    "fec0::1",
    "ff02::1",
    "2001:db8::1",
    "100::1",
    # IPv6 forms that embed a private or metadata IPv4 address.
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:169.254.169.254",
    "::7f00:1",  # IPv4-compatible 127.0.0.1
    "::a9fe:a9fe",  # IPv4-compatible 169.254.169.254
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b::7f00:1",
    "64:ff9b:1::a9fe:a9fe",  # local-use NAT64, refused whole
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo with the documentation client 192.0.2.45
    "2001:0:7f00:1:0:0:fefe:fefe",  # Teredo whose server is 127.0.0.1
]


@pytest.mark.parametrize("address", ALLOWED)
def test_globally_routable_addresses_are_public(address):
    assert destinations.is_public(address)


@pytest.mark.parametrize("address", REFUSED)
def test_addresses_that_are_not_globally_routable_are_not(address):
    assert not destinations.is_public(address)


def test_an_ipv6_zone_is_not_a_way_around():
    assert not destinations.is_public("fe80::1%eth0")


def url_of(address):
    return f"http://[{address}]/hook" if ":" in address else f"http://{address}/hook"


def webhook_body(url):
    return {"kind": "webhook", "name": "ops", "events": ["client_action.opened"], "url": url}


@pytest.mark.parametrize("address", REFUSED)
def test_registration_refuses_every_address_that_is_not_public(admin_api, settings, address):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    answer = admin_api.post("channels", webhook_body(url_of(address)))
    assert_error(answer, 400, "invalid_input", REFUSED_MESSAGE)
    assert Channel.objects.count() == 0


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "64:ff9b::808:808"])
def test_registration_accepts_public_addresses(admin_api, settings, address):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    answer = admin_api.post("channels", webhook_body(url_of(address)))
    assert answer.status_code == 201, answer.content
    assert answer.json()["url"] == url_of(address)


@pytest.mark.parametrize("address", ["127.0.0.1", "::7f00:1", "64:ff9b::a9fe:a9fe", "fec0::1"])
def test_private_networks_allowed_accepts_them(admin_api, address):
    # The notification tests' conftest runs with WEBHOOKS_ALLOW_PRIVATE_NETWORKS=True.
    assert admin_api.post("channels", webhook_body(url_of(address))).status_code == 201


def test_a_name_resolving_to_loopback_is_refused_when_connecting(admin_api, api, session_id, settings, receiver):
    """Registered while private networks were allowed, sent when they no longer are: ``localhost`` resolves to
    loopback at connect time, and no byte reaches the receiver listening there."""
    parts = urlsplit(receiver.url)
    url = urlunsplit(parts._replace(netloc=f"localhost:{parts.port}"))
    channel = admin_api.post("channels", webhook_body(url)).json()
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    opened = api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send_email", "arguments": {}})
    assert opened.status_code == 201
    deliver_due()
    assert receiver.requests == []
    [delivery] = admin_api.get(f"channels/{channel['channelId']}/deliveries").json()["items"]
    # Every attempt (the tests' retry delays are 0) was refused before connecting: no HTTP status, the reason.
    assert delivery["status"] == "failed"
    assert {attempt["status"] for attempt in delivery["attempts"]} == {None}
    assert all("localhost resolves to" in attempt.excerpt for attempt in Attempt.objects.all())
    assert all("not a public address" in attempt.excerpt for attempt in Attempt.objects.all())
    # Allowed again, the same delivery reaches it: the refusal was the address rule's, not the receiver's.
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    retried = admin_api.post(f"channels/{channel['channelId']}/deliveries/{delivery['deliveryId']}/retry")
    assert retried.status_code == 202
    deliver_due()
    assert len(receiver.requests) == 1


def test_the_connect_check_refuses_a_name_with_any_private_answer(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    with pytest.raises(destinations.RefusedDestination):
        destinations.connect(("localhost", 9), timeout=1)


@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8/a\nb",
        "http://8.8.8.8/a\x01b",
        "http://8.8.8.8/a b",
        "http://8.8.8.8/\u2028",
        "http://8.8\t.8.8/",
    ],
)
def test_a_url_with_white_space_or_control_characters_is_refused(admin_api, url):
    message = "url must not contain white space or control characters."
    assert_error(admin_api.post("channels", webhook_body(url)), 400, "invalid_input", message)
    assert Channel.objects.count() == 0
