// Client actions: open, get, wait (long-polling in pieces of at most 60 s,
// as long as it takes unless told otherwise), decide, and supply a result.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { HistoryHubClient } from '../src/index.js';
import { deciderClient, historyHub, liveClient, uniqueSessionId } from './support/live.js';
import { startProxy } from './support/proxy.js';

const hub = await historyHub();
const client = await liveClient();
const people = await deciderClient();

async function openedAction(callId = 'call_1', fields = {}) {
  const sessionId = uniqueSessionId('actions');
  await client.createSession({ sessionId, agent: 'refunds' });
  const action = await client.openClientAction(sessionId, {
    callId,
    name: 'approve_refund',
    arguments: { amount: 750 },
    ...fields,
  });
  return { sessionId, callId, action };
}

test('an opened action is waiting, and opening it again with the same content answers the same action', async () => {
  const { sessionId, callId, action } = await openedAction('call_1', { description: 'Refund order 42' });
  assert.equal(action.status, 'waiting');
  assert.equal(action.description, 'Refund order 42');
  const again = await client.openClientAction(sessionId, {
    callId,
    name: 'approve_refund',
    arguments: { amount: 750 },
    description: 'Refund order 42',
  });
  assert.equal(again.createdAt, action.createdAt);
  await assert.rejects(
    client.openClientAction(sessionId, { callId, name: 'approve_refund', arguments: { amount: 1 } }),
    { status: 409, code: 'action_result_conflict' },
  );
  assert.deepEqual(await client.getClientAction(sessionId, callId), action);
});

test('an approval with edited arguments keeps both versions', async () => {
  const { sessionId, callId } = await openedAction();
  const decided = await people.decideClientAction(sessionId, callId, {
    decision: 'approve',
    comment: 'Half now.',
    arguments: { amount: 375 },
  });
  assert.equal(decided.status, 'approved');
  assert.deepEqual([decided.arguments, decided.approvedArguments], [{ amount: 750 }, { amount: 375 }]);
  assert.equal(decided.comment, 'Half now.');
  assert.match(decided.resolvedBy, /js tests \(decide\)/);
});

test('a rejection, and a different second decision, are answered as the contract says', async () => {
  const { sessionId, callId } = await openedAction();
  const rejected = await people.decideClientAction(sessionId, callId, { decision: 'reject', comment: 'No.' });
  assert.equal(rejected.status, 'rejected');
  const repeated = await people.decideClientAction(sessionId, callId, { decision: 'reject', comment: 'No.' });
  assert.equal(repeated.resolvedAt, rejected.resolvedAt);
  await assert.rejects(people.decideClientAction(sessionId, callId, { decision: 'approve' }), {
    status: 409,
    code: 'action_result_conflict',
  });
});

test('a result supplied by the client application completes the action', async () => {
  const { sessionId, callId } = await openedAction();
  const completed = await client.submitClientActionResult(sessionId, callId, { output: { refunded: true } });
  assert.equal(completed.status, 'completed');
  assert.deepEqual(completed.output, { refunded: true });
  const failed = await openedAction('call_2');
  const failure = await client.submitClientActionResult(failed.sessionId, 'call_2', { output: 'card expired', isError: true });
  assert.equal(failure.status, 'failed');
});

test('waiting answers as soon as the action is decided', async () => {
  const { sessionId, callId } = await openedAction();
  const waiting = client.waitForClientAction(sessionId, callId, { timeoutSeconds: 30 });
  await people.decideClientAction(sessionId, callId, { decision: 'approve' });
  assert.equal((await waiting).status, 'approved');
});

test('waiting answers the action still waiting once the timeout passes', async () => {
  const { sessionId, callId } = await openedAction();
  const started = Date.now();
  const action = await client.waitForClientAction(sessionId, callId, { timeoutSeconds: 0.3 });
  assert.equal(action.status, 'waiting');
  assert.ok(Date.now() - started >= 250, 'the server held the request for the wait');
});

