import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import { HistoryHubError } from './errors.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// The server answers ?wait= for at most this many seconds; longer waits loop.
const LONGEST_WAIT_SECONDS = 60;
const BACKOFF_FIRST_MS = 200;
const BACKOFF_LONGEST_MS = 5_000;
// A Retry-After beyond this is treated as this: a client should not hang for hours.
const RETRY_AFTER_LONGEST_MS = 60_000;

/**
 * Calls to HistoryHub's `/api/v1`, one method an endpoint (docs/api.md).
 *
 * Every write carries an `Idempotency-Key` (a fresh UUID unless the caller
 * gives one, or `null` for none), so a write whose answer was lost can be sent
 * again without being applied twice. Requests are retried with backoff on
 * network errors, 5xx answers (honouring `Retry-After`) and
 * `request_in_progress`, and only when they are idempotent: GETs, writes with
 * an `Idempotency-Key`, and transactions (idempotent by their operation id).
 */
export class HistoryHubClient {
  #apiRoot;
  #apiKey;
  #timeoutMs;
  #maxRetries;

  constructor({ baseUrl, apiKey, timeoutMs = 30_000, maxRetries = 3 } = {}) {
    if (!baseUrl) throw new TypeError('HistoryHubClient needs a baseUrl, e.g. "http://127.0.0.1:8000".');
    if (!apiKey) throw new TypeError('HistoryHubClient needs an apiKey.');
    this.#apiRoot = `${String(baseUrl).replace(/\/+$/, '')}/api/v1`;
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    this.#maxRetries = maxRetries;
  }

  /**
   * One API call. `segments` are the path's parts, each percent-encoded here;
   * the answer's JSON (undefined for 204). Throws HistoryHubError.
   */
  async request(method, segments, { query, body, idempotencyKey, signal, idempotent = false, waitSeconds = 0 } = {}) {
    const url = this.#url(segments, query);
    const headers = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const write = WRITE_METHODS.has(method);
    const key = write ? (idempotencyKey === undefined ? randomUUID() : idempotencyKey) : null;
    if (key !== null) headers['idempotency-key'] = key;
    const retryable = !write || idempotent || key !== null;
    const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
    const timeoutMs = this.#timeoutMs + waitSeconds * 1000;

    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.#attempt(url, init, timeoutMs, signal);
      if (!outcome.error) return outcome.value;
      if (!retryable || !outcome.transient || attempt >= this.#maxRetries) throw outcome.error;
      await delay(outcome.retryAfterMs ?? backoff(attempt), undefined, { signal });
    }
  }

