"""Search by q through the indexes finds what comparing every row finds, on either database."""

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef, Q

from historyhub.history import item_log, matching, sessions
from historyhub.history.matching import FEW
from historyhub.history.models import Session, TimelineEntry
from historyhub.lib.session_keys import session_key
from historyhub.projects import administration
from tests.support.items import assistant, user


def ids(queryset):
    return [session.id for session in queryset]


def scanned(q, **filters):
    """What a search for q finds when every row is compared in turn, the way search worked before its indexes."""
    messages = TimelineEntry.objects.filter(session=OuterRef("pk"), type="message", text__icontains=q)
    found = Session.objects.filter(**filters).filter(
        Q(id__icontains=q)
        | Q(name__icontains=q)
        | Q(agent__icontains=q)
        | Q(metadata_text__icontains=q)
        | Exists(messages)
    )
    return ids(found.order_by("-updated_at", "id"))


@pytest.fixture
def assorted(db):
    sessions.ensure(agent="salesAgent", session_id="odd-1", name="100% off_sale", metadata={"code": "a_b%c"})
    item_log.append("odd-1", [user('Say "hello" and it\'s done; back\\slash [abc] ^$ NEAR(x) AND y*')])
    sessions.ensure(agent="salesAgent", session_id="odd-2", name="100x offXsale", metadata={"code": "aXbYc"})
    item_log.append("odd-2", [user("Say hello and its done; backslash abc")])
    sessions.ensure(
        agent="chefAgent", session_id="unicode-1", name="Crème brûlée für Jürgen", metadata={"city": "Zürich"}
    )
    item_log.append("unicode-1", [user("Naïve café, 日本語のテキスト, 🚀 launch, Ωmega")])
    sessions.ensure(agent="chefAgent", session_id="case-1", name="MiXeD CaSe", metadata={"owner": "O'Brien"})
    item_log.append("case-1", [user("UPPER lower MiXeD"), assistant("Ⅻ Straße")])
    sessions.ensure(agent="supportAgent", session_id="plain-1", name="Where is my parcel?", metadata={"tier": 3})
    item_log.append("plain-1", [user("My parcel never arrived."), {"type": "reasoning", "summary": []}])
    item_log.append("plain-1", [{"type": "skill", "id": "s1", "summary": "zebra crossing"}])


QUERIES = [
    "100% off_sale",
    "% off",
    "%",
    "_",
    "a_b%c",
    "\\",
    "back\\slash",
    '"hello"',
    "it's",
    "o'brien",
    "[abc]",
    "^$",
    "NEAR(x)",
    "AND y*",
    "crème",
    "CRÈME",
    "für jürgen",
    "日本語",
    "🚀 launch",
    "ωMEGA",
    "straße",
    "mixed case",
    "upper LOWER",
    "parcel",
    "PARCEL NEVER",
    "zebra",
    "chefagent",
    "odd-",
    "3",
    "e",
    "ab",
    "nothing like it",
    "   ",
]


@pytest.mark.parametrize("q", QUERIES)
def test_a_search_finds_what_comparing_every_row_finds(assorted, q):
    assert ids(sessions.search("default", q=q)) == scanned(q)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's estimate decides")
@pytest.mark.parametrize("expected_few", [0, 1_000_000], ids=["walking the sessions", "looking messages up"])
def test_postgresql_finds_the_same_whichever_way_it_reads_message_text(
    assorted, interleaved, monkeypatch, expected_few
):
    monkeypatch.setattr(matching, "EXPECTED_FEW", expected_few)
    for q in [*QUERIES, "walrus", "surfaced"]:
        assert ids(sessions.search("default", q=q)) == scanned(q), q
        assert ids(sessions.search("default", q=q, first=2)[:2]) == scanned(q)[:2], q
        assert sessions.count("default", q=q, up_to=3) == min(3, len(scanned(q))), q
        assert sessions.count("default", q=q) == len(scanned(q)), q


@pytest.mark.parametrize("expected_few", [0, 1_000_000], ids=["walking the sessions", "looking messages up"])
def test_a_search_finds_the_sessions_of_its_own_project_only_whichever_way(interleaved, monkeypatch, expected_few):
    monkeypatch.setattr(matching, "EXPECTED_FEW", expected_few)
    administration.create_project("acme", "Acme")
    sessions.ensure(agent="mixAgent", project="acme", session_id="mix-01", name="Walrus of Acme")
    item_log.append(session_key("acme", "mix-01"), [user("A walrus surfaced at Acme.")])

    found = ids(sessions.search("default", q="walrus"))
    assert session_key("acme", "mix-01") not in found
    assert found == [key for key in scanned("walrus") if "/" not in key]
    assert sessions.count("default", q="surfaced") == 4
    assert ids(sessions.search("acme", q="surfaced")) == [session_key("acme", "mix-01")]
    assert sessions.count("acme", q="walrus", up_to=5) == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's estimate decides")
