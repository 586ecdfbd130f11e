// Types of the HistoryHub client; field names are the API's (docs/api.md).

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** An item as an agent stored it, verbatim. */
export type StoredItem = Record<string, unknown>;

export declare class HistoryHubError extends Error {
  constructor(status: number | null, code: string, message: string, options?: { cause?: unknown });
  /** The class's name: "HistoryHubError", or that of one of the execution claim's refusals below. */
  readonly name: 'HistoryHubError' | 'ExecutionRefusedError' | 'NotApprovedError' | 'ArgumentsMismatchError' | 'AlreadyExecutedError';
  /** The HTTP status; null when no answer came ("connection_failed"). */
  status: number | null;
  /**
   * The API's snake_case code, e.g. "session_not_found"; "connection_failed" when no answer came,
   * "invalid_answer" for an answer that is not JSON, "http_error" for an error answer without the API's envelope.
   */
  code: string;
}

/** A refused execution claim (POST …/execution answered 409): the tool must not run. */
export declare class ExecutionRefusedError extends HistoryHubError {
  readonly name: 'ExecutionRefusedError' | 'NotApprovedError' | 'ArgumentsMismatchError' | 'AlreadyExecutedError';
  status: 409;
  code: ExecutionRefusal;
}

/** 409 `not_approved`: no decision given on HistoryHub approved the action. */
export declare class NotApprovedError extends ExecutionRefusedError {
  readonly name: 'NotApprovedError';
  code: 'not_approved';
}

/** 409 `arguments_mismatch`: not the approved arguments' digest; recorded on the card and in the audit log. */
export declare class ArgumentsMismatchError extends ExecutionRefusedError {
  readonly name: 'ArgumentsMismatchError';
  code: 'arguments_mismatch';
}

/** 409 `already_executed`: the action's one execution was claimed before. */
export declare class AlreadyExecutedError extends ExecutionRefusedError {
  readonly name: 'AlreadyExecutedError';
  code: 'already_executed';
}

/** Why HistoryHub refused an execution claim. */
export type ExecutionRefusal = 'not_approved' | 'arguments_mismatch' | 'already_executed';

/** RFC 8785 canonical JSON of a JSON value; TypeError for anything JSON cannot hold (NaN, undefined, a lone surrogate…). */
export declare function canonicalJson(value: JsonValue): string;
/** "sha256:" + the lowercase hex SHA-256 of the value's canonical JSON: the server's argumentsDigest for these arguments. */
export declare function argumentsDigest(value: JsonValue): string;

export interface ClientOptions {
  /** Where HistoryHub runs, e.g. "http://127.0.0.1:8000". */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, in milliseconds; a client-action wait adds its own length. Default 30000. */
  timeoutMs?: number;
  /** Further attempts of an idempotent request after a transient failure. Default 4 (five tries in all). */
  maxRetries?: number;
  /** Kept-alive connections ordinary calls share (long polls have their own pool). Default 10. */
  maxConnections?: number;
}

export interface RequestOptions {
  /** For writes: the Idempotency-Key to send (default: a fresh UUID), or null to send none. */
  idempotencyKey?: string | null;
  signal?: AbortSignal;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
  hasMore: boolean;
}

export interface PageOptions {
  page?: number;
  pageSize?: number;
}

export type SessionStatus = 'active' | 'paused' | 'completed';
export type RunStatus =
  | 'running'
  | 'waiting_for_subagent'
  | 'waiting_for_client_action'
  | 'paused'
  | 'completed'
  | 'failed';
export type Metadata = Record<string, string | number | boolean | null>;

export interface PendingClientAction {
  callId: string;
  name: string;
  arguments: JsonObject;
}

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface SessionSnapshot {
  sessionId: string;
  agent: string;
  name: string | null;
  status: SessionStatus;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
  runStatus: RunStatus | null;
  pendingClientActions: PendingClientAction[];
  lineage: { origin: 'delegated'; parentAgent: string; parentSessionId: string; parentCallId: string } | null;
  usage: Usage | null;
  itemCount: number;
}

export interface NewSession {
  /** Generated ("ses_…") when absent. */
  sessionId?: string;
  agent: string;
  name?: string;
  metadata?: Metadata;
  parentSessionId?: string;
  parentCallId?: string;
}

export interface SessionChanges {
  name?: string;
  metadata?: Metadata;
  status?: SessionStatus;
  runStatus?: RunStatus | null;
}

export interface SessionFilters extends PageOptions {
  agent?: string;
  status?: SessionStatus;
  runStatus?: RunStatus;
  /** Matches session id, name, agent, metadata values and message text. */
  q?: string;
}

export type MessageContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'video' | 'audio' | 'url'; mimeType: string; fileUri: string }
  | { type: 'file'; filePath: string; mimeType: string };

export interface EvaluationMetric {
  [key: string]: JsonValue;
}

