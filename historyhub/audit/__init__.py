"""The audit log (docs/data.md, "Audit log"): who changed what outside the agent protocol, per project.

Low in the stack: every app records here, through ``historyhub.audit.log.record``, and this app knows none of
their vocabulary (each caller names its own actions and passes its own details).
"""
