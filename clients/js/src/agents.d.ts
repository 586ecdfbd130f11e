import type {
  AgentInputItem,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents-core';

import type { ClientOptions, HistoryHubClient } from './index.js';

export interface HistoryHubSessionOptions extends Partial<ClientOptions> {
  /** A client to share; otherwise `baseUrl` and `apiKey` make one. */
  client?: HistoryHubClient;
  /** 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit; generated ("ses_…") when absent. */
  sessionId?: string;
  /** The agent of the session when this creates it. Default "default". */
  agent?: string;
}

/** An `@openai/agents` Session kept in HistoryHub, with transactions and compaction. */
export declare class HistoryHubSession implements SessionHistoryTransactionAwareSession {
  constructor(options: HistoryHubSessionOptions);
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  clearSession(): Promise<void>;
  replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void>;
  applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void>;
}
