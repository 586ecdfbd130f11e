// `@historyhub/client/agents`: what needs `@openai/agents` — the Session, and
// human approval of tools (runWithApprovals, resumeDecidedRuns, approvalTool).
export { HistoryHubSession } from './session.js';
export {
  DISMISSED,
  EXPIRED,
  REJECTED,
  WITHDRAWN,
  approvalTool,
  cannotEdit,
  resumeDecidedRuns,
  runWithApprovals,
} from './approvals.js';
