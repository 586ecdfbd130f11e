"""The answer a ``respond`` must carry, described by a small subset of JSON Schema (docs/api.md, "Client
actions"): an object whose properties are strings, numbers, integers, booleans, string enums or arrays of
strings. ``check_schema`` refuses anything outside the subset when an action opens; ``check_answer`` checks
an answer against a schema and names the field that is wrong. The dashboard's answer form is built from the
same ``fields``.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from historyhub.lib.errors import InvalidInput
from historyhub.lib.jsonvalues import JSON

T = TypeVar("T")
# A response schema, or one of its properties, as JSON Schema has it.
SchemaObject = dict[str, Any]

TYPES = ("string", "number", "integer", "boolean", "array")


def _property_form(kind: str, required: Sequence[str] = (), **keys: JSON) -> SchemaObject:
    text = {"type": "string"}
    return {
        "type": "object",
        "required": ["type", *required],
        "additionalProperties": False,
        "properties": {"type": {"const": kind}, "title": text, "description": text, **keys},
    }


# The subset as the OpenAPI document states it, so generated clients and checkers know it. Two rules JSON
# Schema cannot say stay with check_schema alone: ``required`` names only its properties, and a
# ``default`` fits its property.
_NUMBER = {"type": "number"}
OPENAPI_FORM: SchemaObject = {
    "type": "object",
    "required": ["type", "properties"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "object"},
        "properties": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"minLength": 1},
            "additionalProperties": {
                "oneOf": [
                    _property_form(
                        "string",
                        default={"type": "string"},
                        enum={"type": "array", "minItems": 1, "items": {"type": "string"}},
                        maxLength={"type": "integer", "minimum": 1},
                    ),
                    _property_form("number", default=_NUMBER, minimum=_NUMBER, maximum=_NUMBER),
                    _property_form("integer", default={"type": "integer"}, minimum=_NUMBER, maximum=_NUMBER),
                    _property_form("boolean", default={"type": "boolean"}),
                    _property_form(
                        "array",
                        required=["items"],
                        default={"type": "array", "items": {"type": "string"}},
                        items={"const": {"type": "string"}},
                    ),
                ]
            },
        },
        "required": {"type": "array", "items": {"type": "string"}},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "additionalProperties": {"const": False},
    },
}
SCHEMA_KEYS = set(OPENAPI_FORM["properties"])
PROPERTY_FORMS: list[SchemaObject] = OPENAPI_FORM["properties"]["properties"]["additionalProperties"]["oneOf"]
PROPERTY_KEYS = {key for form in PROPERTY_FORMS for key in form["properties"]}


@dataclass(frozen=True)
class Field:
    """One property of a response schema, as a form shows it."""

    name: str
    type: str
    title: str
    description: str
    required: bool
    default: object = None
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value: object) -> bool:
    return _number(value) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))


def check_schema(schema: T) -> T:
    """Raise ``InvalidInput`` unless ``schema`` lies within the subset; returns it."""
    if not isinstance(schema, dict):
        raise InvalidInput("responseSchema must be an object.")
    unknown = set(schema) - SCHEMA_KEYS
    if unknown:
        raise InvalidInput(f"responseSchema does not support {', '.join(sorted(unknown))}.")
    if schema.get("type") != "object":
        raise InvalidInput('responseSchema.type must be "object".')
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        raise InvalidInput("responseSchema.properties must be an object naming at least one property.")
    for name, prop in properties.items():
        _check_property(name, prop)
    required = schema.get("required", [])
    if not isinstance(required, list) or any(name not in properties for name in required):
        raise InvalidInput("responseSchema.required must list names of its properties.")
    for key in ("title", "description"):
        if not isinstance(schema.get(key, ""), str):
            raise InvalidInput(f"responseSchema.{key} must be a string.")
    if schema.get("additionalProperties", False) is not False:
        raise InvalidInput("responseSchema.additionalProperties may only be false.")
    return schema


def _check_property(name: str, prop: object) -> None:
    if not name:
        raise InvalidInput("responseSchema.properties must not name a property with an empty name.")
    where = f"responseSchema.properties.{name}"
    if not isinstance(prop, dict):
        raise InvalidInput(f"{where} must be an object.")
    unknown = set(prop) - PROPERTY_KEYS
    if unknown:
        raise InvalidInput(f"{where} does not support {', '.join(sorted(unknown))}.")
    kind = prop.get("type")
    if kind not in TYPES:
        raise InvalidInput(f"{where}.type must be one of {', '.join(TYPES)}.")
    if "enum" in prop and (
        kind != "string"
        or not isinstance(prop["enum"], list)
        or not prop["enum"]
        or not all(isinstance(value, str) for value in prop["enum"])
    ):
        raise InvalidInput(f"{where}.enum must be a non-empty list of strings on a string property.")
    if kind == "array" and prop.get("items") != {"type": "string"}:
        raise InvalidInput(f'{where}.items must be {{"type": "string"}}.')
    if kind != "array" and "items" in prop:
        raise InvalidInput(f"{where}.items applies to arrays only.")
    for bound in ("minimum", "maximum"):
        if bound in prop and (kind not in ("number", "integer") or not _number(prop[bound])):
            raise InvalidInput(f"{where}.{bound} must be a number on a number or integer property.")
    if "maxLength" in prop:
        limit = prop["maxLength"]
        # A whole number, as JSON Schema's "integer" reads it: 8.0 is 8.
        if kind != "string" or not _whole(limit) or limit < 1:
            raise InvalidInput(f"{where}.maxLength must be a positive integer on a string property.")
    for key in ("title", "description"):
        if not isinstance(prop.get(key, ""), str):
            raise InvalidInput(f"{where}.{key} must be a string.")
    if "default" in prop:
        try:
            check_value(name, prop, prop["default"], field=f"{where}.default")
        except InvalidInput:
            raise InvalidInput(f"{where}.default does not fit the property.") from None


def fields(schema: SchemaObject) -> list[Field]:
    """The schema's properties, in order, as form fields."""
    required = set(schema.get("required", []))
    return [
        Field(
            name=name,
            type=prop["type"],
            title=prop.get("title") or name,
            description=prop.get("description", ""),
            required=name in required,
            default=prop.get("default"),
            enum=tuple(prop.get("enum", ())),
            minimum=prop.get("minimum"),
            maximum=prop.get("maximum"),
            max_length=int(prop["maxLength"]) if "maxLength" in prop else None,
        )
        for name, prop in schema["properties"].items()
    ]


