// Compiled by `tsc` (`npm run typecheck`, the first step of `npm test`), never
// run: the declarations must describe a Session the SDK's Runner accepts as
// transaction-aware, and the client's calls. Each `@ts-expect-error` is a
// misuse the declarations must refuse: a declaration loosened so that it no
// longer does fails the check. test/declarations.test.js checks that what is
// declared here is what the modules export.
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
  AlreadyExecutedError,
  ArgumentsMismatchError,
  ExecutionRefusedError,
  HistoryHubClient,
  HistoryHubError,
  NotApprovedError,
  argumentsDigest,
  canonicalJson,
  type ClientAction,
  type ExecutionClaim,
  type ExecutionRefusal,
  type Run,
  type RunSummary,
  type SessionHistory,
  type SessionHistoryItem,
} from '@historyhub/client';
import {
  ARGUMENTS_MISMATCH,
  EXPIRED,
  NO_DIGEST,
  alreadyExecuted,
  notApproved,
  HistoryHubSession,
  approvalTool,
  cannotEdit,
  resumeDecidedRuns,
  runWithApprovals,
  type RefusedExecution,
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


export async function execution(agent: Agent): Promise<void> {
  const digest: string = argumentsDigest({ order: 1234, amount: 25, lines: [1, 2.5], note: null, paid: false });
  const text: string = canonicalJson([true, 'x', { a: 1 }]);
  // @ts-expect-error undefined is not JSON: argumentsDigest refuses it.
  argumentsDigest({ amount: undefined });
  // @ts-expect-error a Date is not JSON either.
  canonicalJson(new Date());

  const claim: ExecutionClaim = await client.claimExecution('support-42', 'call_1', { argumentsDigest: digest }, { idempotencyKey: 'k' });
  const executedAt: string = claim.executedAt;
  // @ts-expect-error the claim carries the digest of the arguments, not the arguments.
  await client.claimExecution('support-42', 'call_1', { arguments: { amount: 25 } });
  // @ts-expect-error a claim without a digest is no claim.
  await client.claimExecution('support-42', 'call_1', {});

  const action: ClientAction = await client.getClientAction('support-42', 'call_1');
  const digests: Array<string | null> = [action.argumentsDigest, action.approvedArgumentsDigest];
  const ran: string | null = action.executedAt;
  // @ts-expect-error executedAt is null until the execution is claimed.
  const surely: string = action.executedAt;

  try {
    await client.claimExecution('support-42', 'call_1', { argumentsDigest: digest });
  } catch (error) {
    if (error instanceof AlreadyExecutedError) {
      const code: 'already_executed' = error.code;
      const status: 409 = error.status;
      void [code, status];
    } else if (error instanceof ArgumentsMismatchError) {
      const code: 'arguments_mismatch' = error.code;
      void code;
    } else if (error instanceof NotApprovedError) {
      const code: 'not_approved' = error.code;
      // @ts-expect-error a refusal's code is its own.
      const other: 'already_executed' = error.code;
      void [code, other];
    }
    if (error instanceof ExecutionRefusedError) {
      const why: ExecutionRefusal = error.code;
      const asHistoryHubError: HistoryHubError = error;
      void [why, asHistoryHubError];
    }
  }

  const [resumed] = await resumeDecidedRuns(client, [agent]);
  const refused: RefusedExecution[] = resumed?.refused ?? [];
  const codes: Array<ExecutionRefusal | 'no_digest'> = refused.map((refusal) => refusal.code);
  // @ts-expect-error a refusal may also be no_digest, which is no API code.
  const apiCodes: ExecutionRefusal[] = refused.map((refusal) => refusal.code);
  const messages: string[] = [ARGUMENTS_MISMATCH, NO_DIGEST, alreadyExecuted('at noon'), notApproved('waiting')];
  // @ts-expect-error the sentences take HistoryHub's message.
  alreadyExecuted();
  void [text, executedAt, digests, ran, surely, codes, apiCodes, messages];
}
