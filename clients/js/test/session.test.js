// HistoryHubSession, method by method, against the SDK's own MemorySession:
// the same calls give the same answers, the same errors and the same history.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { MemorySession, UserError, isSessionHistoryTransactionAwareSession } from '@openai/agents';

import { HistoryHubSession } from '../src/agents.js';
import { HistoryHubClient, HistoryHubError } from '../src/index.js';
import { assistantMessage, compactionItem, functionCall, functionResult, userMessage } from './support/items.js';
import { historyHub, liveClient, uniqueSessionId } from './support/live.js';
import { startProxy } from './support/proxy.js';

const client = await liveClient();

/** A MemorySession and a HistoryHubSession with the same id, and the HistoryHub session's id. */
function twins(label, agent = 'session-tests') {
  const sessionId = uniqueSessionId(label);
  return {
    sessionId,
    memory: new MemorySession({ sessionId }),
    hub: new HistoryHubSession({ client, sessionId, agent }),
  };
}

/** What a call did: its value, or its error's class and message. */
async function outcome(call) {
  try {
    return { value: await call() };
  } catch (error) {
    return { error: error.constructor.name, message: error.message };
  }
}

/** Make the call on both sessions; both must answer alike and hold the same items after. */
async function same({ memory, hub }, call) {
  const expected = await outcome(() => call(memory));
  const actual = await outcome(() => call(hub));
  assert.deepEqual(actual, expected);
  assert.deepEqual(await hub.getItems(), await memory.getItems());
  return actual;
}

const conversation = [
  userMessage('What is the weather in Paris?'),
  functionCall('call_1', 'get_weather', { city: 'Paris' }),
  functionResult('call_1', 'get_weather', 'Sunny'),
  assistantMessage('msg_1', 'It is sunny in Paris.'),
  userMessage('Thanks!'),
];

test('the runner sees a session that applies transactions', () => {
  assert.equal(isSessionHistoryTransactionAwareSession(twins('aware').hub), true);
  assert.equal(typeof twins('aware').hub.replaceHistoryWithCompaction, 'function');
});

test('getSessionId answers the id given and creates the session with its agent', async () => {
  const pair = twins('id', 'weather-agent');
  await same(pair, (session) => session.getSessionId());
  const snapshot = await client.getSession(pair.sessionId);
  assert.equal(snapshot.agent, 'weather-agent');
});

test('getSessionId keeps a session that exists under another agent', async () => {
  const sessionId = uniqueSessionId('other-agent');
  await client.createSession({ sessionId, agent: 'first-agent' });
  const session = new HistoryHubSession({ client, sessionId, agent: 'second-agent' });
  assert.equal(await session.getSessionId(), sessionId);
  assert.equal((await client.getSession(sessionId)).agent, 'first-agent');
});

test('a session without an id gets one from HistoryHub, the same on every call', async () => {
  const session = new HistoryHubSession({ client, agent: 'generated-id' });
  const [first, second] = await Promise.all([session.getSessionId(), session.getSessionId()]);
  assert.match(first, /^ses_/);
  assert.equal(second, first);
  await session.addItems([userMessage('hello')]);
  assert.deepEqual(await client.getItems(first), [userMessage('hello')]);
});

test('getItems reads a limit as MemorySession does', async () => {
  const pair = twins('limits');
  await same(pair, (session) => session.addItems(conversation));
  for (const limit of [undefined, 0, -1, -5, null, 1, 2, 2.5, 0.1, 5, 6, 1000, NaN, Infinity, -Infinity, 2 ** 60]) {
    const { value } = await same(pair, (session) => session.getItems(limit));
    assert.ok(Array.isArray(value), `limit ${limit}`);
  }
  assert.deepEqual(await pair.hub.getItems(2), conversation.slice(3));
});

test('getItems of a session never written is empty', async () => {
  await same(twins('empty'), (session) => session.getItems());
});

test('addItems with no items writes nothing', async () => {
  const pair = twins('add-nothing');
  await same(pair, (session) => session.addItems([]));
  await assert.rejects(client.getSession(pair.sessionId), { status: 404, code: 'session_not_found' });
});

test('addItems keeps every item, whatever its id', async () => {
  // Waits for the server change that stores every item (ids are not identities).
  const pair = twins('same-ids');
  const fake = assistantMessage('__fake_id__', 'first');
  await same(pair, (session) => session.addItems([fake, fake, assistantMessage('__fake_id__', 'second')]));
  await same(pair, (session) => session.addItems([fake]));
  assert.equal((await pair.hub.getItems()).length, 4);
});