def test_postgresql_looks_messages_up_only_where_its_index_can_and_few_hold_q(assorted, monkeypatch):
    assert matching.messages_holding("parcel").narrowed
    # Fewer than three letters or digits in a row: pg_trgm has no trigram to look up.
    assert not matching.messages_holding("ab").narrowed
    assert not matching.messages_holding("a-b-c").narrowed
    monkeypatch.setattr(matching, "EXPECTED_FEW", 0)
    assert not matching.messages_holding("parcel").narrowed


@pytest.mark.parametrize(
    "q, found",
    [
        ("100% off_sale", ["odd-1"]),
        ("a_b%c", ["odd-1"]),
        ('"hello"', ["odd-1"]),
        ("back\\slash", ["odd-1"]),
        ("[abc]", ["odd-1"]),
        ("für jürgen", ["unicode-1"]),
        ("日本語", ["unicode-1"]),
        ("🚀 launch", ["unicode-1"]),
        ("o'brien", ["case-1"]),
        ("upper LOWER", ["case-1"]),
        ("zebra", []),
    ],
)
def test_every_character_of_q_is_matched_literally_and_letters_in_any_case(assorted, q, found):
    assert ids(sessions.search("default", q=q)) == found


def test_the_filters_narrow_a_search(assorted):
    assert (
        ids(sessions.search("default", q="say", agent="salesAgent"))
        == scanned("say", agent="salesAgent")
        == ["odd-2", "odd-1"]
    )
    assert ids(sessions.search("default", q="say", agent="chefAgent")) == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's trigram index and planner")
def test_the_fields_of_a_search_are_read_through_their_trigram_index_on_postgresql(assorted):
    """Every expression of the search's OR of four fields has to be one the index holds, or none can be used and
    every session is read (as when the index held the key, not the session id: migration 0022)."""
    with connection.cursor() as cursor:
        # Till the test's transaction ends: a handful of rows are cheaper to read in full, or along another index.
        for way in ("seqscan", "indexscan", "indexonlyscan"):
            cursor.execute(f"SET LOCAL enable_{way} = off")
    fields = matching.sessions_matching(Session.objects.all(), "brûlée", first=25)
    plan = fields.explain()
    assert "Bitmap Index Scan on history_session_search" in plan, plan
    assert ids(fields.order_by("-updated_at", "id")) == scanned("brûlée") == ["unicode-1"]


@pytest.fixture
def interleaved(db):
    """Sessions found by their fields and by their messages, one after the other in time."""
    for number in range(12):
        session_id = f"mix-{number:02d}"
        if number % 3 == 0:
            sessions.ensure(agent="mixAgent", session_id=session_id, name=f"Walrus {number}")
        else:
            sessions.ensure(agent="mixAgent", session_id=session_id, name=f"Seal {number}")
        text = "A walrus surfaced." if number % 3 == 1 else "Nothing to see."
        item_log.append(session_id, [user(text)])


@pytest.mark.parametrize("first", [1, 2, 3, 5, 8, 20])
def test_the_first_sessions_a_search_reads_are_the_first_of_all_it_finds(interleaved, first):
    everything = ids(sessions.search("default", q="walrus"))
    assert everything == scanned("walrus")
    assert len(everything) == 8
    assert ids(sessions.search("default", q="walrus", first=first)[:first]) == everything[:first]


@pytest.mark.parametrize("up_to, counted", [(1, 1), (3, 3), (8, 8), (9, 8), (None, 8)])
def test_a_count_of_what_a_search_finds_stops_where_it_is_told(interleaved, up_to, counted):
    assert sessions.count("default", q="walrus", up_to=up_to) == counted
    assert sessions.count("default", q="walrus", agent="otherAgent", up_to=up_to) == 0


