"""The schema bases every API answer and request is built from (docs/api.md, "Conventions"): answers read
from domain objects (``Out``), the one error body, pages, and the text and time fields every app's schemas share.
"""

from datetime import datetime
from typing import Annotated, Any, cast

from ninja import Field, Schema
from pydantic import AliasGenerator, ConfigDict, PlainSerializer, WithJsonSchema
from pydantic.alias_generators import to_snake
from pydantic.json_schema import JsonDict

from historyhub.lib.times import format_time
from historyhub.lib.validation import MAX_ID_LENGTH, MAX_PAGE, MAX_PAGE_SIZE, SESSION_ID


def example(request: dict[str, Any], **config: Any) -> ConfigDict:
    """A schema's config with ``request`` as its OpenAPI example: a valid request of the walk-through in
    docs/api.md, so "Try it out" in /api/docs succeeds as shown (tests/api/test_openapi_examples.py)."""
    extra = {**config.pop("json_schema_extra", {}), "examples": [request]}
    return cast(ConfigDict, {**config, "json_schema_extra": extra})


class Out(Schema):
    """An answer read from a domain object: ``itemCount`` reads ``item_count``."""

    model_config = ConfigDict(alias_generator=AliasGenerator(validation_alias=to_snake), populate_by_name=True)


SESSION_ID_PATTERN = f"^{SESSION_ID.pattern}$"

# Filters and path ids meet text columns in queries, and PostgreSQL refuses NUL
# there. Strings in bodies are checked by the domain (validation.text).
WITHOUT_NUL = r"^[^\x00]*$"
# What a text column can keep exactly: no NUL and no unpaired surrogate (historyhub.lib.jsonvalues).
# Documented only (the domain refuses the rest with its own message), and only NUL: a pattern naming
# surrogates is not a regular expression every JSON Schema validator can compile. The API's
# description states both (historyhub.api).
COLUMN_TEXT_SCHEMA = {"pattern": WITHOUT_NUL}

Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH, json_schema_extra=COLUMN_TEXT_SCHEMA)]
Text = Annotated[str, Field(json_schema_extra=COLUMN_TEXT_SCHEMA)]
Filter = Annotated[str, Field(pattern=WITHOUT_NUL)]
TIMESTAMP_SCHEMA: JsonDict = {"type": "string", "format": "date-time", "examples": ["2026-09-28T12:00:04Z"]}
# A time the caller sends (the domain reads and checks it) …
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"}, examples=["2026-09-28T12:00:04Z"])]
# … and one the API writes: ISO 8601 in UTC with Z.
Time = Annotated[datetime, PlainSerializer(format_time, return_type=str), WithJsonSchema(TIMESTAMP_SCHEMA)]
# Out of range, either answers the contract's one pagination message (historyhub.api).
PageNumber = Annotated[int, Field(ge=1, le=MAX_PAGE)]
PageSize = Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE)]


class ErrorDetail(Schema):
    code: str = Field(examples=["invalid_input"])
    message: str


class Error(Schema):
    error: ErrorDetail


class Page(Out):
    page: int
    pageSize: int
    total: int
    hasMore: bool


class Pagination(Schema):
    page: PageNumber = 1
    pageSize: PageSize = 50
