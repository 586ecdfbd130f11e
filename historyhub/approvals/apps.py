import warnings

from django.apps import AppConfig
from joserfc.errors import SecurityWarning


class ApprovalsConfig(AppConfig):
    name = "historyhub.approvals"
    label = "approvals"
    verbose_name = "Approvals"

    def ready(self) -> None:
        # A person deactivated, made or unmade superuser, or deleted is noticed whatever saved them.
        from historyhub.approvals import eligibility, policies
        from historyhub.history import governance
        from historyhub.projects import member_changes

        # History opens client actions without importing approvals (it sits below): the policy that governs each
        # is approvals' to find.
        governance.governed_by(policies.govern)

        # Projects changes members, roles and groups without importing approvals (it sits below): approvals
        # refuses a change that leaves a policy nobody can satisfy, reviews waiting actions after one, and keeps a
        # group its policies name from being deleted.
        member_changes.guard_with(eligibility.keeping_policies)
        member_changes.group_used_by(policies.uses_of_group)

        # Receipts are signed with "EdDSA" (docs/api.md, "Receipts"): the name every JOSE library verifies today.
        # joserfc warns on each use that RFC 9864 deprecates it for "Ed25519", the same signature under a name few
        # verifiers know yet; set here, at start-up, the filter holds in every process and thread.
        warnings.filterwarnings("ignore", "EdDSA is deprecated via RFC 9864", SecurityWarning)
