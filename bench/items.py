"""Items shaped like the OpenAI Agents SDK's, generated deterministically from a seed.

A conversation alternates user turns and agent work: reasoning, function calls
and their outputs, assistant answers. Half the conversations come from a
Chat Completions model, whose output items the SDK stamps with the placeholder
id ``__fake_id__`` (as it does for LiteLLM and any-llm models); the other half
from a Responses model, whose items carry real ids (``msg_…``, ``fc_…``,
``rs_…``). User messages are the SDK's easy input messages, without an id.
Sizes follow real sessions: questions of a sentence or two, answers of a few
paragraphs, tool outputs from a line to a few KB, reasoning summaries with an
opaque encrypted blob.
"""

import json
import random
import string

FAKE_ID = "__fake_id__"
# A word some user messages contain, for the dashboard's search.
SEARCH_WORD = "chargeback"
SEARCH_SHARE = 0.02

VOCABULARY = (
    "the order refund account invoice shipping customer please thanks update status delivery payment card "
    "address change cancel subscription plan upgrade downgrade billing cycle receipt tracking number warehouse "
    "return label damaged item replacement warranty policy days business email confirmation password reset "
    "login session device browser error message screen settings profile notification preference language "
    "report export download upload file attachment image document contract signature approval manager team "
    "schedule meeting calendar reminder deadline priority ticket escalation agent support answer question "
    "issue problem solution workaround version release feature request feedback survey rating review "
    "product catalog price discount coupon promotion tax region currency transfer balance statement limit "
    "and or but with from into about after before while because so that which when where how why what "
    "is are was were be been will would can could should may might must have has had do does did not"
)
WORDS = VOCABULARY.split()

TOOLS = (
    ("lookup_order", ("order_id", "include_items")),
    ("search_knowledge_base", ("query", "top_k")),
    ("get_customer", ("customer_id",)),
    ("create_ticket", ("subject", "priority", "body")),
    ("issue_refund", ("order_id", "amount", "reason")),
    ("get_shipping_status", ("tracking_number",)),
)


class Conversation:
    """One agent's session, item after item; the same seed gives the same items."""

    def __init__(self, seed):
        self.random = random.Random(str(seed))
        self.chat_completions = self.random.random() < 0.5
        self.pending = []

    def items(self, count):
        """The next ``count`` items of the conversation."""
        out = []
        while len(out) < count:
            if not self.pending:
                self.pending = self._turn()
            take = min(count - len(out), len(self.pending))
            out.extend(self.pending[:take])
            del self.pending[:take]
        return out

    # One turn: the user asks, the agent works, the agent answers -------------

    def _turn(self):
        turn = [self._user_message()]
        for _ in range(self.random.choice((0, 1, 1, 1, 2, 2, 3))):
            if self.random.random() < 0.3:
                turn.append(self._reasoning())
            calls = [self._function_call() for _ in range(self.random.choice((1, 1, 1, 2)))]
            turn.extend(calls)
            turn.extend(self._function_output(call) for call in calls)
        turn.append(self._assistant_message())
        return turn

    def _user_message(self):
        text = self._text(8, 60)
        if self.random.random() < SEARCH_SHARE:
            text = f"{text} {SEARCH_WORD} {self._text(2, 8)}"
        return {"content": text, "role": "user"}

    def _assistant_message(self):
        paragraphs = [self._text(20, 120) for _ in range(self.random.randint(1, 4))]
        return {
            "id": self._id("msg"),
            "content": [{"annotations": [], "text": "\n\n".join(paragraphs), "type": "output_text", "logprobs": []}],
            "role": "assistant",
            "status": "completed",
            "type": "message",
        }

    def _function_call(self):
        name, parameters = self.random.choice(TOOLS)
        arguments = {parameter: self._argument(parameter) for parameter in parameters}
        return {
            "arguments": json.dumps(arguments),
            "call_id": "call_" + self._token(24),
            "name": name,
            "type": "function_call",
            "id": self._id("fc"),
            "status": "completed",
        }

    def _function_output(self, call):
        fields = {word: self._text(2, 12) for word in self.random.sample(WORDS[:80], self.random.randint(2, 30))}
        return {"call_id": call["call_id"], "output": json.dumps(fields), "type": "function_call_output"}

    def _reasoning(self):
        item = {
            "id": self._id("rs"),
            "summary": [{"text": self._text(30, 150), "type": "summary_text"}],
            "type": "reasoning",
        }
        if not self.chat_completions:
            item["encrypted_content"] = self._token(self.random.randint(400, 1600), string.ascii_letters + "+/")
        return item

    # Pieces ------------------------------------------------------------------

    def _id(self, prefix):
        return FAKE_ID if self.chat_completions else f"{prefix}_{self._token(48, '0123456789abcdef')}"

    def _argument(self, parameter):
        if parameter in ("top_k", "amount"):
            return self.random.randint(1, 500)
        if parameter == "include_items":
            return self.random.random() < 0.5
        if parameter in ("query", "subject", "body", "reason"):
            return self._text(3, 30)
        return self._token(12, string.digits)

    def _text(self, low, high):
        return " ".join(self.random.choices(WORDS, k=self.random.randint(low, high))).capitalize() + "."

    def _token(self, length, alphabet=string.ascii_letters + string.digits):
        return "".join(self.random.choices(alphabet, k=length))


def conversation(seed, count):
    """``count`` items of the conversation that ``seed`` names."""
    return Conversation(seed).items(count)


def batches(items, size):
    return [items[start : start + size] for start in range(0, len(items), size)]