test('popItem answers the newest item, then undefined once the history is empty', async () => {
  const pair = twins('pop');
  await same(pair, (session) => session.addItems(conversation.slice(0, 2)));
  assert.deepEqual((await same(pair, (session) => session.popItem())).value, conversation[1]);
  assert.deepEqual((await same(pair, (session) => session.popItem())).value, conversation[0]);
  assert.equal((await same(pair, (session) => session.popItem())).value, undefined);
});

test('clearSession empties the history and forgets applied transactions', async () => {
  const pair = twins('clear');
  const first = { type: 'append_items', items: [userMessage('one')] };
  const other = { type: 'append_items', items: [userMessage('two')] };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'op-1', transaction: first }));
  await same(pair, (session) => session.clearSession());
  assert.deepEqual(await pair.hub.getItems(), []);
  // The same operation id with another transaction is a new operation after a clear.
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'op-1', transaction: other }));
  assert.deepEqual(await pair.hub.getItems(), [userMessage('two')]);
});

test('an append transaction is applied once per operation id', async () => {
  const pair = twins('append-tx');
  const transaction = { type: 'append_items', items: conversation.slice(0, 3) };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'turn-1', transaction }));
  // A retry with an equal transaction (keys in another order) changes nothing.
  const reordered = { items: structuredClone(conversation.slice(0, 3)), type: 'append_items' };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'turn-1', transaction: reordered }));
  assert.equal((await pair.hub.getItems()).length, 3);
});

test('an operation id reused with another transaction is refused with the SDK error', async () => {
  const pair = twins('op-conflict');
  const transaction = { type: 'append_items', items: [userMessage('one')] };
  const changed = { type: 'append_items', items: [userMessage('another')] };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'op', transaction }));
  const { error, message } = await same(pair, (session) =>
    session.applyHistoryTransaction({ operationId: 'op', transaction: changed }),
  );
  assert.equal(error, 'UserError');
  assert.equal(message, 'Session history operation was already applied with a different transaction.');
  const refusal = await pair.hub.applyHistoryTransaction({ operationId: 'op', transaction: changed }).catch((e) => e);
  assert.ok(refusal instanceof UserError);
  assert.ok(refusal.cause instanceof HistoryHubError);
  assert.equal(refusal.cause.status, 409);
  assert.equal(refusal.cause.code, 'operation_conflict');
});

test('an operation id HistoryHub cannot store as it is still identifies its operation', async () => {
  const pair = twins('long-op-id');
  const transaction = { type: 'append_items', items: [userMessage('one')] };
  const changed = { type: 'append_items', items: [userMessage('two')] };
  for (const operationId of ['o'.repeat(500), 'nul\0inside', 'lone \ud800 surrogate']) {
    await same(pair, (session) => session.applyHistoryTransaction({ operationId, transaction }));
    await same(pair, (session) => session.applyHistoryTransaction({ operationId, transaction }));
    const { error } = await same(pair, (session) => session.applyHistoryTransaction({ operationId, transaction: changed }));
    assert.equal(error, 'UserError');
  }
  assert.equal((await pair.hub.getItems()).length, 3);
});

test('a suffix replacement applies when the suffix matches and is refused when it does not', async () => {
  const pair = twins('suffix');
  await same(pair, (session) => session.addItems(conversation.slice(0, 4)));
  const replaced = {
    type: 'replace_suffix',
    expectedSuffix: conversation.slice(2, 4),
    replacement: [functionResult('call_1', 'get_weather', 'Withheld'), assistantMessage('msg_2', 'Withheld.')],
  };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'accept', transaction: replaced }));
  assert.deepEqual((await pair.hub.getItems(1))[0], assistantMessage('msg_2', 'Withheld.'));

  const stale = { ...replaced, replacement: [userMessage('never stored')] };
  const { error, message } = await same(pair, (session) =>
    session.applyHistoryTransaction({ operationId: 'stale', transaction: stale }),
  );
  assert.equal(error, 'UserError');
  assert.equal(message, 'Session history suffix no longer matches the transaction precondition.');
  const refusal = await pair.hub.applyHistoryTransaction({ operationId: 'stale', transaction: stale }).catch((e) => e);
  assert.equal(refusal.cause.code, 'suffix_mismatch');

  const longerThanHistory = { ...stale, expectedSuffix: [...conversation, ...conversation] };
  await same(pair, (session) =>
    session.applyHistoryTransaction({ operationId: 'too-long', transaction: longerThanHistory }),
  );
  const empty = { type: 'replace_suffix', expectedSuffix: [], replacement: [userMessage('appended')] };
  await same(pair, (session) => session.applyHistoryTransaction({ operationId: 'empty-suffix', transaction: empty }));
});