/** One item of the timeline, as Orcha's SessionHistoryItem. */
export interface SessionHistoryItem {
  id: string;
  type: 'message' | 'action' | 'client_action' | 'subagent' | 'skill' | 'evaluation' | 'session_completed';
  createdAt: string;
  role?: 'user' | 'assistant';
  content?: MessageContent[];
  name?: string;
  status?: 'running' | 'waiting' | 'paused' | 'completed' | 'failed';
  summary?: string;
  callId?: string;
  childSessionId?: string;
  arguments?: Record<string, unknown>;
  durationMs?: number;
  usage?: Usage;
  metrics?: EvaluationMetric[];
}

/** Orcha's SessionHistory: the snapshot and one page of history items (page 1 is the newest). */
export type SessionHistory = SessionSnapshot & Page<SessionHistoryItem>;

export type HistoryTransaction =
  | { type: 'append_items'; items: StoredItem[] }
  | { type: 'replace_suffix'; expectedSuffix: StoredItem[]; replacement: StoredItem[] };

export interface TurnEntry {
  kind: 'turn';
  id: string;
  sessionId: string;
  /** Epoch milliseconds. */
  timestamp: number;
  userIntent: string;
  assistantMessage: string;
}

export interface InjectionEntry {
  kind: 'injection';
  id: string;
  sessionId: string;
  timestamp: number;
  content: string;
}

export type ResponseLookup =
  | { result: 'hit'; entry: TurnEntry; items: StoredItem[] }
  | { result: 'miss' }
  | { result: 'kind_mismatch'; kind: string };

export interface AgentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
}

export type ClientActionStatus =
  | 'waiting'
  | 'approved'
  | 'rejected'
  | 'answered'
  | 'dismissed'
  | 'completed'
  | 'failed'
  | 'expired';
/** What a person may answer an action with; `edit` is an approval with changed arguments. */
export type AllowedResponse = 'approve' | 'edit' | 'reject' | 'respond' | 'dismiss';

export interface ClientAction {
  sessionId: string;
  callId: string;
  name: string;
  arguments: JsonObject;
  /** "sha256:" + the lowercase hex SHA-256 of the arguments' RFC 8785 canonical JSON (argumentsDigest()); null when JCS cannot write them. */
  argumentsDigest: string | null;
  description: string;
  status: ClientActionStatus;
  createdAt: string;
  expiresAt: string | null;
  resolvedAt: string | null;
  /** The dashboard user, "api key: <name>", or "agent (reported)" when the agent's own items settled it. */
  resolvedBy: string | null;
  decision: Decision['decision'] | null;
  comment: string | null;
  approvedArguments: JsonObject | null;
  /** The digest of approvedArguments: null until approved, argumentsDigest when approved unchanged. */
  approvedArgumentsDigest: string | null;
  /** The person's answer, on respond. */
  response?: JsonValue | null;
  output: unknown;
  isError: boolean | null;
  allowedResponses?: AllowedResponse[];
  responseSchema?: JsonObject | null;
  /** When the agent's side claimed its execution (POST …/execution); null until then. */
  executedAt: string | null;
  /** Settled as the agent's own items reported it: no decision was given here. */
  reported?: boolean;
  /** Imported already resolved: its record is the export's, and it is never decided here. */
  imported?: boolean;
}

export interface NewClientAction {
  callId: string;
  name: string;
  arguments: JsonObject;
  description?: string;
  /** ISO 8601 with a timezone, in the future. */
  expiresAt?: string;
  /** Default ["approve", "edit", "reject"]. */
  allowedResponses?: AllowedResponse[];
  /** The JSON Schema a respond's answer must follow; without one, the answer is free text. */
  responseSchema?: JsonObject;
}

export interface ClientActionFilters extends PageOptions {
  status?: ClientActionStatus;
  agent?: string;
  sessionId?: string;
}

export interface Decision {
  decision: 'approve' | 'reject' | 'respond' | 'dismiss';
  comment?: string;
  /** Edited arguments, on approve. */
  arguments?: JsonObject;
  /** The answer, on respond: text, or an object valid against the action's responseSchema. */
  response?: JsonValue;
}

/** The one execution of an approved action, claimed. */
export interface ExecutionClaim {
  executedAt: string;
  argumentsDigest: string;
}

export interface ActionResult {
  output: unknown;
  isError?: boolean;
}

