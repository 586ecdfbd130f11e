"""Demo sessions that show every feature, written through the domain functions.

Every item, session and client action has a fixed id, and the demo's ids are
identities (it appends with ``skip_existing_ids``), so writing the demo twice
changes nothing the second time.
"""

from historyhub.demo.decided_week import write_decided_week
from historyhub.demo.items import append, assistant, call, clock, output, user
from historyhub.history import client_actions, item_log, sessions

AGENTS = ("supportAgent", "researchAgent", "codingAgent")
CUSTOMERS = [
    ("Alice", "Where is my order #4411?", "It left our warehouse yesterday and arrives Thursday."),
    ("Bruno", "Can I change the delivery address?", "Yes — I've updated it to the new address."),
    ("Chen", "My invoice shows the wrong VAT number.", "I've reissued the invoice with the corrected VAT number."),
    ("Dana", "How do I reset my password?", "Use 'Forgot password' on the sign-in page; the link lasts 1 hour."),
    ("Emeka", "The app crashes when I upload a photo.", "Thanks — fixed in version 3.2.1, please update."),
    ("Fatima", "Do you ship to Norway?", "We do: 3–5 working days, duties included."),
    ("Gustav", "I was charged twice.", "I've refunded the duplicate charge; it shows in 3–5 days."),
    ("Hana", "Can I pause my subscription?", "Paused until the 1st of next month."),
]
TOPICS = [
    "battery recycling in the EU",
    "solid-state electrolytes",
    "heat pumps in cold climates",
    "urban tree cover and heat",
    "small modular reactors",
    "lithium supply chains",
]
CODE_TASKS = [
    ("Fix the flaky date test", "tests/test_dates.py", "The test assumed the local timezone; it now pins UTC."),
    ("Add retries to the HTTP client", "client/http.py", "Added exponential backoff with jitter, 3 attempts."),
    ("Speed up the CSV export", "export/csv.py", "Streaming rows instead of building a list: 6x less memory."),
    ("Upgrade to Django 5.2", "requirements.txt", "Upgraded; two deprecated imports fixed."),
]


def _support_chats():
    for index, (customer, question, answer) in enumerate(CUSTOMERS):
        session_id = f"demo-support-{index + 1:02d}"
        ago = 60 * 24 * (len(CUSTOMERS) - index)
        sessions.ensure(
            agent="supportAgent",
            session_id=session_id,
            name=f"{customer}: {question[:40]}",
            metadata={"customer": customer, "channel": "web" if index % 2 else "email", "priority": index % 3},
        )
        append(
            session_id,
            [
                user(f"{session_id}-u1", question, ago),
                call(
                    f"{session_id}-c1",
                    f"{session_id}-call",
                    "lookup_customer",
                    f'{{"name": "{customer}", "include": ["orders", "invoices"]}}',
                    ago - 1,
                ),
                output(f"{session_id}-o1", f"{session_id}-call", f'{{"customer": "{customer}", "orders": 3}}', ago - 1),
                assistant(f"{session_id}-a1", answer, ago - 2, {"inputTokens": 820 + index, "outputTokens": 64}),
            ],
        )
        if index % 3 == 0:
            sessions.update(session_id, status="completed", run_status="completed")


def _approval_waiting():
    session_id = "demo-refund-approval"
    sessions.ensure(
        agent="supportAgent",
        session_id=session_id,
        name="Refund for a damaged espresso machine",
        metadata={"customer": "Ingrid", "orderId": "A-7781"},
    )
    append(
        session_id,
        [
            user(
                f"{session_id}-u1", "My espresso machine arrived broken.\nThe box was crushed. Can I get a refund?", 30
            ),
            call(f"{session_id}-c1", "call_lookup", "lookup_order", '{"orderId": "A-7781"}', 29),
            output(f"{session_id}-o1", "call_lookup", '{"total": 750, "currency": "USD", "status": "delivered"}', 29),
            assistant(
                f"{session_id}-a1", "I'm sorry! A refund of $750 needs a person's approval — I've asked for it.", 28
            ),
        ],
    )
    client_actions.open_action(
        session_id,
        call_id="call_123",
        name="request_human_approval",
        arguments={"amount": 750, "currency": "USD"},
        description="Refund above the $500 self-service limit",
    )
    second = "demo-address-change"
    sessions.ensure(agent="supportAgent", session_id=second, name="Change of delivery address after dispatch")
    append(
        second,
        [
            user(f"{second}-u1", "Please send my parcel to my office instead.", 12),
            assistant(f"{second}-a1", "The parcel is already with the courier, so I need approval to redirect it.", 11),
        ],
    )
    client_actions.open_action(
        second,
        call_id="call_redirect",
        name="redirect_parcel",
        arguments={"parcel": "PX-99812", "to": "Office, 12 Quay Street"},
    )


