"""Media on a session page load at once only from this server, data: URLs and the hosts an operator
allows; from any other host they wait for a click, and the Content-Security-Policy says the same
(historyhub/dashboard/media.py)."""

import pytest
from django.test import override_settings
from django.urls import reverse

from historyhub.history import item_log, sessions
from tests.support.actors import HTMX
from tests.support.html import parse


def image(uri):
    return {"type": "image", "mimeType": "image/png", "fileUri": uri}


@pytest.fixture
def gallery(db):
    sessions.ensure(agent="a", session_id="gallery")
    item_log.append(
        "gallery",
        [
            {"role": "user", "content": [image("https://photos.example.com/box.png")]},
            {
                "role": "user",
                "content": [
                    image("/static/demo/damaged-box.svg"),
                    image("data:image/png;base64,iVBORw0KGgo="),
                    image("http://testserver/static/x.png"),
                    {"type": "video", "mimeType": "video/mp4", "fileUri": "https://videos.example.com/clip.mp4"},
                    {"type": "audio", "mimeType": "audio/wav", "fileUri": "https://sounds.example.com/a.wav"},
                ],
            },
        ],
    )
    return reverse("dashboard:session", args=["default", "gallery"])


def sources(page):
    return [element["src"] for element in page.all("[src]") if element.tag != "script"]


def test_media_from_this_server_and_data_urls_load_and_others_wait_for_a_click(viewer_client, gallery):
    page = parse(viewer_client.get(gallery))
    assert sources(page) == [
        "/static/demo/damaged-box.svg",
        "data:image/png;base64,iVBORw0KGgo=",
        "http://testserver/static/x.png",
    ]
    waiting = page.all("figure.media.external")
    assert [figure.text("figcaption strong") for figure in waiting] == [
        "photos.example.com",
        "videos.example.com",
        "sounds.example.com",
    ]
    first = waiting[0]
    assert "https://photos.example.com/box.png" in first.text("figcaption")
    entry = page.all("article.entry")[0]["id"]
    assert first.link("Load image from photos.example.com")["href"] == f"{gallery}?media=photos.example.com#{entry}"
    assert page.link("Load video from videos.example.com") and page.link("Load audio from sounds.example.com")


def test_the_policy_lets_no_other_host_load_media(viewer_client, gallery):
    policy = viewer_client.get(gallery)["Content-Security-Policy"]
    assert "img-src 'self' data:;" in policy and "media-src 'self' data:;" in policy
    assert "https:" not in policy and "http:" not in policy


def test_a_click_opens_the_page_with_that_hosts_media_loaded_and_let_in_by_its_policy(viewer_client, gallery):
    response = viewer_client.get(gallery, {"media": "photos.example.com"})
    assert "img-src 'self' data: photos.example.com;" in response["Content-Security-Policy"]
    page = parse(response)
    assert "https://photos.example.com/box.png" in sources(page)
    # Another host's link keeps this one loaded.
    link = page.link("Load video from videos.example.com")["href"]
    assert link.startswith(f"{gallery}?media=photos.example.com&media=videos.example.com#entry-")


def test_a_fragment_of_that_page_shows_the_chosen_hosts_media_too(viewer_client, gallery):
    headers = {**HTMX, "HX-Current-URL": f"http://testserver{gallery}?media=videos.example.com"}
    page = parse(viewer_client.get(gallery, {"epoch": 0}, headers=headers))
    assert "https://videos.example.com/clip.mp4" in sources(page)
    assert "https://photos.example.com/box.png" not in sources(page)


@pytest.mark.parametrize("chosen", ["*.example.com", "example.com/x", "'self' https:", "a b"])
def test_a_chosen_host_that_is_not_a_host_name_is_ignored(viewer_client, gallery, chosen):
    response = viewer_client.get(gallery, {"media": chosen})
    assert "img-src 'self' data:;" in response["Content-Security-Policy"]
    assert "https://photos.example.com/box.png" not in sources(parse(response))


@override_settings(MEDIA_ALLOWED_HOSTS=["photos.example.com", "*.example.com"])
def test_hosts_an_operator_allows_load_at_once_and_every_policy_names_them(viewer_client, gallery):
    response = viewer_client.get(gallery)
    loaded = sources(parse(response))
    assert {"https://photos.example.com/box.png", "https://videos.example.com/clip.mp4"} <= set(loaded)
    assert "https://sounds.example.com/a.wav" in loaded
    assert "img-src 'self' data: photos.example.com *.example.com;" in response["Content-Security-Policy"]
    assert not parse(response).all("figure.media.external")
    approvals = viewer_client.get(reverse("dashboard:approvals", args=["default"]))
    assert "media-src 'self' data: photos.example.com *.example.com;" in approvals["Content-Security-Policy"]


@pytest.mark.parametrize(
    "uri",
    [
        "//evil.example/x.png",
        "/\\evil.example/x.png",
        "/\t/evil.example/x.png",
        "https:evil.example/x.png",
        " https://evil.example/x.png",
        "javascript:alert(1)",
        "ftp://evil.example/x.png",
        "x.png",
        "https://[::1]/x.png",
        "https://evil.example:99999/x.png",
    ],
)
def test_a_url_a_browser_could_read_as_another_host_loads_nothing(viewer_client, db, uri):
    sessions.ensure(agent="a", session_id="tricks")
    item_log.append("tricks", [{"role": "user", "content": [image(uri)]}])
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", "tricks"])))
    assert sources(page) == []
