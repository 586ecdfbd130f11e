// Claiming an approved action's one execution (docs/api.md, "Executing what
// was approved, once"): the client's claimExecution and its typed errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  AlreadyExecutedError,
  ArgumentsMismatchError,
  ExecutionRefusedError,
  HistoryHubError,
  NotApprovedError,
  argumentsDigest,
} from '../src/index.js';
import { deciderClient, liveClient, uniqueSessionId } from './support/live.js';

const client = await liveClient();
const people = await deciderClient();
const REFUND = { order: 1234, amount: 25 };

/** A new session with the action `call_1` opened for REFUND, decided as `decision` says (or left waiting). */
async function action(label, decision) {
  const sessionId = uniqueSessionId(label);
  await client.createSession({ sessionId, agent: 'refunds' });
  await client.openClientAction(sessionId, { callId: 'call_1', name: 'issue_refund', arguments: REFUND });
  if (decision) await people.decideClientAction(sessionId, 'call_1', decision);
  return sessionId;
}

/** The refusal a claim is expected to meet: its class, HistoryHubError's fields, and that it is an ExecutionRefusedError. */
function refusal(ErrorClass, code) {
  return (error) => {
    assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message}`);
    assert.ok(error instanceof ExecutionRefusedError && error instanceof HistoryHubError);
    assert.deepEqual([error.name, error.status, error.code], [ErrorClass.name, 409, code]);
    return true;
  };
}

test('the first claim is answered with when, and every later one is AlreadyExecutedError', async () => {
  const sessionId = await action('claim', { decision: 'approve' });
  const digest = argumentsDigest({ amount: 25, order: 1234 });
  const claimed = await client.claimExecution(sessionId, 'call_1', { argumentsDigest: digest });
  assert.deepEqual(Object.keys(claimed).sort(), ['argumentsDigest', 'executedAt']);
  assert.equal(claimed.argumentsDigest, digest);
  assert.ok(Date.parse(claimed.executedAt) <= Date.now());
  assert.equal((await client.getClientAction(sessionId, 'call_1')).executedAt, claimed.executedAt);

  await assert.rejects(client.claimExecution(sessionId, 'call_1', { argumentsDigest: digest }), refusal(AlreadyExecutedError, 'already_executed'));
});

test('the same claim sent again with its Idempotency-Key is answered as the first time', async () => {
  const sessionId = await action('claim-replayed', { decision: 'approve' });
  const body = { argumentsDigest: argumentsDigest(REFUND) };
  const first = await client.claimExecution(sessionId, 'call_1', body, { idempotencyKey: `claim-${sessionId}` });
  const again = await client.claimExecution(sessionId, 'call_1', body, { idempotencyKey: `claim-${sessionId}` });
  assert.deepEqual(again, first);
  await assert.rejects(client.claimExecution(sessionId, 'call_1', body), AlreadyExecutedError);
});

test('other arguments than the approved ones are ArgumentsMismatchError, and the right ones may still run', async () => {
  const sessionId = await action('claim-mismatch', { decision: 'approve', arguments: { order: 1234, amount: 20 } });
  // The model's arguments, not the approver's edit: refused.
  await assert.rejects(
    client.claimExecution(sessionId, 'call_1', { argumentsDigest: argumentsDigest(REFUND) }),
    refusal(ArgumentsMismatchError, 'arguments_mismatch'),
  );
  const [card] = (await client.history(sessionId)).items.filter((item) => item.callId === 'call_1');
  assert.ok(card.executionRefusedAt, 'the card shows the refused attempt');
  assert.equal((await client.getClientAction(sessionId, 'call_1')).executedAt, null);
  const claimed = await client.claimExecution(sessionId, 'call_1', { argumentsDigest: argumentsDigest({ amount: 20, order: 1234 }) });
  assert.ok(claimed.executedAt);
});

test('an action no decision approved is NotApprovedError', async () => {
  const digest = argumentsDigest(REFUND);
  for (const decision of [undefined, { decision: 'reject' }]) {
    const sessionId = await action('claim-not-approved', decision);
    await assert.rejects(client.claimExecution(sessionId, 'call_1', { argumentsDigest: digest }), refusal(NotApprovedError, 'not_approved'));
  }
});

test('a claim that is no digest is invalid_input, a plain HistoryHubError', async () => {
  const sessionId = await action('claim-invalid', { decision: 'approve' });
  await assert.rejects(client.claimExecution(sessionId, 'call_1', { argumentsDigest: 'sha256:ABC' }), (error) => {
    assert.ok(!(error instanceof ExecutionRefusedError));
    assert.deepEqual([error.name, error.status, error.code], ['HistoryHubError', 400, 'invalid_input']);
    return true;
  });
  await assert.rejects(client.claimExecution(sessionId, 'call_missing', { argumentsDigest: argumentsDigest(REFUND) }), {
    status: 404,
    code: 'not_found',
  });
});