def _research_with_subagent():
    parent = "demo-research-batteries"
    sessions.ensure(agent="researchAgent", session_id=parent, name="Brief: battery recycling in the EU")
    append(
        parent,
        [
            user(f"{parent}-u1", "Write a one-page brief on battery recycling rules in the EU.", 90),
            {
                "id": f"{parent}-sk1",
                "type": "skill",
                "name": "eu_regulation_lookup",
                "summary": "Loaded the EU regulation lookup skill.",
                "createdAt": clock(89),
            },
            {
                "id": f"{parent}-r1",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "Delegate sources."}],
                "createdAt": clock(89),
            },
        ],
    )
    child = "demo-research-batteries-sources"
    sessions.ensure(
        agent="sourceFinder",
        session_id=child,
        name="Find primary sources",
        parent_session_id=parent,
        parent_call_id="call_sources",
    )
    append(
        child,
        [
            user(f"{child}-u1", "Find the primary legal sources on EU battery recycling.", 88),
            {
                "id": f"{child}-ws1",
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "Regulation (EU) 2023/1542 batteries"},
                # Without its own time an item shows when it was stored: now, among items dated in the past.
                "createdAt": clock(87),
            },
            assistant(
                f"{child}-a1",
                "Regulation (EU) 2023/1542 replaces Directive 2006/66/EC.",
                86,
                {"inputTokens": 2400, "outputTokens": 310, "reasoningTokens": 120},
            ),
            {"id": f"{child}-done", "type": "session_completed", "summary": "Sources found.", "createdAt": clock(85)},
        ],
    )
    append(
        parent,
        [
            assistant(
                f"{parent}-a1",
                "Here is the brief:\n\n1. Scope — all batteries.\n2. Recycled content targets "
                "from 2031.\n3. Battery passport from 2027.",
                80,
                {"inputTokens": 5200, "outputTokens": 900, "cacheReadTokens": 2048},
            ),
            {
                "id": f"{parent}-ev1",
                "type": "evaluation",
                "name": "brief quality",
                "createdAt": clock(79),
                "metrics": [
                    {"name": "faithfulness", "score": 0.92, "threshold": 0.8},
                    {"name": "coverage", "score": 0.74, "threshold": 0.75},
                    {"name": "readability", "score": 0.88, "threshold": 0.7},
                ],
            },
        ],
    )
    for index, topic in enumerate(TOPICS[1:], start=2):
        session_id = f"demo-research-{index:02d}"
        sessions.ensure(
            agent="researchAgent",
            session_id=session_id,
            name=f"Brief: {topic}",
            metadata={"requestedBy": "policy-team", "topic": topic},
        )
        append(
            session_id,
            [
                user(f"{session_id}-u1", f"Summarise the state of {topic} in five bullet points.", 300 * index),
                assistant(
                    f"{session_id}-a1",
                    f"Five points on {topic}:\n- cost\n- scale\n- policy\n- risks\n- outlook",
                    300 * index - 3,
                    {"inputTokens": 1500, "outputTokens": 240},
                ),
            ],
        )


def _media_chat():
    session_id = "demo-media-inspection"
    sessions.ensure(agent="supportAgent", session_id=session_id, name="Damage photos, voice note and receipt")
    append(
        session_id,
        [
            {
                "id": f"{session_id}-u1",
                "type": "message",
                "role": "user",
                "createdAt": clock(50),
                "content": [
                    {"type": "text", "text": "Here are photos of the damage, a voice note and my receipt."},
                    {"type": "image", "mimeType": "image/svg+xml", "fileUri": "/static/demo/damaged-box.svg"},
                    {"type": "audio", "mimeType": "audio/wav", "fileUri": "/static/demo/voice-note.wav"},
                    {"type": "file", "filePath": "receipts/receipt-7781.pdf", "mimeType": "application/pdf"},
                    {"type": "url", "mimeType": "text/html", "fileUri": "https://example.com/orders/7781"},
                ],
            },
            assistant(f"{session_id}-a1", "Thanks — the photo shows a crushed corner; I've opened a claim.", 49),
        ],
    )


def _coding_sessions():
    for index, (task, path, result) in enumerate(CODE_TASKS, start=1):
        session_id = f"demo-coding-{index:02d}"
        sessions.ensure(agent="codingAgent", session_id=session_id, name=task, metadata={"repo": "shop-backend"})
        append(
            session_id,
            [
                {"id": f"{session_id}-u1", "role": "user", "content": task, "createdAt": clock(200 * index)},
                {
                    "id": f"{session_id}-a1",
                    "role": "assistant",
                    "content": None,
                    "createdAt": clock(200 * index - 1),
                    "tool_calls": [
                        {
                            "id": f"{session_id}-read",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": f'{{"path": "{path}"}}'},
                        }
                    ],
                },
                {
                    "id": f"{session_id}-t1",
                    "role": "tool",
                    "tool_call_id": f"{session_id}-read",
                    "name": "read_file",
                    "content": "def main():\n    return run()\n",
                    "createdAt": clock(200 * index - 2),
                },
                {
                    "id": f"{session_id}-a2",
                    "role": "assistant",
                    "createdAt": clock(200 * index - 3),
                    "content": f"{result}\n\n```python\ndef main():\n    return run(retries=3)\n```",
                },
            ],
        )


