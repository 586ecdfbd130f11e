import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';

import { HistoryHubError, apiError } from './errors.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// The server answers ?wait= for at most this many seconds; longer waits loop (docs/api.md).
const LONGEST_WAIT_SECONDS = 60;
// How long after expiresAt a waiter looks again, so the expiry is already visible.
const EXPIRY_MARGIN_MS = 250;
// Answers worth another try: the server was briefly unable to answer, or asked us to slow down.
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
// A repeat that arrived while the first request with its Idempotency-Key was still running.
const RETRY_CODES = new Set(['request_in_progress']);
const BACKOFF_FIRST_MS = 250;
// The longest pause between tries; a Retry-After beyond it is not waited out.
const LONGEST_PAUSE_MS = 30_000;
const DEFAULT_MAX_CONNECTIONS = 10;

/**
 * Calls to HistoryHub's `/api/v1`, one method an endpoint (docs/api.md).
 *
 * Every write carries an `Idempotency-Key` (a fresh UUID unless the caller
 * gives one, or `null` for none), so a write whose answer was lost can be sent
 * again without being applied twice. Only idempotent requests are tried again
 * (GETs, writes with an `Idempotency-Key`, and transactions, idempotent by
 * their operation id), and only after a lost answer, 429, 500, 502, 503, 504
 * or `request_in_progress`, as the Python client does (docs/clients.md).
 *
 * It speaks HTTP with node:http, not fetch: fetch's URL parser resolves a
 * `%2E` path segment away, so a call id "." could not be addressed.
 * Ordinary calls share a pool of `maxConnections` kept-alive connections;
 * long polls have a pool of their own without a limit, so agents waiting for
 * people never hold the connections other calls need.
 */
export class HistoryHubClient {
  #apiRoot;
  #apiKey;
  #timeoutMs;
  #maxRetries;
  #transport;
  #calls;
  #waits;

