"""The answer form of a ``respond``, generated on the server from the action's responseSchema (docs/dashboard.md,
"Answering"): one form field per property, or one free-text box without a schema. The fields are never required
by the form itself, since a person pressing Approve sends them too; ``answer`` checks them only for Respond,
with the same rule the API applies (``history.response_schemas``), and puts each error next to its field.
What Respond needs is marked for the browser and for people all the same (``REQUIRED``): the other decision
buttons carry ``formnovalidate``, so only Respond waits for it.
"""

from django import forms

from historyhub.history import response_schemas
from historyhub.lib.errors import InvalidInput

FREE_TEXT = "response"
PREFIX = "answer:"
MAX_FREE_TEXT = 100_000
# The attributes of a field Respond needs: the browser refuses to respond without it and says why, and a screen
# reader says it is required; the label shows it (templates/dashboard/fragments/answer_fields.html).
REQUIRED = {"required": True, "aria-required": "true"}


def field_name(prop):
    return PREFIX + prop.name


def form_fields(schema):
    """The form fields an answer needs, by name."""
    if schema is None:
        return {
            FREE_TEXT: forms.CharField(
                required=False,
                max_length=MAX_FREE_TEXT,
                widget=forms.Textarea(attrs={"rows": 3, **REQUIRED}),
                label="Answer",
            )
        }
    return {field_name(prop): marked(_field(prop), prop) for prop in response_schemas.fields(schema)}


def marked(field, prop):
    """``field``, marked required when Respond needs it: a box left unticked is an answer (false), so never a box."""
    if prop.required and prop.type != "boolean":
        field.widget.attrs.update(REQUIRED)
    return field


def _field(prop):
    common = {"required": False, "label": prop.title, "help_text": prop.description, "initial": prop.default}
    if prop.enum:
        blank = [] if prop.required else [("", "—")]
        return forms.ChoiceField(choices=blank + [(value, value) for value in prop.enum], **common)
    if prop.type == "string":
        return forms.CharField(max_length=prop.max_length or MAX_FREE_TEXT, strip=False, **common)
    if prop.type == "integer":
        return forms.IntegerField(min_value=prop.minimum, max_value=prop.maximum, **common)
    if prop.type == "number":
        return forms.FloatField(min_value=prop.minimum, max_value=prop.maximum, **common)
    if prop.type == "boolean":
        return forms.BooleanField(**common)
    initial = "\n".join(prop.default) if isinstance(prop.default, list) else None
    return forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        **{**common, "initial": initial, "help_text": (prop.description + " One per line.").strip()},
    )


def answer(form, schema):
    """The answer the form's cleaned fields make, or None after adding an error to the field that is wrong."""
    data = form.cleaned_data
    if schema is None:
        text = (data.get(FREE_TEXT) or "").replace("\r\n", "\n")
        if not text.strip():
            form.add_error(FREE_TEXT, "Type an answer to respond.")
            return None
        return text
    found = {}
    for prop in response_schemas.fields(schema):
        name = field_name(prop)
        if name in form.errors:
            continue
        value = data.get(name)
        if prop.type == "array":
            value = [line.strip() for line in (value or "").splitlines() if line.strip()] or None
        elif prop.type != "boolean" and value in (None, ""):
            value = None
        if value is None:
            if prop.required:
                form.add_error(name, "This field is required.")
            continue
        try:
            found[prop.name] = response_schemas.check_value(prop.name, schema["properties"][prop.name], value)
        except InvalidInput as error:
            form.add_error(name, error.message)
    return None if form.errors else found
