// The HTTP layer: errors as one class, retries only where a request is
// idempotent and only on what a wait can cure, Idempotency-Key on every
// write, ids percent-encoded in paths: all as the Python client does them
// (docs/clients.md).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { HistoryHubClient, HistoryHubError } from '../src/index.js';
import { userMessage } from './support/items.js';
import { historyHub, liveClient, uniqueSessionId } from './support/live.js';
import { startProxy } from './support/proxy.js';

const hub = await historyHub();
const client = await liveClient();
const unavailable = { status: 503, headers: { 'retry-after': '0' }, body: { error: { code: 'service_unavailable', message: 'The database cannot be reached.' } } };

/** A client that talks to the live server through a proxy following `plan`. */
async function throughProxy(plan, options = {}) {
  const proxy = await startProxy(hub.url, plan);
  after(() => proxy.close());
  return { proxy, client: new HistoryHubClient({ baseUrl: proxy.url, apiKey: hub.writeKey, ...options }) };
}

const firstAttemptFails = (request, index) => (index === 0 ? unavailable : undefined);

test('an error answer carries its status, code and message', async () => {
  await assert.rejects(client.getSession(uniqueSessionId('missing')), (error) => {
    assert.ok(error instanceof HistoryHubError);
    assert.equal(error.name, 'HistoryHubError');
    assert.equal(error.status, 404);
    assert.equal(error.code, 'session_not_found');
    assert.match(error.message, /\S/);
    return true;
  });
  await assert.rejects(client.history(uniqueSessionId('paging'), { page: 0 }), {
    status: 400,
    code: 'invalid_input',
    message: 'Pagination requires page >= 1 and pageSize between 1 and 100.',
  });
  const unknownKey = new HistoryHubClient({ baseUrl: hub.url, apiKey: 'not-a-key' });
  await assert.rejects(unknownKey.listSessions(), { status: 401, code: 'unauthorized' });
  const readOnly = new HistoryHubClient({ baseUrl: hub.url, apiKey: hub.readKey });
  await assert.rejects(readOnly.addItems(uniqueSessionId('read-key'), [userMessage('x')]), { status: 403, code: 'forbidden' });
});

test('an unknown API path is a JSON not_found error', async () => {
  // Waits for the server change that answers every path under /api/ with JSON.
  await assert.rejects(client.request('GET', ['no-such-endpoint']), { status: 404, code: 'not_found' });
});

test('a server that cannot be reached is a connection_failed error without a status', async () => {
  const { proxy, client: unreachable } = await throughProxy(() => undefined, { maxRetries: 1 });
  await proxy.close();
  await assert.rejects(unreachable.listSessions(), (error) => {
    assert.ok(error instanceof HistoryHubError);
    assert.equal(error.status, null);
    assert.equal(error.code, 'connection_failed');
    assert.match(error.message, /^Could not reach HistoryHub: /);
    assert.ok(error.cause);
    return true;
  });
});

test('a server that does not answer in time is a connection_failed error too', async () => {
  const { proxy, client: impatient } = await throughProxy(() => new Promise(() => {}), { timeoutMs: 200, maxRetries: 1 });
  await assert.rejects(impatient.listSessions(), {
    status: null,
    code: 'connection_failed',
    message: 'HistoryHub did not answer within 200 ms.',
  });
  assert.equal(proxy.requests.length, 2, 'a read that timed out is tried again');
});

test('an answer that is not JSON is invalid_answer', async () => {
  const { client: confused } = await throughProxy(() => ({ status: 200, headers: { 'content-type': 'text/html' }, rawBody: '<html>' }));
  await assert.rejects(confused.listSessions(), { status: 200, code: 'invalid_answer' });
});

