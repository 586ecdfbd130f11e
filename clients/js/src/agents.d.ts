import type {
  Agent,
  AgentInputItem,
  NonStreamRunOptions,
  RunResult,
  Runner,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
  tool,
} from '@openai/agents-core';

import type {
  AllowedResponse,
  ClientAction,
  ClientOptions,
  ExecutionRefusal,
  HistoryHubClient,
  JsonObject,
} from './index.js';

export interface HistoryHubSessionOptions extends Partial<ClientOptions> {
  /** A client to share; otherwise `baseUrl` and `apiKey` make one. */
  client?: HistoryHubClient;
  /** 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit; generated ("ses_…") when absent. */
  sessionId?: string;
  /** The agent of the session when this creates it. Default "default" (runWithApprovals: the agent it runs). */
  agent?: string;
}

/** An `@openai/agents` Session kept in HistoryHub, with transactions and compaction. */
export declare class HistoryHubSession implements SessionHistoryTransactionAwareSession {
  constructor(options: HistoryHubSessionOptions);
  /** The client this session talks through. */
  readonly client: HistoryHubClient;
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  clearSession(): Promise<void>;
  replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void>;
  applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void>;
}

/** The SDK's `tool()` with `needsApproval: true`, whose tool runs with the arguments an approver approved. */
export declare const approvalTool: typeof tool;

/** How a run waits for people; shared by runWithApprovals and resumeDecidedRuns. */
export interface ApprovalOptions<TContext = undefined, TAgent extends Agent<any, any> = Agent<any, any>>
  extends Omit<NonStreamRunOptions<TContext, TAgent>, 'session' | 'stream'> {
  /** Seconds from opening until an approval request expires (a rejection). Default: never. */
  expiresInSeconds?: number;
  /** Seconds this process waits for decisions before it returns the interrupted result, the run parked. */
  waitSeconds?: number;
  /** What people may answer (default: the server's, approve, edit and reject). */
  allowedResponses?: AllowedResponse[];
  /** Called for each opened action, to tell a person. */
  onApprovalRequest?: (action: ClientAction) => void | Promise<void>;
  /** The Runner to run with; default the SDK's own `run`. */
  runner?: Runner;
}

export interface RunWithApprovalsOptions<TContext = undefined, TAgent extends Agent<any, any> = Agent<any, any>>
  extends ApprovalOptions<TContext, TAgent> {
  session: HistoryHubSession;
  /** 1-200 characters of A-Z a-z 0-9 . _ : @ -; default run_<uuid>. */
  runId?: string;
  /** Default: until people decide. */
  waitSeconds?: number;
}

/** `runner.run(agent, input, {session})` with HistoryHub as the approver of its needsApproval tools. */
export declare function runWithApprovals<TAgent extends Agent<any, any>, TContext = undefined>(
  agent: TAgent,
  input: string | AgentInputItem[],
  options: RunWithApprovalsOptions<TContext, TAgent>,
): Promise<RunResult<TContext, TAgent>>;

export interface ResumeOptions extends ApprovalOptions<any, Agent<any, any>> {
  /** How long a claim holds, 1-86400 seconds; default the server's, 600. */
  leaseSeconds?: number;
  /** Default 0: a run that asks for new approvals is parked again at once. */
  waitSeconds?: number;
}

/**
 * An approved call that did not run: its execution claim answered 409 (`code` the API's), or its arguments have
 * no canonical JSON to claim with (`no_digest`). The model read `message` in the tool's place.
 */
export interface RefusedExecution {
  callId: string;
  code: ExecutionRefusal | 'no_digest';
  message: string;
}

/** One run resumeDecidedRuns took: its result, or the error it failed with. */
export interface ResumedRun {
  sessionId: string;
  runId: string;
  result: RunResult<any, Agent<any, any>> | undefined;
  error: unknown;
  /** The approved calls whose tool did not run because HistoryHub refused their execution claim. */
  refused: RefusedExecution[];
}

/** Resume every parked run of these starting agents whose approvals have all been decided. */
export declare function resumeDecidedRuns(
  client: HistoryHubClient,
  agents: Agent<any, any>[],
  options?: ResumeOptions,
): Promise<ResumedRun[]>;

/** What the model reads instead of a tool's output. */
export declare const REJECTED: string;
export declare const EXPIRED: string;
export declare const WITHDRAWN: string;
export declare const DISMISSED: string;
/** What the model reads when the execution claim answered 409 arguments_mismatch. */
export declare const ARGUMENTS_MISMATCH: string;
/** What the model reads for arguments that have no canonical JSON (a lone surrogate): no claim can match them. */
export declare const NO_DIGEST: string;
/** What the model reads when the claim answered 409 already_executed; `detail` is HistoryHub's message. */
export declare function alreadyExecuted(detail: string): string;
/** What the model reads when the claim answered 409 not_approved; `detail` is HistoryHub's message. */
export declare function notApproved(detail: string): string;
export declare function cannotEdit(approvedArguments: JsonObject, name: string): string;