/** A parked run as lists show it: without its state. */
export interface RunSummary {
  sessionId: string;
  runId: string;
  /** The starting agent's name: a resumer supplies the agent of that name. */
  agent: string;
  /** The awaited client actions, in the order they were opened. */
  callIds: string[];
  /** Every awaited action decided (or expired), and no resumer holds it. */
  ready: boolean;
  claimedUntil: string | null;
  /** The API key that claimed it: "api key: <name>". */
  claimedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Run extends RunSummary {
  /** The agent SDK's serialised run state, kept verbatim. */
  state: string;
}

export interface ParkedRun {
  agent: string;
  state: string;
  /** 1-100 client actions of the session. */
  callIds: string[];
}

export interface RunFilters extends PageOptions {
  ready?: boolean;
  agent?: string;
  sessionId?: string;
}

export declare class HistoryHubClient {
  constructor(options: ClientOptions);
  /** Close the kept-alive connections. */
  close(): void;

  /** One API call; `segments` are percent-encoded here. Answers the JSON (undefined for 204). */
  request<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    segments: string[],
    options?: RequestOptions & { query?: Record<string, string | number | boolean | null | undefined>; body?: unknown },
  ): Promise<T>;

  createSession(fields: NewSession, options?: RequestOptions): Promise<SessionSnapshot>;
  getSession(sessionId: string, options?: RequestOptions): Promise<SessionSnapshot>;
  listSessions(filters?: SessionFilters & RequestOptions): Promise<Page<SessionSnapshot>>;
  updateSession(sessionId: string, changes: SessionChanges, options?: RequestOptions): Promise<SessionSnapshot>;
  deleteSession(sessionId: string, options?: RequestOptions): Promise<void>;
  history(sessionId: string, options?: PageOptions & RequestOptions): Promise<SessionHistory>;

  getItems(sessionId: string, options?: { limit?: number } & RequestOptions): Promise<StoredItem[]>;
  addItems(
    sessionId: string,
    items: object[],
    options?: { agent?: string; skipExistingIds?: boolean } & RequestOptions,
  ): Promise<{ inserted: boolean[]; itemCount: number }>;
  replaceItems(
    sessionId: string,
    items: object[],
    options?: { agent?: string } & RequestOptions,
  ): Promise<{ itemCount: number }>;
  popItem(sessionId: string, options?: RequestOptions): Promise<StoredItem | null>;
  clearItems(sessionId: string, options?: RequestOptions): Promise<void>;
  compact(sessionId: string, items: object[], options?: RequestOptions): Promise<{ changed: boolean; itemCount: number }>;
  applyTransaction(
    sessionId: string,
    operationId: string,
    transaction: HistoryTransaction,
    options?: RequestOptions,
  ): Promise<boolean>;
  findResponse(sessionId: string, messageId: string, options?: RequestOptions): Promise<ResponseLookup>;

  entries(sessionId: string, options?: RequestOptions): Promise<Array<TurnEntry | InjectionEntry>>;
  addInjection(sessionId: string, injection: { content: string; id?: string }, options?: RequestOptions): Promise<InjectionEntry>;
  getMessages(sessionId: string, options?: RequestOptions): Promise<AgentMessage[]>;
  setMessages(
    sessionId: string,
    messages: AgentMessage[],
    options?: { agent?: string } & RequestOptions,
  ): Promise<{ itemCount: number }>;

  openClientAction(sessionId: string, action: NewClientAction, options?: RequestOptions): Promise<ClientAction>;
  listClientActions(filters?: ClientActionFilters & RequestOptions): Promise<Page<ClientAction>>;
  getClientAction(sessionId: string, callId: string, options?: RequestOptions): Promise<ClientAction>;
  /** The action once no longer waiting (or past its expiresAt), or as it is after timeoutSeconds (default: no limit). */
  waitForClientAction(
    sessionId: string,
    callId: string,
    options?: { timeoutSeconds?: number } & RequestOptions,
  ): Promise<ClientAction>;
  submitClientActionResult(sessionId: string, callId: string, result: ActionResult, options?: RequestOptions): Promise<ClientAction>;
  decideClientAction(sessionId: string, callId: string, decision: Decision, options?: RequestOptions): Promise<ClientAction>;
  /**
   * Claim the one execution of an approved action, just before running it, with the digest of the arguments about to
   * run. Rejects with NotApprovedError, ArgumentsMismatchError or AlreadyExecutedError: then the tool must not run.
   */
  claimExecution(
    sessionId: string,
    callId: string,
    claim: { argumentsDigest: string },
    options?: RequestOptions,
  ): Promise<ExecutionClaim>;

  /** 201 when new, 200 when it replaced the run's state (a claim on it ends). */
  parkRun(sessionId: string, runId: string, run: ParkedRun, options?: RequestOptions): Promise<Run>;
  getRun(sessionId: string, runId: string, options?: RequestOptions): Promise<Run>;
  deleteRun(sessionId: string, runId: string, options?: RequestOptions): Promise<void>;
  listRuns(filters?: RunFilters & RequestOptions): Promise<Page<RunSummary>>;
  /** 409 run_claimed while another holds it, run_not_ready while an action still waits. */
  claimRun(sessionId: string, runId: string, options?: { leaseSeconds?: number } & RequestOptions): Promise<Run>;
}
