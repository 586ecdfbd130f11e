"""Time-driven upkeep: the work no request does (docs/operations.md). Reads never write, so an expired action
already reads expired and a session past its retention is simply old; the ``sweep`` command makes the stored state
catch up: it writes expiries down, escalates, deletes sessions past their project's retention (``retention``) and
prunes old Idempotency-Key records and audit rows. The rules themselves stay with the apps that own them."""