test('a GET answered 503 is sent again after the Retry-After it names', async () => {
  const { proxy, client: retrying } = await throughProxy((request, index) =>
    index === 0 ? { ...unavailable, headers: { 'retry-after': '1' } } : undefined,
  );
  const started = Date.now();
  const page = await retrying.listSessions({ pageSize: 1 });
  assert.equal(page.pageSize, 1);
  assert.equal(proxy.requests.length, 2);
  // Backoff alone would have waited at most 250 ms; timers may round a millisecond or so early.
  assert.ok(Date.now() - started >= 950, 'it waited the second Retry-After asked for');
});

test('a write whose answer is lost is sent again with the same Idempotency-Key', async () => {
  const sessionId = uniqueSessionId('lost-answer');
  const { proxy, client: retrying } = await throughProxy((request, index) => (index === 0 ? 'lose-answer' : undefined));
  await retrying.addItems(sessionId, [userMessage('once')]);
  assert.equal(proxy.requests.length, 2);
  const [first, second] = proxy.requests.map((request) => request.headers['idempotency-key']);
  assert.match(first, /^[0-9a-f-]{36}$/);
  assert.equal(second, first);
  assert.equal(proxy.requests[1].body, proxy.requests[0].body);
});

test('a write sent again after a lost answer is stored once', async () => {
  // Waits for the server change that honours Idempotency-Key.
  const sessionId = uniqueSessionId('stored-once');
  const { client: retrying } = await throughProxy((request, index) => (index === 0 ? 'lose-answer' : undefined));
  await retrying.addItems(sessionId, [userMessage('once')]);
  assert.deepEqual(await client.getItems(sessionId), [userMessage('once')]);
});

test('every write carries a fresh Idempotency-Key, so equal writes are both applied', async () => {
  const sessionId = uniqueSessionId('fresh-keys');
  const { proxy, client: recording } = await throughProxy();
  await recording.addItems(sessionId, [userMessage('again')]);
  await recording.addItems(sessionId, [userMessage('again')]);
  await recording.getItems(sessionId);
  const keys = proxy.requests.map((request) => request.headers['idempotency-key']);
  assert.equal(keys.length, 3);
  assert.notEqual(keys[0], keys[1]);
  assert.equal(keys[2], undefined, 'a GET carries no key');
  assert.equal((await client.getItems(sessionId)).length, 2);
});

test('a write sent without an Idempotency-Key is not retried', async () => {
  const { proxy, client: retrying } = await throughProxy(firstAttemptFails);
  const write = retrying.addItems(uniqueSessionId('no-key'), [userMessage('x')], { idempotencyKey: null });
  await assert.rejects(write, { status: 503, code: 'service_unavailable' });
  assert.equal(proxy.requests.length, 1);
  assert.equal(proxy.requests[0].headers['idempotency-key'], undefined);
});

test('a transaction is retried even without an Idempotency-Key: its operation id makes it idempotent', async () => {
  const sessionId = uniqueSessionId('tx-retry');
  const { proxy, client: retrying } = await throughProxy(firstAttemptFails);
  const transaction = { type: 'append_items', items: [userMessage('x')] };
  assert.equal(await retrying.applyTransaction(sessionId, 'op-1', transaction, { idempotencyKey: null }), true);
  assert.equal(proxy.requests.length, 2);
});

test('a write with the caller\'s own Idempotency-Key sends that key', async () => {
  const { proxy, client: recording } = await throughProxy(firstAttemptFails);
  await recording.createSession({ sessionId: uniqueSessionId('own-key'), agent: 'keys' }, { idempotencyKey: 'order-42' });
  assert.deepEqual(proxy.requests.map((request) => request.headers['idempotency-key']), ['order-42', 'order-42']);
});

test('a redirect is an error, not a write resent as a GET to another address', async () => {
  const moved = { status: 301, headers: { location: 'https://historyhub.example.com/api/v1/sessions/x/items' } };
  const { proxy, client: redirected } = await throughProxy(() => moved);
  await assert.rejects(redirected.addItems('x', [userMessage('x')]), (error) => {
    assert.equal(error.status, 301);
    assert.match(error.message, /https:\/\/historyhub\.example\.com/);
    return true;
  });
  assert.deepEqual(proxy.requests.map((request) => request.method), ['POST']);
});

