// runWithApprovals: people approve an `@openai/agents` agent's tools on
// HistoryHub; the SDK's real Runner with a scripted offline model, a live
// server, and deciders with a key of their own.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { z } from 'zod';

import {
  EXPIRED,
  REJECTED,
  WITHDRAWN,
  HistoryHubSession,
  approvalTool,
  resumeDecidedRuns,
  runWithApprovals,
} from '../src/agents.js';
import { assistantMessage, functionCall } from './support/items.js';
import { deciderClient, liveClient, uniqueSessionId } from './support/live.js';
import { REFUND, REFUND_DESCRIPTION } from './support/refunds.js';
import { Shop, cards, needsApprovalTool, runner } from './support/shop.js';

const client = await liveClient();
const people = await deciderClient();

function hubSession(label) {
  const sessionId = uniqueSessionId(label);
  return { sessionId, session: new HistoryHubSession({ client, sessionId }) };
}

/** A run of a new Shop's agent that asked for approval and returned at once, parked: {shop, sessionId, interrupted}. */
async function parkedRun(label) {
  const shop = new Shop();
  const { sessionId, session } = hubSession(label);
  const interrupted = await runWithApprovals(shop.agent, 'Refund 25 on order 1234', { session, runner, waitSeconds: 0 });
  return { shop, sessionId, interrupted };
}

/** An approver who looks at the session, then decides over HTTP, as on the Approvals page. */
function person(sessionId, decision, seen = []) {
  return async (action) => {
    seen.push({
      action,
      snapshot: await client.getSession(sessionId),
      history: await client.history(sessionId),
      runs: await client.listRuns({ sessionId }),
    });
    await people.decideClientAction(sessionId, action.callId, decision);
  };
}

test('an approved call runs once and the run completes', async () => {
  const shop = new Shop();
  const seen = [];
  const { sessionId, session } = hubSession('approve');
  const result = await runWithApprovals(shop.agent, 'Refund 25 on order 1234', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'approve', comment: 'Fine.' }, seen),
  });

  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(shop.refunds, [[1234, 25]]);
  const [asked] = seen;
  assert.equal(seen.length, 1);
  const { callId, name, arguments: args, description, status } = asked.action;
  assert.deepEqual({ callId, name, args, description, status }, {
    callId: 'call_refund',
    name: 'issue_refund',
    args: REFUND,
    description: REFUND_DESCRIPTION,
    status: 'waiting',
  });
  // While the person decides: the run waits, its state parked in HistoryHub, the call shown once, waiting.
  assert.equal(asked.snapshot.runStatus, 'waiting_for_client_action');
  assert.equal(asked.snapshot.agent, shop.agent.name, 'the session is named after the agent');
  assert.deepEqual(asked.snapshot.pendingClientActions, [{ callId: 'call_refund', name: 'issue_refund', arguments: REFUND }]);
  assert.deepEqual(
    asked.runs.items.map((run) => [run.runId.startsWith('run_'), run.agent, run.callIds, run.ready]),
    [[true, shop.agent.name, ['call_refund'], false]],
  );
  assert.deepEqual(cards(asked.history, 'call_refund').map((card) => card.status), ['waiting']);

  // Afterwards: completed, the call shown once, completed, with the approver's comment; the parked state is gone.
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
  assert.deepEqual((await client.listRuns({ sessionId })).items, []);
  const [card] = cards(await client.history(sessionId), 'call_refund');
  assert.deepEqual([card.type, card.status, card.output], ['action', 'completed', { type: 'text', text: 'Refunded 25 on order 1234.' }]);
  assert.deepEqual([card.approval.status, card.approval.comment], ['approved', 'Fine.']);
  const items = await client.getItems(sessionId);
  assert.deepEqual(items.map((item) => item.type), ['message', 'function_call', 'function_call_result', 'message']);
  assert.equal(items[2].output.text, 'Refunded 25 on order 1234.');
  assert.equal(shop.toolOutput(), 'Refunded 25 on order 1234.');
});

test('a rejected call does not run and the model reads the comment', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('reject');
  const result = await runWithApprovals(shop.agent, 'Refund 25 on order 1234', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'reject', comment: 'Over the limit; offer 10.' }),
  });
  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), 'Over the limit; offer 10.');
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
  const [card] = cards(await client.history(sessionId), 'call_refund');
  assert.deepEqual([card.status, card.approval.status, card.approval.comment], ['failed', 'rejected', 'Over the limit; offer 10.']);
});

