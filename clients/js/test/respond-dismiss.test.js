// The two decisions that answer instead of approving: respond (the person's
// answer is the tool's output) and dismiss (closed without an answer). Every
// test first checks that the server accepts a respond decision, and is
// skipped, saying so, on a server that does not yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DISMISSED, HistoryHubSession, runWithApprovals } from '../src/agents.js';
import { HistoryHubError } from '../src/index.js';
import { deciderClient, liveClient, uniqueSessionId } from './support/live.js';
import { Shop, cards, runner } from './support/shop.js';

const client = await liveClient();
const people = await deciderClient();
const EVERY_RESPONSE = ['approve', 'edit', 'reject', 'respond', 'dismiss'];
const NOT_YET = 'the server does not accept {"decision": "respond", "response": "…"} yet (it answers 400)';

let probe;

/** Whether a respond decision on an action that allows it answers 200; asked once, by the first test. */
function serverAcceptsRespond() {
  probe ??= (async () => {
    const sessionId = uniqueSessionId('respond-probe');
    await client.createSession({ sessionId, agent: 'respond-probe' });
    await client.openClientAction(sessionId, { callId: 'probe', name: 'ask', arguments: {}, allowedResponses: EVERY_RESPONSE });
    try {
      await people.decideClientAction(sessionId, 'probe', { decision: 'respond', response: 'Yes.' });
      return true;
    } catch (error) {
      if (error instanceof HistoryHubError && error.status === 400) return false;
      throw error;
    }
  })();
  return probe;
}

/** A test that runs only where the server accepts respond decisions. */
function withRespond(name, body) {
  test(name, async (context) => {
    if (!(await serverAcceptsRespond())) {
      context.skip(NOT_YET);
      return;
    }
    await body();
  });
}

async function decidedRun(label, decision) {
  const shop = new Shop();
  const sessionId = uniqueSessionId(label);
  const result = await runWithApprovals(shop.agent, 'Refund 25 on order 1234', {
    session: new HistoryHubSession({ client, sessionId }),
    runner,
    allowedResponses: EVERY_RESPONSE,
    onApprovalRequest: (action) => people.decideClientAction(sessionId, action.callId, decision),
  });
  return { shop, sessionId, result };
}

withRespond('a response is the tool\'s output, and the tool does not run', async () => {
  const answer = 'Refund 10 now and the rest after the return arrives.';
  const { shop, sessionId, result } = await decidedRun('respond', { decision: 'respond', response: answer });
  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), answer);
  const action = await client.getClientAction(sessionId, 'call_refund');
  assert.deepEqual([action.status, action.response, action.allowedResponses], ['answered', answer, EVERY_RESPONSE]);
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
  assert.equal(cards(await client.history(sessionId), 'call_refund').length, 1);
});

withRespond('a dismissed request does not run the tool, and the model is told it was dismissed', async () => {
  const { shop, sessionId, result } = await decidedRun('dismiss', { decision: 'dismiss' });
  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), DISMISSED);
  assert.equal((await client.getClientAction(sessionId, 'call_refund')).status, 'dismissed');
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
});
