"""The errors of the API (docs/api.md, "Errors"): a code, an HTTP status and a human sentence.

The domain raises them; the API turns them into the one error envelope
(``historyhub.faults.error_response``) and the dashboard into a message for the person.
"""

from historyhub.lib import session_keys


class DomainError(Exception):
    code = "invalid_input"
    status = 400
    retry_after: int | None = None  # seconds after which asking again may succeed, sent as Retry-After

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(DomainError):
    code, status = "invalid_input", 400


class InvalidHistory(DomainError):
    code, status = "invalid_history", 400


class Forbidden(DomainError):
    code, status = "forbidden", 403


class SessionNotFound(DomainError):
    code, status = "session_not_found", 404

    def __init__(self, key: str) -> None:
        # The id its project knows it by: a caller never sees another project's name in a key.
        super().__init__(f"Session {session_keys.session_id_of(key)!r} was not found.")


class NotFound(DomainError):
    code, status = "not_found", 404


class SessionConflict(DomainError):
    code, status = "session_conflict", 409


class OperationConflict(DomainError):
    code, status = "operation_conflict", 409

    def __init__(self) -> None:
        super().__init__("Session history operation was already applied with a different transaction.")


class SuffixMismatch(DomainError):
    code, status = "suffix_mismatch", 409

    def __init__(self) -> None:
        super().__init__("Session history suffix no longer matches the transaction precondition.")


class ActionResultConflict(DomainError):
    code, status = "action_result_conflict", 409


class NotApproved(DomainError):
    """An execution claim of an action that no decision approved (docs/api.md, "Executing what was approved")."""

    code, status = "not_approved", 409


class ArgumentsMismatch(DomainError):
    code, status = "arguments_mismatch", 409


class AlreadyExecuted(DomainError):
    code, status = "already_executed", 409


class PayloadTooLarge(DomainError):
    code, status = "payload_too_large", 413


class DecisionNotAllowed(DomainError):
    code, status = "decision_not_allowed", 409


class Restarting(DomainError):
    """A wait cut short because this server is shutting down; another worker answers the next ask."""

    code, status, retry_after = "service_unavailable", 503, 1

    def __init__(self) -> None:
        super().__init__("The server is restarting; ask again.")


class TooManyWaits(DomainError):
    """An API key already holding HISTORYHUB_MAX_WAITS_PER_KEY waits in the installation."""

    code, status, retry_after = "rate_limited", 429, 1

    def __init__(self, limit: int) -> None:
        super().__init__(f"This API key already holds {limit} waits; ask again once one of them has answered.")