def test_a_word_in_more_messages_than_the_index_reads_at_once_is_found_all_the_same(db):
    sessions.ensure(agent="chattyAgent", session_id="chatty")
    for start in range(0, FEW + 1, 1000):
        item_log.append(
            "chatty", [user(f"walrus number {number}") for number in range(start, min(start + 1000, FEW + 1))]
        )
    for number in range(3):
        sessions.ensure(agent="quietAgent", session_id=f"quiet-{number}")
        item_log.append(f"quiet-{number}", [user("one walrus" if number != 1 else "a seal")])

    assert ids(sessions.search("default", q="walrus")) == scanned("walrus") == ["quiet-2", "quiet-0", "chatty"]
    assert ids(sessions.search("default", q="walrus", first=2)[:2]) == ["quiet-2", "quiet-0"]
    assert sessions.count("default", q="walrus", up_to=2) == 2
    assert sessions.count("default", q="walrus") == 3


def test_a_word_in_more_sessions_than_the_index_reads_at_once_is_found_all_the_same(db):
    for number in range(FEW + 1):
        sessions.ensure(agent="herdAgent", session_id=f"herd-{number:04d}", name=f"Walrus herd {number}")
    sessions.ensure(agent="loneAgent", session_id="lone")
    item_log.append("lone", [user("a walrus alone")])

    found = ids(sessions.search("default", q="walrus"))
    assert found == scanned("walrus")
    assert found[:3] == ["lone", f"herd-{FEW:04d}", f"herd-{FEW - 1:04d}"]
    assert sessions.search("default", q="walrus", first=10)[:10].count() == 10
    assert sessions.count("default", q="walrus", up_to=FEW) == FEW
    assert sessions.count("default", q="walrus") == FEW + 2


def test_a_search_follows_renames_deletions_and_messages_taken_back(assorted):
    sessions.update("plain-1", name="Lost luggage")
    assert ids(sessions.search("default", q="where is my")) == []
    assert ids(sessions.search("default", q="luggage")) == ["plain-1"]

    item_log.append("odd-2", [user("a quokka appeared")])
    assert ids(sessions.search("default", q="quokka")) == ["odd-2"]
    item_log.pop("odd-2")
    assert ids(sessions.search("default", q="quokka")) == []

    item_log.replace("case-1", [user("nothing but a narwhal")])
    assert ids(sessions.search("default", q="narwhal")) == ["case-1"]
    assert ids(sessions.search("default", q="straße")) == scanned("straße")

    item_log.clear("unicode-1")
    assert ids(sessions.search("default", q="日本語")) == scanned("日本語") == []

    sessions.delete("odd-1", actor="tests")
    assert ids(sessions.search("default", q="off_sale")) == []
    sessions.ensure(agent="salesAgent", session_id="odd-1", name="A new start")
    assert ids(sessions.search("default", q="off_sale")) == []
    assert ids(sessions.search("default", q="new start")) == ["odd-1"]
    assert ids(sessions.search("default", q="hello")) == ["odd-2"]


def newest_texts(q, *session_ids):
    keys = [sessions.get(session_id).pk for session_id in session_ids]
    return matching.newest_messages_holding(keys, q)


@pytest.mark.parametrize("q", ["PARCEL", "parcel never", "%", "日本語", "ab"])
def test_the_newest_message_holding_q_is_found_for_each_session_that_has_one(assorted, q):
    item_log.append("plain-1", [assistant("We found your parcel."), user("Thanks")])
    found = newest_texts(q, "odd-1", "odd-2", "unicode-1", "case-1", "plain-1")
    expected = {}
    for session_id in ("odd-1", "odd-2", "unicode-1", "case-1", "plain-1"):
        messages = TimelineEntry.objects.filter(session=sessions.get(session_id), type="message", text__icontains=q)
        newest = messages.order_by("-epoch", "-seq").first()
        if newest is not None:
            expected[session_id] = newest.text
    assert found == expected and (q != "PARCEL" or found == {"plain-1": "We found your parcel."})


def test_the_newest_message_holding_a_common_word_is_found_past_the_index_look(db):
    sessions.ensure(agent="chattyAgent", session_id="chatty")
    for start in range(0, FEW + 1, 1000):
        item_log.append(
            "chatty", [user(f"walrus number {number}") for number in range(start, min(start + 1000, FEW + 1))]
        )
    item_log.append("chatty", [user("no such animal")])
    assert newest_texts("walrus", "chatty") == {"chatty": f"walrus number {FEW}"}


def test_a_message_archived_by_a_compaction_is_found_when_no_newer_one_holds_q(db):
    sessions.ensure(agent="a", session_id="kept")
    item_log.append("kept", [user("the zeppelin question")])
    item_log.compact("kept", [{"type": "compaction", "summary": "s"}, user("something else")])
    assert newest_texts("zeppelin", "kept") == {"kept": "the zeppelin question"}
    assert newest_texts("something", "kept") == {"kept": "something else"}
