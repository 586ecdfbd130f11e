"""Work to run once the open transaction commits, whose failure must not undo the answer to a committed change."""

from collections.abc import Callable
from functools import partial, update_wrapper
from typing import Any

from django.db import transaction


def after_commit_robust(func: Callable[..., Any], *args: Any) -> None:
    """``func(*args)`` once the open transaction commits (now, outside one); an exception it raises is logged by
    Django, not raised. Django logs it by the hook's ``__qualname__``, which a bare ``partial`` lacks: the log
    line itself then raised AttributeError out of the commit, a 500 for a change already committed."""
    transaction.on_commit(update_wrapper(partial(func, *args), func), robust=True)
