// A run parked while a person decides, its process gone, resumed by another
// process with the package's resume command (bin/historyhub-resume.js).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

import { deciderClient, historyHub, liveClient, uniqueSessionId } from './support/live.js';
import { REFUND } from './support/refunds.js';

const hub = await historyHub();
const client = await liveClient();
const people = await deciderClient();
const PACKAGE = new URL('..', import.meta.url).pathname;
const AGENT_MODULE = 'test/support/parked-agent.js#agent';
const logs = await mkdtemp(join(tmpdir(), 'historyhub-resume-'));
after(() => rm(logs, { recursive: true, force: true }));

/** The environment of one test's processes: its own agent name and refund log. */
function agentEnvironment(label) {
  return {
    ...process.env,
    PARKED_AGENT_NAME: uniqueSessionId(`${label}-agent`),
    PARKED_AGENT_LOG: join(logs, `${label}.jsonl`),
    HISTORYHUB_URL: hub.url,
    HISTORYHUB_API_KEY: hub.writeKey,
  };
}

/** The refunds the tool made, in any process, with the process that made each. */
async function refundsMade(environment) {
  const text = await readFile(environment.PARKED_AGENT_LOG, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

/** Start the agent process, read the action it announces, then end the process, as a crash or a deploy would. */
async function parkedByAnotherProcess(sessionId, environment) {
  const agent = spawn(process.execPath, ['test/support/parked-agent.js', hub.url, hub.writeKey, sessionId], {
    cwd: PACKAGE,
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  agent.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = once(agent, 'exit');
  try {
    const line = await Promise.race([once(createInterface({ input: agent.stdout }), 'line'), exited]);
    assert.equal(agent.exitCode, null, `the agent process ended before it asked:\n${stderr}`);
    return JSON.parse(line[0]);
  } finally {
    agent.kill();
    await exited;
  }
}

/** The README's resume command, in a process of its own: {code, stdout, stderr}. */
async function resumeCommand(environment, ...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/historyhub-resume.js', ...args], {
      cwd: PACKAGE,
      env: environment,
    });
    return { code: 0, stdout, stderr };
  } catch (failure) {
    if (typeof failure.code !== 'number') throw failure;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

test('a run whose process is gone is resumed by the resume command after the decision', async () => {
  const sessionId = uniqueSessionId('parked-elsewhere');
  const environment = agentEnvironment('elsewhere');
  const action = await parkedByAnotherProcess(sessionId, environment);
  assert.deepEqual([action.callId, action.name, action.arguments], ['call_refund', 'issue_refund', REFUND]);
  const [parked] = (await client.listRuns({ sessionId })).items;
  assert.deepEqual([parked.agent, parked.callIds, parked.ready], [environment.PARKED_AGENT_NAME, ['call_refund'], false]);
  assert.equal((await client.getSession(sessionId)).runStatus, 'waiting_for_client_action');

  await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve', arguments: { order: 1234, amount: 20 } });
  assert.deepEqual((await client.listRuns({ ready: true, sessionId })).items.map((run) => run.runId), [parked.runId]);

  const resumer = await resumeCommand(environment, AGENT_MODULE);
  assert.equal(resumer.code, 0, resumer.stderr);
  assert.equal(resumer.stdout, `${sessionId} ${parked.runId}: completed: Done: Refunded 20 on order 1234.\n`);
  const refunds = await refundsMade(environment);
  assert.deepEqual(refunds.map((made) => made.refund), [[1234, 20]], 'the tool ran once, with the approved arguments');
  assert.notEqual(refunds[0].pid, process.pid);
  const items = await client.getItems(sessionId);
  assert.deepEqual(items.map((item) => item.type), ['message', 'function_call', 'function_call_result', 'message']);
  assert.equal(items[2].output.text, 'Refunded 20 on order 1234.');
  assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
  assert.deepEqual((await client.listRuns({ sessionId })).items, []);
});

test('two resume commands at once resume a run once', async () => {
  const sessionId = uniqueSessionId('two-resumers');
  const environment = agentEnvironment('two-resumers');
  await parkedByAnotherProcess(sessionId, environment);
  await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve' });

  const resumers = await Promise.all([resumeCommand(environment, AGENT_MODULE), resumeCommand(environment, AGENT_MODULE)]);
  assert.deepEqual(resumers.map((resumer) => resumer.code), [0, 0], resumers.map((resumer) => resumer.stderr).join('\n'));
  const lines = resumers.flatMap((resumer) => resumer.stdout.split('\n').filter(Boolean));
  assert.equal(lines.length, 1, 'one of them resumed it, the other found it taken');
  assert.match(lines[0], /: completed: Done: Refunded 25 on order 1234\.$/);
  assert.deepEqual((await refundsMade(environment)).map((made) => made.refund), [[1234, 25]]);
  assert.ok((await client.getClientAction(sessionId, 'call_refund')).executedAt, 'the one that ran claimed it first');
});

test('the resume command never runs a call twice: a run parked again after it ran is told the call ran', async () => {
  const sessionId = uniqueSessionId('resumed-twice');
  const environment = agentEnvironment('resumed-twice');
  await parkedByAnotherProcess(sessionId, environment);
  const [listed] = (await client.listRuns({ sessionId })).items;
  const parked = await client.getRun(sessionId, listed.runId);
  await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve' });
  const first = await resumeCommand(environment, AGENT_MODULE);
  assert.equal(first.stdout, `${sessionId} ${parked.runId}: completed: Done: Refunded 25 on order 1234.\n`);
  const { executedAt } = await client.getClientAction(sessionId, 'call_refund');
  assert.ok(executedAt, 'claimed before it ran');

  // The same state parked again, as when a resumer stopped after the tool ran and before it forgot the run.
  await client.parkRun(sessionId, parked.runId, { agent: parked.agent, state: parked.state, callIds: parked.callIds });
  const second = await resumeCommand(environment, AGENT_MODULE);
  assert.equal(second.code, 0, second.stderr);
  const ranAlready = 'HistoryHub refused to run this call again: it ran already \\(.+\\), so it did not run twice\\.';
  assert.match(second.stdout, new RegExp(`^${sessionId} ${parked.runId}: completed: Done: ${ranAlready} \\[call_refund not run: already_executed\\]\n$`));
  assert.deepEqual((await refundsMade(environment)).map((made) => made.refund), [[1234, 25]]);
  assert.equal((await client.getClientAction(sessionId, 'call_refund')).executedAt, executedAt);
});

test('the resume command with --watch keeps resuming runs as they are decided', async () => {
  const environment = agentEnvironment('watched');
  const watcher = spawn(process.execPath, ['bin/historyhub-resume.js', AGENT_MODULE, '--watch', '0.2'], {
    cwd: PACKAGE,
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(watcher, 'exit');
  const lines = createInterface({ input: watcher.stdout })[Symbol.asyncIterator]();
  try {
    // One run after the other: the second is parked and decided after the watcher resumed the first.
    for (const label of ['watched-first', 'watched-second']) {
      const sessionId = uniqueSessionId(label);
      await parkedByAnotherProcess(sessionId, environment);
      await people.decideClientAction(sessionId, 'call_refund', { decision: 'approve' });
      const line = await Promise.race([lines.next(), exited]);
      assert.match(line.value, new RegExp(`^${sessionId} run_[0-9a-f]+: completed: Done: Refunded 25 on order 1234\\.$`));
      assert.equal((await client.getSession(sessionId)).runStatus, 'completed');
    }
  } finally {
    watcher.kill();
    await exited;
  }
  assert.equal((await refundsMade(environment)).length, 2);
});

test('the resume command with nothing to resume says nothing and succeeds', async () => {
  const resumer = await resumeCommand(agentEnvironment('nothing'), AGENT_MODULE);
  assert.deepEqual([resumer.code, resumer.stdout], [0, '']);
});

test('the resume command without an agent, a key or a FILE#AGENT reference says how to call it', async () => {
  const environment = agentEnvironment('usage');
  const withoutKey = { ...environment, HISTORYHUB_API_KEY: '' };
  for (const [env, args, reason] of [
    [environment, [], 'name at least one starting agent'],
    [withoutKey, [AGENT_MODULE], 'give --url and --api-key, or set HISTORYHUB_URL and HISTORYHUB_API_KEY'],
    [environment, ['test/support/parked-agent.js'], '"test/support/parked-agent.js" is not FILE#AGENT'],
    [environment, ['test/support/parked-agent.js#nobody'], '"test/support/parked-agent.js#nobody" is not an agent'],
    [environment, [AGENT_MODULE, '--watch', 'often'], '--watch takes a number of seconds'],
  ]) {
    const resumer = await resumeCommand(env, ...args);
    assert.equal(resumer.code, 2, reason);
    assert.equal(resumer.stderr.split('\n')[0], `historyhub-resume: ${reason}`);
    assert.equal(resumer.stdout, '');
  }
});