test('a rejection without a comment tells the model the call was rejected', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('reject-silently');
  await runWithApprovals(shop.agent, 'Refund', { session, runner, onApprovalRequest: person(sessionId, { decision: 'reject' }) });
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), REJECTED);
});

test('edited arguments are the ones the tool runs with, once', async () => {
  const shop = new Shop();
  const edited = { order: 1234, amount: 20 };
  const { sessionId, session } = hubSession('edit');
  await runWithApprovals(shop.agent, 'Refund 25 on order 1234', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'approve', arguments: edited }),
  });
  assert.deepEqual(shop.refunds, [[1234, 20]]);
  assert.equal(shop.toolOutput(), 'Refunded 20 on order 1234.');
  const action = await client.getClientAction(sessionId, 'call_refund');
  assert.deepEqual([action.arguments, action.approvedArguments], [REFUND, edited]);
  // The timeline shows the arguments asked for, those approved, and the outcome of running with them.
  const [card] = cards(await client.history(sessionId), 'call_refund');
  assert.deepEqual([card.status, card.arguments, card.approval.approvedArguments], ['completed', REFUND, edited]);
  assert.deepEqual(card.output, { type: 'text', text: 'Refunded 20 on order 1234.' });
});

test('edited arguments never reach a tool not made with approvalTool', async () => {
  const shop = new Shop({ makeTool: needsApprovalTool });
  const { sessionId, session } = hubSession('edit-refused');
  await runWithApprovals(shop.agent, 'Refund 25 on order 1234', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'approve', arguments: { order: 1, amount: 1 } }),
  });
  assert.deepEqual(shop.refunds, []);
  assert.equal(
    shop.toolOutput(),
    'The approver changed the arguments to {"order":1,"amount":1}, but the tool issue_refund cannot run with changed arguments, so it did not run.',
  );
});

test('a plain needsApproval tool approved as asked runs once', async () => {
  const shop = new Shop({ makeTool: needsApprovalTool });
  const { sessionId, session } = hubSession('plain-approve');
  await runWithApprovals(shop.agent, 'Refund', { session, runner, onApprovalRequest: person(sessionId, { decision: 'approve' }) });
  assert.deepEqual(shop.refunds, [[1234, 25]]);
});

test('edited arguments are checked against the tool\'s parameters like the model\'s', async () => {
  const parameters = z.object({ order: z.number().int(), amount: z.number().positive() });
  const shop = new Shop({ makeTool: (options) => approvalTool({ ...options, parameters }) });
  const { sessionId, session } = hubSession('edit-invalid');
  await runWithApprovals(shop.agent, 'Refund', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'approve', arguments: { order: 1234, amount: -25 } }),
  });
  // The approver's arguments fail the tool's schema: the tool does not run, and the model is told, as for its own.
  assert.deepEqual(shop.refunds, []);
  assert.match(shop.toolOutput(), /error/i);
});

test('a call nobody decides in time expires as a rejection', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('expire');
  const started = Date.now();
  const result = await runWithApprovals(shop.agent, 'Refund 25 on order 1234', { session, runner, expiresInSeconds: 1 });
  assert.equal(result.finalOutput, 'All done.');
  assert.ok(Date.now() - started < 30_000, 'the wait ended at the expiry, not after a long poll');
  assert.deepEqual(shop.refunds, []);
  assert.equal((await client.getClientAction(sessionId, 'call_refund')).status, 'expired');
  assert.equal(shop.toolOutput(), EXPIRED);
  const history = await client.history(sessionId);
  assert.equal(history.runStatus, 'completed');
  const [card] = cards(history, 'call_refund');
  assert.deepEqual([card.status, card.approval.status], ['failed', 'expired']);
});

test('two gated calls in one turn are decided one by one', async () => {
  const shop = new Shop({
    script: [
      [functionCall('call_a', 'issue_refund', { order: 1, amount: 5 }), functionCall('call_b', 'issue_refund', { order: 2, amount: 500 })],
      [assistantMessage('msg_done', 'One refund made, one refused.')],
    ],
  });
  const decisions = { call_a: { decision: 'approve' }, call_b: { decision: 'reject', comment: 'Too much.' } };
  const asked = [];
  const { sessionId, session } = hubSession('two-calls');
  const result = await runWithApprovals(shop.agent, 'Refund both', {
    session,
    runner,
    onApprovalRequest: async (action) => {
      asked.push(action.callId);
      await people.decideClientAction(sessionId, action.callId, decisions[action.callId]);
    },
  });
  assert.deepEqual(asked, ['call_a', 'call_b']);
  assert.deepEqual(shop.refunds, [[1, 5]]);
  assert.equal(shop.toolOutput('call_a'), 'Refunded 5 on order 1.');
  assert.equal(shop.toolOutput('call_b'), 'Too much.');
  assert.equal(result.finalOutput, 'One refund made, one refused.');
  const history = await client.history(sessionId);
  assert.deepEqual([...cards(history, 'call_a'), ...cards(history, 'call_b')].map((card) => card.status), ['completed', 'failed']);
});