test('an error the client caused is not retried', async () => {
  const sessionId = uniqueSessionId('conflict');
  await client.createSession({ sessionId, agent: 'first' });
  const { proxy, client: recording } = await throughProxy();
  await assert.rejects(recording.createSession({ sessionId, agent: 'second' }), { status: 409, code: 'session_conflict' });
  assert.equal(proxy.requests.length, 1);
});

test('a 429 is sent again after the Retry-After it names', async () => {
  const limited = { status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 'rate_limited', message: 'Slow down.' } } };
  const { proxy, client: retrying } = await throughProxy((request, index) => (index === 0 ? limited : undefined));
  assert.equal((await retrying.listSessions({ pageSize: 1 })).pageSize, 1);
  assert.equal(proxy.requests.length, 2);
});

test('a Retry-After longer than the longest pause is not waited out: the error is thrown at once', async () => {
  const { proxy, client: retrying } = await throughProxy(() => ({ ...unavailable, headers: { 'retry-after': '3600' } }));
  await assert.rejects(retrying.listSessions(), { status: 503, code: 'service_unavailable' });
  assert.equal(proxy.requests.length, 1);
});

test('only 500, 502, 503 and 504 among server errors are tried again', async () => {
  const notImplemented = { status: 501, body: { error: { code: 'http_error', message: 'Not implemented.' } } };
  const { proxy, client: retrying } = await throughProxy(() => notImplemented);
  await assert.rejects(retrying.listSessions(), { status: 501 });
  assert.equal(proxy.requests.length, 1);
});

test('a request is tried five times in all by default, as the Python client tries it', async () => {
  const { proxy, client: retrying } = await throughProxy(() => unavailable);
  await assert.rejects(retrying.listSessions(), { status: 503, code: 'service_unavailable' });
  assert.equal(proxy.requests.length, 5);
});

test('retries stop after maxRetries and the last error is thrown', async () => {
  const { proxy, client: retrying } = await throughProxy(() => unavailable, { maxRetries: 2 });
  await assert.rejects(retrying.getItems(uniqueSessionId('down')), { status: 503, code: 'service_unavailable' });
  assert.equal(proxy.requests.length, 3);
});

test('ids are percent-encoded one path segment each, as the Python client encodes them', async () => {
  const sessionId = uniqueSessionId('encoding');
  const { proxy, client: recording } = await throughProxy(() => ({ status: 404, body: { error: { code: 'not_found', message: '-' } } }));
  for (const callId of ['call/1 %ü?#', "it's (*)!~", '.', '..']) {
    await assert.rejects(recording.getClientAction(sessionId, callId), { code: 'not_found' });
  }
  assert.deepEqual(proxy.requests.map((request) => request.url.split('/').at(-1)), [
    'call%2F1%20%25%C3%BC%3F%23',
    'it%27s%20%28%2A%29%21~',
    '%2E',
    '%2E%2E',
  ]);
});

test('NaN or Infinity in a body is refused before anything is sent, not sent as null', async () => {
  const { proxy, client: recording } = await throughProxy();
  const sessionId = uniqueSessionId('not-json');
  await assert.rejects(recording.updateSession(sessionId, { metadata: { score: Number.NaN } }), {
    name: 'TypeError',
    message: 'NaN is not a JSON value (in "score"); nothing was sent.',
  });
  await assert.rejects(recording.addItems(sessionId, [{ type: 'message', role: 'user', content: 'x', weight: Infinity }]), TypeError);
  assert.equal(proxy.requests.length, 0);
});

test('a caller\'s abort ends the call at once, without retrying', async () => {
  const controller = new AbortController();
  const { proxy, client: retrying } = await throughProxy(() => {
    controller.abort(new Error('the caller gave up'));
    return unavailable;
  });
  await assert.rejects(retrying.listSessions({ signal: controller.signal }), { message: 'the caller gave up' });
  assert.equal(proxy.requests.length, 1);
});
