"""The dashboard's inputs: session and inbox filters, timeline addresses, poll cursors and decisions."""

import json

from django import forms
from django.http import QueryDict
from django.utils.http import urlencode

from historyhub.approvals import batch
from historyhub.approvals.decisions import DECISION_BUTTONS, Decision
from historyhub.dashboard import answer_form, inbox_states
from historyhub.history.models import RunStatus, SessionStatus
from historyhub.insights import ranges
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput


class SessionFilters(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.SearchInput(
            attrs={
                "placeholder": "Search sessions and messages",
                "autocomplete": "off",
            }
        ),
    )
    agent = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *SessionStatus.choices])
    runStatus = forms.ChoiceField(
        required=False,
        label="Run status",
        choices=[("", "Any run status"), *[(value, value.replace("_", " ")) for value in RunStatus.values]],
    )
    waiting = forms.BooleanField(required=False, label="Waiting on a person")
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, data, agents):
        super().__init__(data)
        self.fields["agent"].choices = [("", "Any agent"), *[(agent, agent) for agent in agents]]

    def criteria(self):
        """The valid filters; a value that is not valid is left out rather than failing the page."""
        self.is_valid()
        data = self.cleaned_data
        return {
            "agent": data.get("agent") or None,
            "status": data.get("status") or None,
            "run_status": data.get("runStatus") or None,
            "q": data.get("q") or None,
            "waiting": data.get("waiting") or None,
        }

    def page_number(self):
        self.is_valid()
        return self.cleaned_data.get("page") or 1


class OfferedName(forms.ChoiceField):
    """One of the names offered, or any other: a name that waits no more stays chosen."""

    def valid_value(self, value):
        return len(value) <= 200


class MomentField(forms.CharField):
    """An ISO 8601 time with a zone, kept as the text it was given (the page's links carry it back)."""

    def clean(self, value):
        text = super().clean(value)
        if text:
            try:
                ranges.parse_time(text, self.label or "time")
            except InvalidInput as error:
                raise forms.ValidationError(str(error)) from None
        return text


class InboxFilters(forms.Form):
    """Which actions the approvals page shows, and how (docs/dashboard.md, "The approvals inbox"): the waiting
    ones by default, or those decided or expired, with their outcome, decider and when (the Insights page links
    here with them).

    Agent, tool and policy are offered as the names of what waits now (``offer``), but any name is taken:
    a filter stays as it was when the last action it matched is decided, rather than showing everything.
    """

    state = forms.ChoiceField(required=False, choices=[("", "Waiting"), *inbox_states.DECIDED_STATES])

    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.SearchInput(
            attrs={"placeholder": "Search tools, arguments, descriptions, sessions", "autocomplete": "off"}
        ),
    )
    agent = OfferedName(required=False)
    tool = OfferedName(required=False)
    policy = OfferedName(required=False)
    age = forms.ChoiceField(
        required=False,
        choices=[("", "Any age"), ("1h", "Older than 1 hour"), ("1d", "Older than 1 day"), ("1w", "Older than 1 week")],
    )
    expiring = forms.BooleanField(required=False, label="Expiring within 1 hour")
    sort = forms.ChoiceField(
        required=False,
        choices=[("", "Oldest first"), ("newest", "Newest first"), ("expiring", "Expiring soonest")],
    )
    group = forms.ChoiceField(required=False, choices=[("", "No grouping"), ("tool", "Grouped by tool")])
    decider = forms.CharField(
        required=False, max_length=200, label="Decided by", widget=forms.TextInput(attrs={"placeholder": "Decided by"})
    )
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Named as the Insights API names its range; "from" is no name a class attribute may have.
        for name, label in (("from", "From"), ("to", "To")):
            example = {"placeholder": f"{label}, e.g. 2026-12-01T00:00Z"}
            self.fields[name] = MomentField(required=False, max_length=40, label=label, widget=forms.TextInput(example))

    def offer(self, choices):
        """Offer these agents, tools and policies (``inbox.Choices``), and the one chosen if it waits no more."""
        offered = {
            "agent": ("Any agent", choices.agents),
            "tool": ("Any tool", choices.tools),
            "policy": ("Any policy", choices.policies),
        }
        for name, (anything, names) in offered.items():
            chosen = self.data.get(name) or ""
            if chosen and chosen not in names:
                names = [*names, chosen]
            self.fields[name].choices = [("", anything), *[(value, value) for value in names]]
        return self

    def criteria(self):
        """The valid filters as ``inbox.Criteria`` takes them; a value that is not valid is left out."""
        self.is_valid()
        data = self.cleaned_data
        return {
            "agent": data.get("agent") or "",
            "tool": data.get("tool") or "",
            "policy": data.get("policy") or "",
            "age": data.get("age") or "",
            "expiring": bool(data.get("expiring")),
            "q": data.get("q") or "",
            "sort": data.get("sort") or "oldest",
            "group": data.get("group") or "",
            "state": data.get("state") or "",
            "decider": data.get("decider") or "",
            "since": ranges.parse_time(data.get("from") or None, "from"),
            "until": ranges.parse_time(data.get("to") or None, "to"),
        }

    def page_number(self):
        self.is_valid()
        return self.cleaned_data.get("page") or 1

    @property
    def in_use(self):
        """The valid filters that narrow or order the list, as a query string without the page ("" for none)."""
        self.is_valid()
        chosen = [
            (name, "on" if value is True else value)
            for name, value in self.cleaned_data.items()
            if value and name != "page"
        ]
        return urlencode(chosen)


