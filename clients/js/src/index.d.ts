// Types of the HistoryHub client; field names are the API's (docs/api.md).

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** An item as an agent stored it, verbatim. */
export type StoredItem = Record<string, unknown>;

export declare class HistoryHubError extends Error {
  constructor(status: number | null, code: string, message: string, options?: { cause?: unknown });
  readonly name: 'HistoryHubError';
  /** The HTTP status; null when no answer came ("network_error", "timeout"). */
  status: number | null;
  /** The API's snake_case code, e.g. "session_not_found", or "network_error", "timeout", "http_error". */
  code: string;
}

export interface ClientOptions {
  /** Where HistoryHub runs, e.g. "http://127.0.0.1:8000". */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, in milliseconds; a client-action wait adds its own length. Default 30000. */
  timeoutMs?: number;
  /** Further attempts of an idempotent request after a transient failure. Default 3. */
  maxRetries?: number;
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

export type ClientActionStatus = 'waiting' | 'approved' | 'rejected' | 'completed' | 'failed' | 'expired';

export interface ClientAction {
  sessionId: string;
  callId: string;
  name: string;
  arguments: JsonObject;
  description: string;
  status: ClientActionStatus;
  createdAt: string;
  expiresAt: string | null;
  resolvedAt: string | null;
  /** The dashboard user, or "api key: <name>". */
  resolvedBy: string | null;
  decision: 'approve' | 'reject' | null;
  comment: string | null;
  approvedArguments: JsonObject | null;
  output: unknown;
  isError: boolean | null;
}

export interface NewClientAction {
  callId: string;
  name: string;
  arguments: JsonObject;
  description?: string;
  /** ISO 8601 with a timezone, in the future. */
  expiresAt?: string;
}

export interface ClientActionFilters extends PageOptions {
  status?: ClientActionStatus;
  agent?: string;
  sessionId?: string;
}

export interface Decision {
  decision: 'approve' | 'reject';
  comment?: string;
  /** Edited arguments, on approve. */
  arguments?: JsonObject;
}

export interface ActionResult {
  output: unknown;
  isError?: boolean;
}

export declare class HistoryHubClient {
  constructor(options: ClientOptions);

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
  /** The action once no longer waiting, or as it is after timeoutSeconds (default 60). */
  waitForClientAction(
    sessionId: string,
    callId: string,
    options?: { timeoutSeconds?: number } & RequestOptions,
  ): Promise<ClientAction>;
  submitClientActionResult(sessionId: string, callId: string, result: ActionResult, options?: RequestOptions): Promise<ClientAction>;
  decideClientAction(sessionId: string, callId: string, decision: Decision, options?: RequestOptions): Promise<ClientAction>;
}