/**
 * A client whose long polls go through a proxy that shortens each to 0.05 s, so a test does not wait a
 * minute per request; the person decides at poll `decideAt`. `asked` records the waits the client asked for.
 */
async function shortenedPolls(sessionId, callId, decideAt) {
  const asked = [];
  const proxy = await startProxy(hub.url, async (request) => {
    const url = new URL(request.url, 'http://proxy');
    asked.push(Number(url.searchParams.get('wait')));
    if (asked.length === decideAt) await people.decideClientAction(sessionId, callId, { decision: 'approve' });
    url.searchParams.set('wait', '0.05');
    return { rewriteUrl: `${url.pathname}${url.search}` };
  });
  after(() => proxy.close());
  return { asked, viaProxy: new HistoryHubClient({ baseUrl: proxy.url, apiKey: hub.writeKey }) };
}

test('a wait longer than the server holds a request asks again, at most 60 s at a time', async () => {
  const { sessionId, callId } = await openedAction();
  // The client sees the action still waiting after each shortened poll and asks again, until it is decided.
  const { asked, viaProxy } = await shortenedPolls(sessionId, callId, 3);
  const action = await viaProxy.waitForClientAction(sessionId, callId, { timeoutSeconds: 600 });
  assert.equal(action.status, 'approved');
  assert.deepEqual(asked, [60, 60, 60]);
});

test('a wait without a timeout asks again until the action is decided', async () => {
  const { sessionId, callId } = await openedAction();
  const { asked, viaProxy } = await shortenedPolls(sessionId, callId, 4);
  const action = await viaProxy.waitForClientAction(sessionId, callId);
  assert.equal(action.status, 'approved');
  assert.deepEqual(asked, [60, 60, 60, 60]);
});

test('once an action\'s expiresAt is known, the next poll ends just after it', async () => {
  const { sessionId, callId, action: opened } = await openedAction();
  const asked = [];
  const expiresAt = new Date(Date.now() + 500).toISOString();
  // The proxy answers the first poll at once with an expiresAt half a second away, as a server would
  // that knew nothing of expiry; the client must not then ask the server to hold it a minute.
  const proxy = await startProxy(hub.url, (request) => {
    asked.push(Number(new URL(request.url, 'http://proxy').searchParams.get('wait')));
    const status = asked.length === 1 ? 'waiting' : 'expired';
    return { status: 200, body: { ...opened, status, expiresAt } };
  });
  after(() => proxy.close());
  const viaProxy = new HistoryHubClient({ baseUrl: proxy.url, apiKey: hub.writeKey });
  assert.equal((await viaProxy.waitForClientAction(sessionId, callId)).status, 'expired');
  assert.equal(asked.length, 2);
  assert.equal(asked[0], 60);
  assert.ok(asked[1] > 0 && asked[1] <= 0.75, `the second poll asked for ${asked[1]} s`);
});

test('actions are listed across sessions, filtered, oldest first', async () => {
  const { sessionId } = await openedAction('first');
  await client.openClientAction(sessionId, { callId: 'second', name: 'approve_refund', arguments: {} });
  const page = await client.listClientActions({ sessionId, status: 'waiting', pageSize: 10 });
  assert.deepEqual(page.items.map((action) => action.callId), ['first', 'second']);
  assert.deepEqual([page.total, page.hasMore], [2, false]);
});

test('call ids with "/", "%", spaces and other characters are addressable', async () => {
  // Waits for the server change that makes ids with "/" addressable.
  for (const callId of ['100%', 'a call', 'appel-ü-☃', 'call/1', "it's (*)!", '.', '..']) {
    const { sessionId } = await openedAction(callId);
    assert.equal((await client.getClientAction(sessionId, callId)).callId, callId);
    const decided = await people.decideClientAction(sessionId, callId, { decision: 'approve' });
    assert.equal(decided.status, 'approved', callId);
  }
});