  constructor({ baseUrl, apiKey, timeoutMs = 30_000, maxRetries = 4, maxConnections = DEFAULT_MAX_CONNECTIONS } = {}) {
    if (!baseUrl) throw new TypeError('HistoryHubClient needs a baseUrl, e.g. "http://127.0.0.1:8000".');
    if (!apiKey) throw new TypeError('HistoryHubClient needs an apiKey.');
    this.#apiRoot = new URL(`${String(baseUrl).replace(/\/+$/, '')}/api/v1`);
    if (!['http:', 'https:'].includes(this.#apiRoot.protocol)) {
      throw new TypeError(`HistoryHubClient needs an http or https baseUrl, not ${this.#apiRoot.protocol}.`);
    }
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    this.#maxRetries = maxRetries;
    this.#transport = this.#apiRoot.protocol === 'https:' ? https : http;
    this.#calls = new this.#transport.Agent({ keepAlive: true, maxSockets: maxConnections });
    this.#waits = new this.#transport.Agent({ keepAlive: true });
  }

  /** Close the kept-alive connections; calls made afterwards open new ones. */
  close() {
    this.#calls.destroy();
    this.#waits.destroy();
  }

  /**
   * One API call. `segments` are the path's parts, each percent-encoded here;
   * the answer's JSON (undefined for 204). Throws HistoryHubError.
   */
  async request(method, segments, { query, body, idempotencyKey, signal, idempotent = false, waitSeconds } = {}) {
    const path = this.#path(segments, query);
    const headers = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    const content = body === undefined ? undefined : Buffer.from(JSON.stringify(body, refuseNonFinite), 'utf8');
    if (content !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(content.length);
    }
    const write = WRITE_METHODS.has(method);
    const key = write ? (idempotencyKey === undefined ? randomUUID() : idempotencyKey) : null;
    if (key !== null) headers['idempotency-key'] = key;
    const retryable = !write || idempotent || key !== null;
    const longPoll = waitSeconds !== undefined;
    const timeoutMs = this.#timeoutMs + (waitSeconds ?? 0) * 1000;
    const attempt = { method, path, headers, content, timeoutMs, signal, pool: longPoll ? this.#waits : this.#calls };

    for (let tries = 1; ; tries += 1) {
      const outcome = await this.#attempt(attempt);
      if (!outcome.error) return outcome.value;
      const pauseMs = retryable && tries <= this.#maxRetries ? pauseBeforeRetry(outcome, tries - 1) : undefined;
      if (pauseMs === undefined) throw outcome.error;
      await delay(pauseMs, undefined, { signal });
    }
  }

  /** One try: {value} for a success, or {error, retryAfterMs} (retryAfterMs only from an answer that named one). */
  async #attempt({ method, path, headers, content, timeoutMs, signal, pool }) {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response;
    try {
      response = await this.#send(method, path, headers, content, pool, signal ? AbortSignal.any([signal, timeout]) : timeout);
    } catch (error) {
      // The caller's own abort ends the call; anything else is a lost answer.
      if (signal?.aborted) throw signal.reason;
      const message = timeout.aborted
        ? `HistoryHub did not answer within ${timeoutMs} ms.`
        : `Could not reach HistoryHub: ${error.message}`;
      return { error: new HistoryHubError(null, 'connection_failed', message, { cause: error }) };
    }
    const { status } = response;
    if (status >= 300 && status < 400) {
      const message = `HistoryHub answered with a redirect to ${response.headers.location}; use that address as baseUrl.`;
      return { error: new HistoryHubError(status, 'http_error', message) };
    }
    const value = parseJson(response.text);
    if (status < 300) {
      if (value.failed) {
        return { error: new HistoryHubError(status, 'invalid_answer', 'HistoryHub answered with something that is not JSON.') };
      }
      return { value: value.json };
    }
    const detail = value.json?.error;
    const error = typeof detail?.code === 'string'
      ? apiError(status, detail.code, String(detail.message ?? ''))
      : new HistoryHubError(status, 'http_error', `HistoryHub answered ${status}.`);
    return { error, retryAfterMs: retryAfterMs(response.headers['retry-after']) };
  }

  /** The raw exchange: {status, headers, text}. The path is sent exactly as given. */
  #send(method, path, headers, content, agent, signal) {
    const { port } = this.#apiRoot;
    // node:http takes an IPv6 address without the brackets a URL writes it in.
    const hostname = this.#apiRoot.hostname.replace(/^\[(.*)\]$/, '$1');
    return new Promise((resolveAnswer, reject) => {
      // A redirect is answered, not followed: following would resend a write elsewhere.
      const request = this.#transport.request({ method, hostname, port, path, headers, agent, signal }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          if (!response.complete) {
            reject(new Error('The connection closed before the answer was complete.'));
            return;
          }
          resolveAnswer({ status: response.statusCode, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      request.on('error', reject);
      request.end(content);
    });
  }

  #path(segments, query) {
    const path = `${this.#apiRoot.pathname}/${segments.map(pathSegment).join('/')}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const search = params.toString();
    return search ? `${path}?${search}` : path;
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
   * The action once it is no longer waiting (or once its expiresAt has
   * passed), or as it is after `timeoutSeconds`; without a timeout, as long as
   * it takes. Long-polls the server, which holds a request for at most 60
   * seconds, as many times as the wait needs; once the action's expiresAt is
   * known, the next poll ends just after it.
   */
  async waitForClientAction(sessionId, callId, { timeoutSeconds, ...options } = {}) {
    const deadline = timeoutSeconds === undefined ? undefined : Date.now() + timeoutSeconds * 1000;
    let waitMs = LONGEST_WAIT_SECONDS * 1000;
    for (;;) {
      if (deadline !== undefined) waitMs = Math.min(waitMs, Math.max(0, deadline - Date.now()));
      const wait = Math.round(waitMs) / 1000;
      const action = await this.request('GET', ['sessions', sessionId, 'client-actions', callId], {
        query: { wait },
        waitSeconds: wait,
        ...options,
      });
      const untilExpiryMs = msUntilExpiry(action);
      if (action.status !== 'waiting' || untilExpiryMs <= 0) return action;
      if (deadline !== undefined && Date.now() >= deadline) return action;
      waitMs = Math.min(LONGEST_WAIT_SECONDS * 1000, untilExpiryMs + EXPIRY_MARGIN_MS);
    }
  }

  /** The client application's result: {output, isError?}. */
  submitClientActionResult(sessionId, callId, result, options) {
    return this.request('POST', ['sessions', sessionId, 'client-actions', callId, 'result'], { body: result, ...options });
  }

  /**
   * {decision: "approve" | "reject" | "respond" | "dismiss", comment?, arguments?, response?}:
   * an approval may carry edited arguments, a response the person's answer.
   */
  decideClientAction(sessionId, callId, decision, options) {
    const segments = ['sessions', sessionId, 'client-actions', callId, 'decision'];
    return this.request('POST', segments, { body: decision, ...options });
  }

  /**
   * Claim the one execution of an approved action, just before running it,
   * with `argumentsDigest` (argumentsDigest() of the arguments about to run):
   * {executedAt, argumentsDigest} the first time. A refusal means the tool must
   * not run: NotApprovedError (409 `not_approved`), ArgumentsMismatchError
   * (`arguments_mismatch`, recorded on the card and in the audit log) or
   * AlreadyExecutedError (`already_executed`). A claim whose answer was lost
   * is sent again with its Idempotency-Key, and the server replays the first
   * answer.
   */
  claimExecution(sessionId, callId, { argumentsDigest }, options) {
    const segments = ['sessions', sessionId, 'client-actions', callId, 'execution'];
    return this.request('POST', segments, { body: { argumentsDigest }, ...options });
  }

  // Parked runs (docs/python-client.md, "The runs API") -------------------------------

  /** Keep a run's serialised state until the client actions `callIds` are decided: {agent, state, callIds}. */
  parkRun(sessionId, runId, { agent, state, callIds }, options) {
    return this.request('PUT', ['sessions', sessionId, 'runs', runId], { body: { agent, state, callIds }, ...options });
  }

  getRun(sessionId, runId, options) {
    return this.request('GET', ['sessions', sessionId, 'runs', runId], options);
  }

  async deleteRun(sessionId, runId, options) {
    await this.request('DELETE', ['sessions', sessionId, 'runs', runId], options);
  }

  /** A page of parked runs (without their state), oldest change first; `ready: true`: every awaited action decided, none claimed. */
  listRuns({ ready, agent, sessionId, page, pageSize, ...options } = {}) {
    return this.request('GET', ['runs'], { query: { ready, agent, sessionId, page, pageSize }, ...options });
  }

  /** Take a ready run to resume it: the run with its state; 409 `run_claimed` when another resumer has it. */
  claimRun(sessionId, runId, { leaseSeconds, ...options } = {}) {
    const segments = ['sessions', sessionId, 'runs', runId, 'claim'];
    return this.request('POST', segments, { body: { leaseSeconds }, ...options });
  }
}

/**
 * One path segment, percent-encoded as the Python client encodes it: every
 * character but A-Z a-z 0-9 - . _ ~, so ids may hold "/", "%", spaces or
 * anything else; "." and ".." go as %2E, which the server reads as the id.
 */
function pathSegment(value) {
  const text = String(value);
  if (text === '.' || text === '..') return text.replaceAll('.', '%2E');
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** JSON.stringify's replacer: NaN and Infinity are not JSON, and would silently become null. */
function refuseNonFinite(key, value) {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`${value} is not a JSON value${key ? ` (in "${key}")` : ''}; nothing was sent.`);
  }
  return value;
}

function parseJson(text) {
  if (text === '') return { json: undefined };
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { failed: true };
  }
}

/**
 * Milliseconds to wait before try `attempt + 2` after a failed try, or
 * undefined to give up: the error is not worth another try, or the server
 * asked for a longer pause than LONGEST_PAUSE_MS.
 */
function pauseBeforeRetry({ error, retryAfterMs: asked }, attempt) {
  const transient = error.status === null || RETRY_STATUSES.has(error.status) || RETRY_CODES.has(error.code);
  if (!transient) return undefined;
  // Exponential backoff with jitter, so clients that failed together do not retry together.
  const ceiling = Math.min(LONGEST_PAUSE_MS, BACKOFF_FIRST_MS * 2 ** attempt);
  const backoff = ceiling / 2 + Math.random() * (ceiling / 2);
  if (asked === undefined) return backoff;
  return asked > LONGEST_PAUSE_MS ? undefined : Math.max(backoff, asked);
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header) {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  const milliseconds = header.trim() !== '' && Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (Number.isNaN(milliseconds)) return undefined;
  return Math.max(0, milliseconds);
}

/** Milliseconds until a client action's expiresAt (negative once past); Infinity when it has none. */
function msUntilExpiry(action) {
  return action.expiresAt ? Date.parse(action.expiresAt) - Date.now() : Infinity;
}