  async #attempt(url, init, timeoutMs, signal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    let status;
    let text;
    let response;
    try {
      // A redirect is answered, not followed: fetch would resend a POST as a GET.
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      response = await fetch(url, { ...init, redirect: 'manual', signal: combined });
      status = response.status;
      text = await response.text();
    } catch (error) {
      // The caller's own abort ends the call; anything else is a lost answer.
      if (signal?.aborted) throw signal.reason;
      const timedOut = timeout.aborted;
      const message = timedOut
        ? `HistoryHub did not answer within ${timeoutMs} ms.`
        : `Could not reach HistoryHub: ${error.cause?.message ?? error.message}`;
      return { error: new HistoryHubError(null, timedOut ? 'timeout' : 'network_error', message, { cause: error }), transient: true };
    }
    if (status >= 300 && status < 400) {
      const message = `HistoryHub answered with a redirect to ${response.headers.get('location')}; use that address as baseUrl.`;
      return { error: new HistoryHubError(status, 'http_error', message) };
    }
    const value = parseJson(text);
    if (response.ok) {
      if (value.failed) {
        return { error: new HistoryHubError(status, 'invalid_response', 'HistoryHub answered with something that is not JSON.') };
      }
      return { value: value.json };
    }
    const detail = value.json?.error;
    const error = typeof detail?.code === 'string'
      ? new HistoryHubError(status, detail.code, String(detail.message ?? ''))
      : new HistoryHubError(status, 'http_error', response.statusText || `HTTP ${status}`);
    return {
      error,
      transient: status >= 500 || error.code === 'request_in_progress',
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    };
  }

  #url(segments, query) {
    const url = `${this.#apiRoot}/${segments.map(pathSegment).join('/')}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const search = params.toString();
    return search ? `${url}?${search}` : url;
  }

  // Sessions ----------------------------------------------------------------

  /** Create a session (201), or get the existing one with this sessionId and agent. */
  createSession(fields, options) {
    return this.request('POST', ['sessions'], { body: fields, ...options });
  }

  getSession(sessionId, options) {
    return this.request('GET', ['sessions', sessionId], options);
  }

  /** A page of sessions, most recently updated first: {items, page, pageSize, total, hasMore}. */
  listSessions({ agent, status, runStatus, q, page, pageSize, ...options } = {}) {
    return this.request('GET', ['sessions'], { query: { agent, status, runStatus, q, page, pageSize }, ...options });
  }

  updateSession(sessionId, changes, options) {
    return this.request('PATCH', ['sessions', sessionId], { body: changes, ...options });
  }

  async deleteSession(sessionId, options) {
    await this.request('DELETE', ['sessions', sessionId], options);
  }

  /**
   * Orcha's `history(sessionId, {page, pageSize})`: the session snapshot plus
   * one page of history items. Page 1 is the newest; items are chronological
   * within a page; `hasMore` says an older page exists.
   */
  history(sessionId, { page, pageSize, ...options } = {}) {
    return this.request('GET', ['sessions', sessionId, 'history'], { query: { page, pageSize }, ...options });
  }

  // The item log ------------------------------------------------------------

  /** The logical history verbatim; with `limit`, the newest `limit` items, still chronological. */
  async getItems(sessionId, { limit, ...options } = {}) {
    return (await this.request('GET', ['sessions', sessionId, 'items'], { query: { limit }, ...options })).items;
  }

  /**
   * Append items; every item is stored, unless `skipExistingIds` asks to skip
   * items whose id the logical history already holds. `agent` names the agent
   * of a session this call creates. Answers {inserted: [bool…], itemCount}.
   */
  addItems(sessionId, items, { agent, skipExistingIds, ...options } = {}) {
    return this.request('POST', ['sessions', sessionId, 'items'], { body: { items, agent, skipExistingIds }, ...options });
  }

  /** The logical history becomes exactly `items`, atomically. */
  replaceItems(sessionId, items, { agent, ...options } = {}) {
    return this.request('PUT', ['sessions', sessionId, 'items'], { body: { items, agent }, ...options });
  }

  /** Remove and return the newest item, or null. */
  async popItem(sessionId, options) {
    return (await this.request('POST', ['sessions', sessionId, 'items', 'pop'], { body: {}, ...options })).item;
  }

  /** Remove every item, the timeline, client actions and recorded operations; the session stays. */
  async clearItems(sessionId, options) {
    await this.request('DELETE', ['sessions', sessionId, 'items'], options);
  }

  /**
   * The logical history becomes `items` (which must hold a `compaction` item
   * first or last); earlier items are archived. Answers {changed, itemCount}.
   */
  compact(sessionId, items, options) {
    return this.request('POST', ['sessions', sessionId, 'compaction'], { body: { items }, ...options });
  }

  /**
   * Apply an `append_items` or `replace_suffix` transaction once. True when
   * applied now, false when this operationId was already applied with an
   * equal transaction.
   */
  async applyTransaction(sessionId, operationId, transaction, options) {
    const body = { operationId, transaction };
    const answer = await this.request('POST', ['sessions', sessionId, 'transactions'], { body, idempotent: true, ...options });
    return answer.applied;
  }

  /** {result: "hit", entry, items} | {result: "miss"} | {result: "kind_mismatch", kind}. */
  findResponse(sessionId, messageId, options) {
    return this.request('GET', ['sessions', sessionId, 'responses', messageId], options);
  }

  // Wire entries and chat-format history ---------------------------------------

  /** Turns and injections, in order. */
  async entries(sessionId, options) {
    return (await this.request('GET', ['sessions', sessionId, 'entries'], options)).entries;
  }

  /** Store an assistant message that belongs to no turn; answers the injection entry. */
  addInjection(sessionId, { content, id }, options) {
    return this.request('POST', ['sessions', sessionId, 'injections'], { body: { content, id }, ...options });
  }

  /** The logical history as Chat Completions messages. */
  async getMessages(sessionId, options) {
    return (await this.request('GET', ['sessions', sessionId, 'messages'], options)).messages;
  }

  /** Replace the logical history with chat messages, all or nothing. */
  setMessages(sessionId, messages, { agent, ...options } = {}) {
    return this.request('PUT', ['sessions', sessionId, 'messages'], { body: { messages, agent }, ...options });
  }

  // Client actions ----------------------------------------------------------------

  /** Open a waiting action: {callId, name, arguments, description?, expiresAt?}. */
  openClientAction(sessionId, action, options) {
    return this.request('POST', ['sessions', sessionId, 'client-actions'], { body: action, ...options });
  }

  /** A page of client actions across sessions, oldest first. */
  listClientActions({ status, agent, sessionId, page, pageSize, ...options } = {}) {
    const query = { status, agent, sessionId, page, pageSize };
    return this.request('GET', ['client-actions'], { query, ...options });
  }

  getClientAction(sessionId, callId, options) {
    return this.request('GET', ['sessions', sessionId, 'client-actions', callId], options);
  }

  /**
   * The action once it is no longer waiting, or as it is after
   * `timeoutSeconds` (default 60). Long-polls the server, which holds a request
   * for at most 60 seconds, as many times as the timeout needs.
   */
  async waitForClientAction(sessionId, callId, { timeoutSeconds = LONGEST_WAIT_SECONDS, ...options } = {}) {
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const remaining = Math.max(0, deadline - Date.now()) / 1000;
      const wait = Math.min(LONGEST_WAIT_SECONDS, Math.round(remaining * 1000) / 1000);
      const action = await this.request('GET', ['sessions', sessionId, 'client-actions', callId], {
        query: { wait },
        waitSeconds: wait,
        ...options,
      });
      if (action.status !== 'waiting' || Date.now() >= deadline) return action;
    }
  }

  /** The client application's result: {output, isError?}. */
  submitClientActionResult(sessionId, callId, result, options) {
    return this.request('POST', ['sessions', sessionId, 'client-actions', callId, 'result'], { body: result, ...options });
  }

  /** {decision: "approve" | "reject", comment?, arguments?}; approved arguments may be edited. */
  decideClientAction(sessionId, callId, decision, options) {
    const segments = ['sessions', sessionId, 'client-actions', callId, 'decision'];
    return this.request('POST', segments, { body: decision, ...options });
  }
}

/** One path segment, percent-encoded: ids may hold "/", "%", spaces or any other character. */
function pathSegment(value) {
  const text = String(value);
  // URL parsers (fetch's too) resolve "." and ".." segments, encoded or not,
  // so such an id would silently address another resource.
  if (text === '.' || text === '..') {
    throw new HistoryHubError(null, 'invalid_input', `"${text}" cannot be sent as a URL path segment.`);
  }
  return encodeURIComponent(text);
}

function parseJson(text) {
  if (text === '') return { json: undefined };
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { failed: true };
  }
}

/** Exponential backoff with jitter, so clients that failed together do not retry together. */
function backoff(attempt) {
  const ceiling = Math.min(BACKOFF_LONGEST_MS, BACKOFF_FIRST_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header) {
  if (header === null) return undefined;
  const seconds = Number(header);
  const milliseconds = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (Number.isNaN(milliseconds)) return undefined;
  return Math.min(RETRY_AFTER_LONGEST_MS, Math.max(0, milliseconds));
}
