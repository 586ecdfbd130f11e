"""The wire shapes of erasure, export and import (docs/api.md, "Data")."""

from datetime import datetime

from ninja import Field, Schema

from historyhub.lib.schemas import SESSION_ID_PATTERN, Identifier, Timestamp, example


class ErasureIn(Schema):
    model_config = example({"metadataKey": "customer", "metadataValue": "Ingrid"})

    metadataKey: Identifier = Field(description="The metadata key to match, e.g. customerId.")
    metadataValue: str | float | bool | None = Field(
        description="The value to match exactly (a string, number, boolean or null; 1 and 1.0 are one number)."
    )


class ErasureOut(Schema):
    sessionsDeleted: int = Field(description="Sessions deleted, their child sessions included.")


class ExportQuery(Schema):
    agent: Identifier | None = Field(None, description="Only this agent's sessions.")
    updatedSince: Timestamp | None = Field(None, description="Only sessions updated at or after this time (ISO 8601).")
    sessionId: str | None = Field(None, pattern=SESSION_ID_PATTERN, description="Only this session.")

    def filters(self):
        """The filters given, as the audit log records them."""
        given = {"agent": self.agent, "updatedSince": self.updatedSince, "sessionId": self.sessionId}
        return {
            name: value if not isinstance(value, datetime) else value.isoformat()
            for name, value in given.items()
            if value is not None
        }


class ImportOut(Schema):
    imported: int = Field(description="Sessions imported.")
