"""The errors the client raises: HistoryHubError, and for a refused execution claim one class per reason."""


class HistoryHubError(Exception):
    """HistoryHub answered with an error, or could not be reached.

    ``status`` is the HTTP status (``None`` when no answer arrived), ``code``
    the API's error code (``unauthorized``, ``session_not_found``, …, or
    ``connection_failed`` when no answer arrived) and ``message`` its sentence.
    """

    def __init__(self, status: int | None, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}" if status is not None else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class ExecutionRefusedError(HistoryHubError):
    """HistoryHub refused to let an approved action run (409 from ``…/execution``): the tool must not run.

    One subclass per reason, each named by its API code (docs/api.md, "Executing what was approved, once").
    """


class NotApprovedError(ExecutionRefusedError):
    """``not_approved``: no decision approved the action (waiting, rejected, answered, reported by the agent…)."""


class ArgumentsMismatchError(ExecutionRefusedError):
    """``arguments_mismatch``: the arguments about to run are not the approved ones (the attempt is audited)."""


class AlreadyExecutedError(ExecutionRefusedError):
    """``already_executed``: the action's one execution was claimed already; running it again would run it twice."""


_BY_CODE: dict[str, type[HistoryHubError]] = {
    "not_approved": NotApprovedError,
    "arguments_mismatch": ArgumentsMismatchError,
    "already_executed": AlreadyExecutedError,
}


def error_for(status: int | None, code: str, message: str) -> HistoryHubError:
    """The error to raise for an answer with this code: the typed one where the code has its own class."""
    return _BY_CODE.get(code, HistoryHubError)(status, code, message)
