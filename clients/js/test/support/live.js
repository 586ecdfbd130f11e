// The HistoryHub a test file talks to: the one test/run.js started for the
// whole run, or, when a file runs on its own, one started for that file.
import { after } from 'node:test';

import { HistoryHubClient } from '../../src/index.js';
import { startHistoryHub } from './server.js';

let started;

export async function historyHub() {
  const {
    HISTORYHUB_TEST_URL: url,
    HISTORYHUB_TEST_WRITE_KEY: writeKey,
    HISTORYHUB_TEST_READ_KEY: readKey,
    HISTORYHUB_TEST_DECIDE_KEY: decideKey,
  } = process.env;
  if (url) return { url, writeKey, readKey, decideKey };
  if (!started) {
    started = startHistoryHub();
    after(async () => (await started).stop());
  }
  return started;
}

/** A client of the live server with the write key (or the key given). */
export async function liveClient(options = {}) {
  const { url, writeKey } = await historyHub();
  return new HistoryHubClient({ baseUrl: url, apiKey: writeKey, ...options });
}

/** A client of the people who decide: a key with the decide scope (the agent's key may not decide). */
export async function deciderClient(options = {}) {
  const { url, decideKey } = await historyHub();
  return new HistoryHubClient({ baseUrl: url, apiKey: decideKey, ...options });
}

let counter = 0;

/** A session id no other test (nor an earlier run on the same database) uses. */
export function uniqueSessionId(label) {
  counter += 1;
  return `js-${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}