test('a run that fails after its approval is marked failed and its parked state is gone', async () => {
  const shop = new Shop({ script: [[functionCall('call_refund', 'issue_refund', REFUND)]] });
  const { sessionId, session } = hubSession('fails');
  await assert.rejects(
    runWithApprovals(shop.agent, 'Refund', { session, runner, onApprovalRequest: person(sessionId, { decision: 'approve' }) }),
    /The script has no response for model call 2/,
  );
  assert.deepEqual(shop.refunds, [[1234, 25]]);
  assert.equal((await client.getSession(sessionId)).runStatus, 'failed');
  assert.deepEqual((await client.listRuns({ sessionId })).items, []);
});

test('a result a client application supplied stands in for the tool', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('supplied');
  await runWithApprovals(shop.agent, 'Refund', {
    session,
    runner,
    onApprovalRequest: (action) => client.submitClientActionResult(sessionId, action.callId, { output: 'Refunded by the billing system.' }),
  });
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), 'Refunded by the billing system.');
});

test('a run left waiting is parked, and resumed once the person decides', async () => {
  const { shop, sessionId, interrupted } = await parkedRun('parked');
  assert.deepEqual(interrupted.interruptions.map((item) => item.name), ['issue_refund']);
  const parked = (await client.listRuns({ sessionId })).items;
  assert.deepEqual(parked.map((run) => [run.callIds, run.ready, run.agent]), [[['call_refund'], false, shop.agent.name]]);
  assert.equal((await client.getSession(sessionId)).runStatus, 'waiting_for_client_action');
  assert.deepEqual(await resumeDecidedRuns(client, [shop.agent], { runner }), [], 'nothing is decided yet');

  await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve' });
  const ready = await client.listRuns({ ready: true, sessionId });
  assert.deepEqual(ready.items.map((run) => run.runId), [parked[0].runId]);
  const resumed = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.equal(resumed.length, 1);
  const [{ sessionId: resumedSession, runId, result, error }] = resumed;
  assert.deepEqual([resumedSession, runId, error], [sessionId, parked[0].runId, undefined]);
  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(shop.refunds, [[1234, 25]]);
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
  assert.deepEqual((await client.listRuns({ sessionId })).items, []);
});

test('two resumers at once resume a run once', async () => {
  const { shop, sessionId } = await parkedRun('resumers');
  await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve' });
  const other = await liveClient();
  const [one, two] = await Promise.all([
    resumeDecidedRuns(client, [shop.agent], { runner }),
    resumeDecidedRuns(other, [shop.agent], { runner }),
  ]);
  assert.equal(one.length + two.length, 1);
  assert.deepEqual(shop.refunds, [[1234, 25]]);
});

test('a call whose approval request is gone is withdrawn', async () => {
  const { shop, sessionId } = await parkedRun('withdrawn');
  // Clearing the session's items removes its client actions: the parked run waits on nothing any more.
  await client.clearItems(sessionId);
  const [resumed] = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.equal(resumed.error, undefined);
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), WITHDRAWN);
});

test('the model sees the history the session keeps', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('model-input');
  await runWithApprovals(shop.agent, 'Refund', { session, runner, onApprovalRequest: person(sessionId, { decision: 'approve' }) });
  const items = await session.getItems();
  assert.deepEqual(shop.model.requests.at(-1).input, items.slice(0, 3));
});

test('a tool that reads its call details runs with edited arguments', async () => {
  const calls = [];
  const execute = async ({ order, amount }, runContext, details) => {
    calls.push([details.toolCall.callId, order, amount]);
    return 'ok';
  };
  const shop = new Shop({ makeTool: (options) => approvalTool({ ...options, execute }) });
  const { sessionId, session } = hubSession('details');
  await runWithApprovals(shop.agent, 'Refund', {
    session,
    runner,
    onApprovalRequest: person(sessionId, { decision: 'approve', arguments: { order: 1234, amount: 7 } }),
  });
  assert.deepEqual(calls, [['call_refund', 1234, 7]]);
});

test('runWithApprovals needs a HistoryHubSession', async () => {
  const shop = new Shop();
  await assert.rejects(runWithApprovals(shop.agent, 'Refund', { runner }), TypeError);
});