def check_answer(schema: SchemaObject | None, answer: JSON) -> JSON:
    """Raise ``InvalidInput`` naming the field unless ``answer`` is a valid response for ``schema`` (None: free
    text)."""
    if schema is None:
        if not isinstance(answer, str):
            raise InvalidInput("response must be a string: this action has no responseSchema.")
        return answer
    if not isinstance(answer, dict):
        raise InvalidInput("response must be an object matching the action's responseSchema.")
    properties = schema["properties"]
    unknown = sorted(set(answer) - set(properties))
    if unknown:
        raise InvalidInput(f"response.{unknown[0]} is not a property of the responseSchema.")
    for name in schema.get("required", []):
        if name not in answer:
            raise InvalidInput(f"response.{name} is required.")
    for name, value in answer.items():
        check_value(name, properties[name], value)
    return answer


def check_value(name: str, prop: SchemaObject, value: T, field: str | None = None) -> T:
    field = field or f"response.{name}"
    kind = prop["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise InvalidInput(f"{field} must be a string.")
        if prop.get("enum") and value not in prop["enum"]:
            raise InvalidInput(f"{field} must be one of {', '.join(prop['enum'])}.")
        if "maxLength" in prop and len(value) > prop["maxLength"]:
            raise InvalidInput(f"{field} must be at most {prop['maxLength']} characters.")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise InvalidInput(f"{field} must be true or false.")
    elif kind == "array":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise InvalidInput(f"{field} must be a list of strings.")
    else:
        if not _number(value) or (kind == "integer" and not _whole(value)):
            raise InvalidInput(f"{field} must be {'an integer' if kind == 'integer' else 'a number'}.")
        if "minimum" in prop and value < prop["minimum"]:
            raise InvalidInput(f"{field} must be at least {prop['minimum']}.")
        if "maximum" in prop and value > prop["maximum"]:
            raise InvalidInput(f"{field} must be at most {prop['maximum']}.")
    return value
