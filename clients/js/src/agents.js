// `@historyhub/client/agents`: what needs `@openai/agents` — the Session, and
// human approval of tools (runWithApprovals, resumeDecidedRuns, approvalTool).
export { HistoryHubSession } from './session.js';
export {
  ARGUMENTS_MISMATCH,
  DISMISSED,
  EXPIRED,
  NO_DIGEST,
  REJECTED,
  WITHDRAWN,
  alreadyExecuted,
  approvalTool,
  cannotEdit,
  notApproved,
  resumeDecidedRuns,
  runWithApprovals,
} from './approvals.js';