test('a malformed transaction gets MemorySession\'s error before anything is sent', async () => {
  const pair = twins('malformed');
  const append = { type: 'append_items', items: [userMessage('one')] };
  const malformed = [
    undefined,
    'not an object',
    { transaction: append },
    { operationId: '', transaction: append },
    { operationId: '   ', transaction: append },
    { operationId: 7, transaction: append },
    { operationId: 'op' },
    { operationId: 'op', transaction: 'append' },
    { operationId: 'op', transaction: { type: 'delete_everything', items: [] } },
    { operationId: 'op', transaction: { ...append, extra: true } },
    { operationId: 'op', transaction: { type: 'append_items', items: 'one' } },
    { operationId: 'op', transaction: { type: 'replace_suffix', expectedSuffix: [] } },
    { operationId: 'op', transaction: { type: 'append_items', items: [{ role: 'nobody' }] } },
    { operationId: 'op', transaction: { type: 'append_items', items: ['text'] } },
    { operationId: 'op', transaction: { type: 'append_items', items: [new Date()] } },
    { operationId: 'op', transaction: { type: 'append_items', items: [{ ...userMessage('x'), at: new Date() }] } },
  ];
  for (const args of malformed) {
    const { error } = await same(pair, (session) => session.applyHistoryTransaction(args));
    assert.equal(error, 'UserError', JSON.stringify(args));
  }
  await assert.rejects(client.getSession(pair.sessionId), { code: 'session_not_found' });
});

test('a transaction HistoryHub could not store as sent is refused, not changed', async () => {
  // MemorySession keeps values JSON cannot carry; a remote session may refuse
  // them, and must do so before changing history.
  const session = twins('not-json').hub;
  for (const value of [NaN, Infinity, () => 'function', 10n, new Uint8Array([1, 2])]) {
    const transaction = { type: 'append_items', items: [{ ...userMessage('x'), providerData: { value } }] };
    await assert.rejects(session.applyHistoryTransaction({ operationId: 'op', transaction }), {
      name: 'UserError',
      message: 'Session history transaction items contain invalid or unsupported data.',
    });
  }
  assert.deepEqual(await session.getItems(), []);
});

test('compaction ends with the history the runner rebuilds on MemorySession, through one call', async () => {
  const { sessionId, memory, hub } = twins('compaction');
  await memory.addItems(conversation);
  await hub.addItems(conversation);
  const replacement = [compactionItem('summary-1'), assistantMessage('msg_3', 'You are welcome.')];
  // Without replaceHistoryWithCompaction the runner clears the session and adds the items again.
  await memory.clearSession();
  await memory.addItems(replacement);
  await hub.replaceHistoryWithCompaction(replacement);
  assert.deepEqual(await hub.getItems(), await memory.getItems());
  const history = await client.history(sessionId);
  assert.deepEqual(
    history.items.map((item) => item.content?.[0]?.text),
    ['You are welcome.'],
    'the items before the compaction are archived, out of the history',
  );
});

test('errors that are not conflicts reach the caller as HistoryHubError', async () => {
  const session = new HistoryHubSession({ client, sessionId: 'not a valid session id!' });
  await assert.rejects(session.addItems([userMessage('x')]), (error) => {
    assert.ok(error instanceof HistoryHubError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_input');
    return true;
  });
});

test('an item HistoryHub did not store is an error, never a silent loss', async () => {
  const hub = await historyHub();
  // A server that answers an append as storing only the first item.
  const proxy = await startProxy(hub.url, () => ({ status: 200, body: { inserted: [true, false], itemCount: 1 } }));
  after(() => proxy.close());
  const proxied = new HistoryHubClient({ baseUrl: proxy.url, apiKey: hub.writeKey });
  const session = new HistoryHubSession({ client: proxied, sessionId: uniqueSessionId('lost-item') });
  await assert.rejects(session.addItems([userMessage('kept'), userMessage('lost')]), {
    name: 'HistoryHubError',
    status: 200,
    code: 'items_not_stored',
    message: 'HistoryHub did not store 1 of 2 items (at indexes 1).',
  });
});

