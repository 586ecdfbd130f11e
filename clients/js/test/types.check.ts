// Compiled by `tsc` in `npm test`, never run: the declarations must describe a
// Session the SDK's Runner accepts as transaction-aware, and the client's calls.
import {
  Agent,
  Runner,
  type AgentInputItem,
  type FunctionTool,
  type Session,
  type SessionHistoryTransactionAwareSession,
} from '@openai/agents';
import { z } from 'zod';

import {
  HistoryHubClient,
  HistoryHubError,
  type ClientAction,
  type Run,
  type RunSummary,
  type SessionHistory,
  type SessionHistoryItem,
} from '@historyhub/client';
import {
  EXPIRED,
  HistoryHubSession,
  approvalTool,
  cannotEdit,
  resumeDecidedRuns,
  runWithApprovals,
  type ResumedRun,
} from '@historyhub/client/agents';

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

const refund = approvalTool({
  name: 'issue_refund',
  description: 'Refund part of an order.',
  parameters: z.object({ order: z.number(), amount: z.number() }),
  execute: async ({ order, amount }) => `Refunded ${amount} on order ${order}.`,
});

const asTool: FunctionTool<any, any, any> = refund;

export async function approvals(): Promise<void> {
  const withTools = new Agent({ name: 'support', instructions: 'Help with refunds.', tools: [refund] });
  const result = await runWithApprovals(withTools, 'Refund 25 on order 1234', {
    session,
    runner: new Runner({ tracingDisabled: true }),
    expiresInSeconds: 3600,
    waitSeconds: 30,
    allowedResponses: ['approve', 'reject', 'respond'],
    onApprovalRequest: (opened: ClientAction) => console.log(opened.callId, opened.allowedResponses),
    maxTurns: 5,
  });
  const pending: number = result.interruptions.length;
  const answer: string | undefined = result.finalOutput;
  const resumed: ResumedRun[] = await resumeDecidedRuns(client, [withTools], { leaseSeconds: 900 });
  const parked: Run = await client.claimRun('support-42', 'run-1', { leaseSeconds: 60 });
  const ready: RunSummary[] = (await client.listRuns({ ready: true, agent: withTools.name })).items;
  await client.decideClientAction('support-42', 'call_1', { decision: 'respond', response: 'Refund 10 instead.' });
  const told: string = cannotEdit({ amount: 20 }, 'issue_refund') + EXPIRED;
  client.close();
  void [pending, answer, resumed, parked, ready, told, asTool];
}

