// The rest of the API through the client: sessions, the item log, wire
// entries, chat-format messages and the response lookup.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assistantMessage, compactionItem, userMessage } from './support/items.js';
import { liveClient, uniqueSessionId } from './support/live.js';

const client = await liveClient();

test('a session is created, found, listed, changed and deleted', async () => {
  const sessionId = uniqueSessionId('crud');
  const agent = `crud-agent-${sessionId}`;
  const created = await client.createSession({ sessionId, agent, name: 'Order 42', metadata: { tier: 'gold' } });
  assert.deepEqual([created.sessionId, created.agent, created.name, created.itemCount], [sessionId, agent, 'Order 42', 0]);
  assert.deepEqual((await client.createSession({ sessionId, agent })).createdAt, created.createdAt);
  assert.deepEqual(await client.getSession(sessionId), created);

  const listed = await client.listSessions({ agent });
  assert.deepEqual(listed.items.map((session) => session.sessionId), [sessionId]);
  assert.deepEqual([listed.page, listed.pageSize, listed.total, listed.hasMore], [1, 50, 1, false]);

  const changed = await client.updateSession(sessionId, { name: 'Order 43', status: 'paused' });
  assert.deepEqual([changed.name, changed.status, changed.metadata], ['Order 43', 'paused', { tier: 'gold' }]);

  assert.equal(await client.deleteSession(sessionId), undefined);
  await assert.rejects(client.getSession(sessionId), { status: 404, code: 'session_not_found' });
});

test('a generated session id looks like ses_…', async () => {
  const created = await client.createSession({ agent: 'generated' });
  assert.match(created.sessionId, /^ses_[0-9A-Z]{26}$/);
});

test('items are appended, read newest-first-limited, popped, replaced and cleared', async () => {
  const sessionId = uniqueSessionId('items');
  const items = [userMessage('one'), assistantMessage('msg_1', 'two'), userMessage('three')];
  const appended = await client.addItems(sessionId, items, { agent: 'items-agent' });
  assert.deepEqual(appended, { inserted: [true, true, true], itemCount: 3 });
  assert.equal((await client.getSession(sessionId)).agent, 'items-agent');
  assert.deepEqual(await client.getItems(sessionId, { limit: 2 }), items.slice(1));
  assert.deepEqual(await client.getItems(sessionId, { limit: 0 }), []);
  assert.deepEqual(await client.popItem(sessionId), items[2]);
  assert.deepEqual(await client.replaceItems(sessionId, [userMessage('only')]), { itemCount: 1 });
  assert.deepEqual(await client.getItems(sessionId), [userMessage('only')]);
  assert.equal(await client.clearItems(sessionId), undefined);
  assert.deepEqual(await client.getItems(sessionId), []);
  assert.equal(await client.popItem(sessionId), null);
});

test('skipExistingIds skips items whose id the history holds', async () => {
  // Waits for the server change that makes id skipping opt-in.
  const sessionId = uniqueSessionId('skip-ids');
  await client.addItems(sessionId, [assistantMessage('msg_1', 'first')]);
  const again = await client.addItems(sessionId, [assistantMessage('msg_1', 'first'), assistantMessage('msg_2', 'new')], {
    skipExistingIds: true,
  });
  assert.deepEqual(again.inserted, [false, true]);
  const kept = await client.addItems(sessionId, [assistantMessage('msg_1', 'first')]);
  assert.deepEqual(kept.inserted, [true]);
});

test('compaction makes the items the logical history and tells whether anything changed', async () => {
  const sessionId = uniqueSessionId('compact');
  await client.addItems(sessionId, [userMessage('long ago')]);
  const replacement = [compactionItem('summary'), userMessage('now')];
  assert.deepEqual(await client.compact(sessionId, replacement), { changed: true, itemCount: 2 });
  assert.deepEqual(await client.getItems(sessionId), replacement);
  assert.equal((await client.compact(sessionId, replacement)).changed, false);
  await assert.rejects(client.compact(sessionId, [userMessage('no marker')]), { status: 400, code: 'invalid_input' });
});

test('transactions answer whether they were applied now', async () => {
  const sessionId = uniqueSessionId('transactions');
  const transaction = { type: 'append_items', items: [userMessage('x')] };
  assert.equal(await client.applyTransaction(sessionId, 'op-1', transaction), true);
  assert.equal(await client.applyTransaction(sessionId, 'op-1', transaction), false);
  await assert.rejects(client.applyTransaction(sessionId, '', transaction), { status: 400, code: 'invalid_input' });
});

test('entries, injections and the response lookup read the log as turns', async () => {
  const sessionId = uniqueSessionId('entries');
  await client.addItems(sessionId, [
    { ...userMessage('Where is my order?'), id: 'user-1' },
    assistantMessage('msg_1', 'It ships today.'),
  ]);
  const injection = await client.addInjection(sessionId, { content: 'A reminder.' });
  assert.deepEqual([injection.kind, injection.content, injection.sessionId], ['injection', 'A reminder.', sessionId]);
  const entries = await client.entries(sessionId);
  assert.deepEqual(
    entries.map((entry) => [entry.kind, entry.userIntent ?? entry.content, entry.assistantMessage]),
    [
      ['turn', 'Where is my order?', 'It ships today.'],
      ['injection', 'A reminder.', undefined],
    ],
  );
  assert.equal(typeof entries[0].timestamp, 'number');
  const hit = await client.findResponse(sessionId, 'user-1');
  assert.equal(hit.result, 'hit');
  assert.deepEqual(hit.items, [assistantMessage('msg_1', 'It ships today.')]);
  assert.deepEqual(await client.findResponse(sessionId, 'no such id'), { result: 'miss' });
  assert.deepEqual(await client.findResponse(sessionId, 'msg_1'), { result: 'kind_mismatch', kind: 'message' });
});

test('chat-format messages round-trip, and invalid history is refused unchanged', async () => {
  const sessionId = uniqueSessionId('messages');
  const messages = [
    { role: 'user', content: 'Refund order 42?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'refund', arguments: '{"order":42}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', name: 'refund', content: 'done' },
    { role: 'assistant', content: 'Refunded.' },
  ];
  await client.setMessages(sessionId, messages, { agent: 'chat' });
  const stored = await client.getMessages(sessionId);
  assert.equal(stored.length, 4);
  await client.setMessages(sessionId, stored);
  assert.deepEqual(await client.getMessages(sessionId), stored);
  await assert.rejects(client.setMessages(sessionId, [{ role: 'tool', tool_call_id: 'nowhere', content: 'x' }]), {
    status: 400,
    code: 'invalid_history',
    message: 'orphaned tool_call_id "nowhere"',
  });
  assert.deepEqual(await client.getMessages(sessionId), stored);
});

test('a message id with "/", "%" or spaces is addressable in the response lookup', async () => {
  // Waits for the server change that makes ids with "/" addressable.
  const sessionId = uniqueSessionId('lookup-ids');
  for (const id of ['50% off', 'a b', 'user/1', 'a b/c']) {
    await client.addItems(sessionId, [{ ...userMessage(`question ${id}`), id }, assistantMessage(`msg ${id}`, `answer ${id}`)]);
    const hit = await client.findResponse(sessionId, id);
    assert.equal(hit.result, 'hit', id);
    assert.equal(hit.entry.userIntent, `question ${id}`);
  }
});
