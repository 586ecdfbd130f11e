"""What every bridge does before it runs an approved tool: claim its one execution (docs/api.md, "Executing what
was approved, once").

The bridge names the arguments it is about to run (the approver's edited ones, when it runs those); HistoryHub
lets the first claim of exactly the approved arguments through and refuses every other. On a refusal the tool
does not run, and the model reads why in the tool's place.
"""

from typing import NamedTuple

from historyhub_client.digests import DigestError, JSONValue, arguments_digest
from historyhub_client.errors import AlreadyExecutedError, ArgumentsMismatchError, ExecutionRefusedError
from historyhub_client.http import AsyncHistoryHubClient

MISMATCH = (
    "HistoryHub refused to run this call: its arguments are not the ones a person approved, so the tool did not run."
)
ALREADY_EXECUTED = "HistoryHub refused to run this call again: it ran already ({detail}), so it did not run twice."
NOT_APPROVED = "HistoryHub refused to run this call: no decision approved it ({detail}), so the tool did not run."
NO_DIGEST = "These arguments have no canonical JSON, so nobody can show they were approved; the tool did not run."


class Refusal(NamedTuple):
    """Why an approved call may not run: ``code`` (the API's, or ``no_digest``) and ``message``, the sentence the
    model reads in the tool's place."""

    code: str
    message: str


async def claim(hub: AsyncHistoryHubClient, session_id: str, call_id: str, arguments: JSONValue) -> Refusal | None:
    """Claim the execution of ``call_id`` with ``arguments``: None when the tool may run now, else the Refusal.
    Any other error of HistoryHub is raised: a tool never runs without its claim answered."""
    try:
        digest = arguments_digest(arguments)
    except DigestError:
        return Refusal("no_digest", NO_DIGEST)
    try:
        await hub.claim_execution(session_id, call_id, digest)
    except ExecutionRefusedError as refused:
        return Refusal(refused.code, refusal(refused))
    return None


def refusal(error: ExecutionRefusedError) -> str:
    """The model's sentence for a refused claim, naming the reason."""
    if isinstance(error, ArgumentsMismatchError):
        return MISMATCH
    if isinstance(error, AlreadyExecutedError):
        return ALREADY_EXECUTED.format(detail=error.message)
    return NOT_APPROVED.format(detail=error.message)