class InboxPlace(forms.Form):
    """Where on the approvals page a decision was made: the filters in use and the page, to show it again."""

    filters = forms.CharField(required=False, max_length=2000)
    page = forms.IntegerField(required=False, min_value=1)

    def inbox_filters(self):
        self.is_valid()
        return InboxFilters(QueryDict(self.cleaned_data.get("filters") or ""))

    def page_number(self):
        self.is_valid()
        return self.cleaned_data.get("page") or 1


class TimelineQuery(forms.Form):
    """Which chunk of a timeline to show: an epoch and the highest seq, both optional."""

    epoch = forms.IntegerField(required=False, min_value=0)
    until = forms.IntegerField(required=False, min_value=0)


class CursorQuery(forms.Form):
    since = forms.IntegerField(min_value=0)
    epoch = forms.IntegerField(min_value=0)
    seq = forms.IntegerField(min_value=0)
    pk = forms.IntegerField(min_value=0)


def reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


class DecisionField(forms.ChoiceField):
    """The decision a button names. Never defaulted: a form sent any other way (Enter in a field) decides nothing."""

    def __init__(self, decisions=DECISION_BUTTONS):
        labels = [decision.label for decision in decisions]
        press = ", ".join(labels[:-1]) + f" or {labels[-1]}"
        super().__init__(
            choices=[(decision.value, decision.label) for decision in decisions],
            error_messages={"required": f"Nothing was decided: press {press} to decide."},
        )


class CommentField(forms.CharField):
    """A comment typed in a box: browsers send its line breaks as CR LF, kept as LF."""

    widget = forms.Textarea

    def to_python(self, value):
        return super().to_python(value).replace("\r\n", "\n")


class DecisionForm(forms.Form):
    """Decide one client action: on approve, the arguments may be edited as a JSON object; on respond, the
    answer form of its responseSchema (``answer_form``) carries the answer."""

    decision = DecisionField()
    comment = CommentField(required=False)
    arguments = forms.CharField(required=False, strip=False, widget=forms.Textarea)

    def __init__(self, *args, buttons=DECISION_BUTTONS, response_schema=None, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the buttons the card shows decide, and a form sent without one says which they are.
        self.fields["decision"] = DecisionField(buttons)
        self.response_schema = response_schema
        self.fields.update(answer_form.form_fields(response_schema))

    def answer_fields(self):
        return [self[name] for name in answer_form.form_fields(self.response_schema)]

    def clean(self):
        data = super().clean()
        text = data.get("arguments", "")
        data["arguments"] = None
        data["response"] = None
        if data.get("decision") == Decision.APPROVE and text.strip():
            data["arguments"] = self.parse_arguments(text)
        if data.get("decision") == Decision.RESPOND:
            data["response"] = answer_form.answer(self, self.response_schema)
        return data

    def parse_arguments(self, text):
        try:
            value = json.loads(text, parse_constant=reject_constant)
        except json.JSONDecodeError as error:
            self.add_error(
                "arguments",
                f"The arguments are not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}.",
            )
            return None
        except (ValueError, RecursionError) as error:
            self.add_error("arguments", f"The arguments are not valid JSON: {error}.")
            return None
        if not isinstance(value, dict):
            self.add_error("arguments", 'The arguments must be a JSON object, like {"amount": 750}.')
            return None
        try:
            jsonvalues.dumps(value)
        except ValueError:
            self.add_error("arguments", "The arguments are nested too deeply.")
            return None
        return value


class ActionKeysField(forms.Field):
    """Client actions named "<session id>/<call id>": a session id has no "/", so the first one splits them."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {
        "required": "Select at least one action.",
        "invalid": "That is not a client action.",
    }

    def to_python(self, value):
        """Every key checked as the domain would check it, before any is decided; each once, in lock order."""
        keys = set()
        for key in value or []:
            session_id, _, call_id = key.partition("/")
            try:
                keys.add((validation.session_id(session_id), validation.identifier(call_id, "callId")))
            except InvalidInput:
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        return sorted(keys)


class SelectedDecisionForm(InboxPlace):
    """Decide the selected client actions, or every waiting one, each with its original arguments, as a batch may
    (``batch.DECISIONS``: the admin offers the same).

    A decision on more than one is confirmed: ``confirmed`` with the ``fingerprint`` of the set the
    confirmation showed (``batch.Batch``).
    """

    selected = ActionKeysField(required=False)
    all_waiting = forms.BooleanField(required=False)
    decision = DecisionField(batch.DECISIONS)
    comment = CommentField(required=False)
    confirmed = forms.BooleanField(required=False)
    fingerprint = forms.CharField(required=False, max_length=64)

    def clean(self):
        data = super().clean()
        if not data.get("all_waiting") and not data.get("selected") and "selected" not in self.errors:
            self.add_error("selected", ActionKeysField.default_error_messages["required"])
        return data

    @property
    def needs_confirmation(self):
        """One action is decided at a click, as on its timeline card; several, or every waiting one, once confirmed."""
        return self.cleaned_data["all_waiting"] or len(self.cleaned_data["selected"]) > 1
