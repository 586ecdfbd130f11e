"""The policies page's forms (docs/dashboard.md, "Approval policies"): a policy as a person types it, the buttons
of the list, and the preview. A form only turns text into values; ``policies.replace`` checks the policy."""

from django import forms

from historyhub.approvals import policies
from historyhub.dashboard import json_preview
from historyhub.lib import jsonvalues


class LinesField(forms.CharField):
    """Names or globs, one a line."""

    widget = forms.Textarea(attrs={"rows": 2})

    def to_python(self, value):
        return [line.strip() for line in super().to_python(value).splitlines() if line.strip()]

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value


class JsonField(forms.CharField):
    """A JSON value typed in a box; empty is ``empty``."""

    widget = forms.Textarea(attrs={"rows": 3, "class": "json", "spellcheck": "false"})

    def __init__(self, *, empty, **kwargs):
        super().__init__(required=False, strip=False, **kwargs)
        self.empty = empty

    def to_python(self, value):
        text = super().to_python(value)
        if not text.strip():
            return self.empty
        try:
            return jsonvalues.loads_untrusted(text)
        except ValueError as error:
            raise forms.ValidationError(f"This is not valid JSON: {error}.") from None

    def prepare_value(self, value):
        """What was typed as typed; a value indented, its hidden characters as escapes (they read back the same)."""
        if isinstance(value, str):
            return value
        return "" if value is None or value == self.empty else json_preview.escaped(jsonvalues.dumps(value))


class PolicyForm(forms.Form):
    """One policy; its fields are named as on the wire, so ``cleaned_data`` is the policy ``policies.check`` takes
    and a policy is the form's ``initial``."""

    # The name the policy had (empty for a new one), exactly: names are matched as stored.
    original = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    name = forms.CharField()
    agents = LinesField(initial=["*"], help_text="Globs of agent names, one a line: support* matches supportAgent.")
    actions = LinesField(initial=["*"], help_text="Globs of action names, one a line.")
    when = JsonField(
        empty=[],
        label="When",
        help_text='Conditions on the arguments, all of which must hold, as JSON: [{"argument": "amount", "op": "gt", '
        f'"value": 10000}}]. op is one of {" ".join(policies.OPERATORS)}. Empty: always.',
    )
    approverGroups = forms.MultipleChoiceField(
        required=False,
        label="Approver groups",
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every approver of the project.",
    )
    requiredApprovals = forms.IntegerField(
        initial=1,
        label="Approvals needed",
        widget=forms.NumberInput(attrs={"min": 1, "max": policies.MAX_REQUIRED}),
        help_text="From distinct people (or keys) approving the same arguments; one reject rejects.",
    )
    peopleOnly = forms.BooleanField(
        required=False, label="People only", help_text="API keys may not decide, even with the decide scope."
    )
    escalateAfterSeconds = forms.IntegerField(
        required=False,
        label="Escalate after (seconds)",
        help_text="Still waiting this long: the channels are told, and the groups below may decide too. Empty: never.",
    )
    escalateTo = forms.MultipleChoiceField(required=False, label="Escalate to", widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, groups, **kwargs):
        """``groups``: the project's group names. A group the policy names that is not one of them (deleted since)
        is offered too, ticked, so that saving says so (``policies.replace``) rather than dropping it unseen."""
        super().__init__(*args, **kwargs)
        named = {name for field in ("approverGroups", "escalateTo") for name in self[field].value() or []}
        choices = [(name, name) for name in sorted(set(groups) | named)]
        self.fields["approverGroups"].choices = choices
        self.fields["escalateTo"].choices = choices

    def policy(self):
        return {name: value for name, value in self.cleaned_data.items() if name != "original"}


class PolicyChoiceForm(forms.Form):
    """A button of one policy in the list: move it, or delete it."""

    policy = forms.CharField(strip=False)


class PreviewForm(forms.Form):
    """An action as it would open: the policy that would govern it is the preview."""

    agent = forms.CharField(label="Agent", help_text="The session's agent name, e.g. supportAgent.")
    action = forms.CharField(label="Action", help_text="The action's name, e.g. issue_refund.")
    arguments = JsonField(empty={}, label="Arguments", help_text='A JSON object, e.g. {"amount": 25000}. Optional.')

    def __init__(self, data=None):
        # Beside the policy form on one page: ids of its own.
        super().__init__(data, auto_id="preview_%s")

    def clean_arguments(self):
        arguments = self.cleaned_data["arguments"]
        if not isinstance(arguments, dict):
            raise forms.ValidationError('The arguments must be a JSON object, like {"amount": 25000}.')
        return arguments