def _compacted():
    session_id = "demo-compacted"
    _, created = sessions.ensure(agent="codingAgent", session_id=session_id, name="Long refactor, compacted")
    if not created:
        return
    append(
        session_id,
        [
            user(f"{session_id}-u{n}", f"Step {n}: rename module part {n}.", 400 - n)
            if n % 2
            else assistant(f"{session_id}-a{n}", f"Renamed part {n - 1}.", 400 - n)
            for n in range(1, 13)
        ],
    )
    item_log.compact(
        session_id,
        [
            {
                "id": f"{session_id}-compaction",
                "type": "compaction",
                "summary": "The user asked for a 6-step rename; all steps are done.",
            },
            user(f"{session_id}-u99", "Now update the docs to match.", 100),
            assistant(f"{session_id}-a99", "Docs updated to the new module names.", 99),
        ],
    )


def _incident_report():
    """A Markdown report and a tool output long enough to be folded (docs/dashboard.md, "Reading")."""
    session_id = "demo-incident-report"
    sessions.ensure(
        agent="researchAgent", session_id=session_id, name="Checkout incident report", metadata={"ticket": "INC-2041"}
    )
    log = "\n".join(
        f"2026-03-0{1 + n // 60} {n % 24:02d}:{n % 60:02d}:07 {'ERROR' if n % 7 == 0 else 'INFO '} checkout "
        f"{'payment provider timed out after 30s' if n % 7 == 0 else 'order placed'} (order A-{7000 + n})"
        for n in range(120)
    )
    sections = "\n\n".join(
        f"### {day}\n\nCheckout errors stayed **{rate}** of orders; the on-call engineer "
        f"{'restarted the payment worker' if rate != '0.1%' else 'saw nothing unusual'}.\n\n"
        f"- Orders: {orders}\n- Timeouts: {timeouts}\n- Longest wait: {wait}"
        for day, rate, orders, timeouts, wait in [
            ("Monday", "2.4%", "4,210", "101", "31 s"),
            ("Tuesday", "3.1%", "4,388", "136", "30 s"),
            ("Wednesday", "0.9%", "4,102", "37", "30 s"),
            ("Thursday", "0.1%", "4,450", "4", "12 s"),
            ("Friday", "0.1%", "5,012", "5", "11 s"),
        ]
    )
    report = (
        "## Checkout incident, week 9\n\n"
        "Payments timed out for about **2% of orders** from Monday to Wednesday. The cause was the payment "
        "provider's new rate limit; retries made it worse.\n\n"
        "| Day | Error rate | Action |\n|---|---|---|\n"
        "| Mon | 2.4% | restart |\n| Tue | 3.1% | rate limit found |\n| Wed | 0.9% | backoff shipped |\n\n"
        "The fix, in `payments/client.py`:\n\n"
        "```python\ndef charge(order):\n    for attempt in range(3):\n        try:\n"
        "            return provider.charge(order, timeout=10)\n        except Timeout:\n"
        "            sleep(2 ** attempt + random())\n    raise PaymentUnavailable(order)\n```\n\n"
        f"{sections}\n\n"
        "## What we change\n\n1. Alert on the payment error rate, not only on 5xx answers.\n"
        "2. Ask the provider for rate limit changes ahead of time.\n3. Load test checkout with the provider's sandbox."
    )
    append(
        session_id,
        [
            user(f"{session_id}-u1", "Write up last week's checkout incident from the logs.", 140),
            call(f"{session_id}-c1", f"{session_id}-logs", "fetch_logs", '{"service": "checkout", "days": 7}', 139),
            output(f"{session_id}-o1", f"{session_id}-logs", log, 139),
            assistant(f"{session_id}-a1", report, 138, {"inputTokens": 9120, "outputTokens": 1210}),
        ],
    )


def _long_session():
    session_id = "demo-long-conversation"
    sessions.ensure(agent="supportAgent", session_id=session_id, name="Long onboarding conversation (520 items)")
    items = []
    for n in range(1, 521):
        ago = 3000 - n * 5
        if n % 4 == 1:
            items.append(user(f"{session_id}-{n}", f"Question {n // 4 + 1}: how do I set up step {n // 4 + 1}?", ago))
        elif n % 4 == 2:
            items.append(
                call(
                    f"{session_id}-{n}",
                    f"{session_id}-call{n}",
                    "search_docs",
                    f'{{"query": "setup step {n // 4 + 1}"}}',
                    ago,
                )
            )
        elif n % 4 == 3:
            items.append(output(f"{session_id}-{n}", f"{session_id}-call{n - 1}", f"Doc section {n // 4 + 1}", ago))
        else:
            items.append(assistant(f"{session_id}-{n}", f"Step {n // 4}: follow section {n // 4} of the guide.", ago))
    append(session_id, items)


def write_demo():
    _support_chats()
    _approval_waiting()
    _research_with_subagent()
    _media_chat()
    _coding_sessions()
    _compacted()
    _incident_report()
    _long_session()
    write_decided_week()
