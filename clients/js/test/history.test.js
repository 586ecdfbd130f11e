// Orcha's history(sessionId, {page, pageSize}): newest page first,
// chronological within a page, with the session snapshot beside the items.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assistantMessage, userMessage } from './support/items.js';
import { liveClient, uniqueSessionId } from './support/live.js';

const client = await liveClient();

const texts = (page) => page.items.map((item) => item.content[0].text);

async function sessionWithMessages(count) {
  const sessionId = uniqueSessionId('history');
  await client.createSession({ sessionId, agent: 'supportAgent', metadata: { tier: 'gold' } });
  const items = Array.from({ length: count }, (_, index) =>
    index % 2 === 0 ? userMessage(`question ${index + 1}`) : assistantMessage(`msg_${index + 1}`, `answer ${index + 1}`),
  );
  await client.addItems(sessionId, items);
  return sessionId;
}

test('page 1 is the newest page, chronological within, with hasMore and total', async () => {
  const sessionId = await sessionWithMessages(5);
  const first = await client.history(sessionId, { page: 1, pageSize: 2 });
  assert.deepEqual(texts(first), ['answer 4', 'question 5']);
  assert.deepEqual([first.page, first.pageSize, first.total, first.hasMore], [1, 2, 5, true]);
  const second = await client.history(sessionId, { page: 2, pageSize: 2 });
  assert.deepEqual(texts(second), ['answer 2', 'question 3']);
  assert.equal(second.hasMore, true);
  const last = await client.history(sessionId, { page: 3, pageSize: 2 });
  assert.deepEqual(texts(last), ['question 1']);
  assert.equal(last.hasMore, false);
});

test('a page past the end has no items and no older page', async () => {
  const sessionId = await sessionWithMessages(3);
  const past = await client.history(sessionId, { page: 4, pageSize: 2 });
  assert.deepEqual(past.items, []);
  assert.deepEqual([past.page, past.total, past.hasMore], [4, 3, false]);
});

test('without options, history is the first page of 50, with the session snapshot', async () => {
  const sessionId = await sessionWithMessages(2);
  const history = await client.history(sessionId);
  assert.deepEqual([history.page, history.pageSize, history.total, history.hasMore], [1, 50, 2, false]);
  assert.equal(history.sessionId, sessionId);
  assert.equal(history.agent, 'supportAgent');
  assert.equal(history.status, 'active');
  assert.deepEqual(history.metadata, { tier: 'gold' });
  assert.match(history.createdAt, /Z$/);
  assert.match(history.updatedAt, /Z$/);
  assert.equal(history.runStatus, null);
  assert.deepEqual(history.pendingClientActions, []);
  const [question, answer] = history.items;
  assert.deepEqual(question.content, [{ type: 'text', text: 'question 1' }]);
  assert.equal(question.role, 'user');
  assert.equal(answer.role, 'assistant');
  assert.match(question.id, /^message:\d+$/);
});

test('a waiting client action is a history item and a pending action of the snapshot', async () => {
  const sessionId = await sessionWithMessages(1);
  const args = { amount: 750, currency: 'USD' };
  await client.openClientAction(sessionId, { callId: 'call_123', name: 'request_human_approval', arguments: args });
  const history = await client.history(sessionId, { page: 1, pageSize: 25 });
  assert.equal(history.runStatus, 'waiting_for_client_action');
  assert.deepEqual(history.pendingClientActions, [{ callId: 'call_123', name: 'request_human_approval', arguments: args }]);
  const action = history.items.at(-1);
  assert.deepEqual(
    { id: action.id, type: action.type, name: action.name, callId: action.callId, status: action.status },
    { id: 'client-action:call_123', type: 'client_action', name: 'request_human_approval', callId: 'call_123', status: 'waiting' },
  );
  assert.deepEqual(action.arguments, args);
  assert.equal(action.summary, 'request human approval is waiting for the client.');
});

test('history of an unknown session is session_not_found', async () => {
  await assert.rejects(client.history(uniqueSessionId('unknown')), { status: 404, code: 'session_not_found' });
});
