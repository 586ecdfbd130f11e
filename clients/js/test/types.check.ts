// Compiled by `tsc` in `npm test`, never run: the declarations must describe a
// Session the SDK's Runner accepts as transaction-aware, and the client's calls.
import {
  Agent,
  Runner,
  type AgentInputItem,
  type Session,
  type SessionHistoryTransactionAwareSession,
} from '@openai/agents';

import {
  HistoryHubClient,
  HistoryHubError,
  type ClientAction,
  type SessionHistory,
  type SessionHistoryItem,
} from '@historyhub/client';
import { HistoryHubSession } from '@historyhub/client/agents';

const client = new HistoryHubClient({ baseUrl: 'http://127.0.0.1:8000', apiKey: 'key', maxRetries: 2 });
const session = new HistoryHubSession({ client, sessionId: 'support-42', agent: 'supportAgent' });
const standalone = new HistoryHubSession({ baseUrl: 'http://127.0.0.1:8000', apiKey: 'key' });

const asSession: Session = standalone;
const transactional: SessionHistoryTransactionAwareSession = session;
const compacting: NonNullable<Session['replaceHistoryWithCompaction']> = session.replaceHistoryWithCompaction;

export async function usage(agent: Agent): Promise<void> {
  await new Runner().run(agent, 'Where is my order?', { session });
  const items: AgentInputItem[] = await session.getItems(10);
  const history: SessionHistory = await client.history('support-42', { page: 1, pageSize: 25 });
  const first: SessionHistoryItem | undefined = history.items[0];
  const pending: string[] = history.pendingClientActions.map((action) => action.callId);
  const action: ClientAction = await client.waitForClientAction('support-42', 'call_123', { timeoutSeconds: 120 });
  const decided = await client.decideClientAction('support-42', 'call_123', { decision: 'approve' });
  try {
    await client.addItems('support-42', items, { idempotencyKey: 'order-42' });
  } catch (error) {
    if (error instanceof HistoryHubError) {
      const status: number | null = error.status;
      const code: string = error.code;
      void [status, code];
    }
  }
  void [asSession, transactional, compacting, first, pending, action, decided];
}
