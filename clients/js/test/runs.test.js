// The runs endpoints through the client: park a run's state beside its
// session, read, list and claim it, and forget it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { deciderClient, liveClient, uniqueSessionId } from './support/live.js';

const client = await liveClient();
const people = await deciderClient();

/** A session with two waiting client actions, and an agent name no other test parks runs for. */
async function sessionWithActions(label) {
  const sessionId = uniqueSessionId(label);
  const agent = uniqueSessionId(`${label}-agent`);
  await client.createSession({ sessionId, agent });
  for (const callId of ['call_a', 'call_b']) {
    await client.openClientAction(sessionId, { callId, name: 'issue_refund', arguments: { order: 1 } });
  }
  return { sessionId, agent };
}

test('a parked run is kept with its state, read back, replaced, and forgotten', async () => {
  const { sessionId, agent } = await sessionWithActions('park');
  const parked = await client.parkRun(sessionId, 'run-1', { agent, state: '{"turn": 1}', callIds: ['call_a', 'call_b'] });
  assert.deepEqual(
    [parked.sessionId, parked.runId, parked.agent, parked.state, parked.callIds, parked.ready, parked.claimedUntil],
    [sessionId, 'run-1', agent, '{"turn": 1}', ['call_a', 'call_b'], false, null],
  );
  assert.deepEqual(await client.getRun(sessionId, 'run-1'), parked);

  const replaced = await client.parkRun(sessionId, 'run-1', { agent, state: '{"turn": 2}', callIds: ['call_b'] });
  assert.deepEqual([replaced.state, replaced.callIds, replaced.createdAt], ['{"turn": 2}', ['call_b'], parked.createdAt]);

  assert.equal(await client.deleteRun(sessionId, 'run-1'), undefined);
  await assert.rejects(client.getRun(sessionId, 'run-1'), { status: 404, code: 'not_found' });
  await assert.rejects(client.deleteRun(sessionId, 'run-1'), { status: 404, code: 'not_found' });
});

test('parking for a call id the session has no action for is not_found, and changes nothing', async () => {
  const { sessionId, agent } = await sessionWithActions('park-unknown');
  await assert.rejects(client.parkRun(sessionId, 'run-1', { agent, state: 's', callIds: ['call_a', 'nope'] }), {
    status: 404,
    code: 'not_found',
  });
  assert.deepEqual((await client.listRuns({ sessionId })).items, []);
});

test('runs are listed without their state; ready ones once every awaited action is decided', async () => {
  const { sessionId, agent } = await sessionWithActions('list');
  await client.parkRun(sessionId, 'run-a', { agent, state: 'a', callIds: ['call_a'] });
  await client.parkRun(sessionId, 'run-b', { agent, state: 'b', callIds: ['call_b'] });
  await people.decideClientAction(sessionId, 'call_a', { decision: 'approve' });

  const all = await client.listRuns({ agent });
  assert.deepEqual(all.items.map((run) => [run.runId, run.ready, 'state' in run]), [['run-a', true, false], ['run-b', false, false]]);
  assert.deepEqual([all.page, all.pageSize, all.total, all.hasMore], [1, 50, 2, false]);
  assert.deepEqual((await client.listRuns({ agent, ready: true })).items.map((run) => run.runId), ['run-a']);
  assert.deepEqual((await client.listRuns({ agent, ready: false })).items.map((run) => run.runId), ['run-b']);
  assert.deepEqual((await client.listRuns({ sessionId, pageSize: 1, page: 2 })).items.map((run) => run.runId), ['run-b']);
});

test('a ready run is claimed by one resumer at a time, with its state', async () => {
  const { sessionId, agent } = await sessionWithActions('claim');
  await client.parkRun(sessionId, 'run-1', { agent, state: 'the state', callIds: ['call_a', 'call_b'] });
  await assert.rejects(client.claimRun(sessionId, 'run-1'), (error) => {
    assert.deepEqual([error.status, error.code], [409, 'run_not_ready']);
    assert.match(error.message, /'call_a', 'call_b'/);
    return true;
  });

  await people.decideClientAction(sessionId, 'call_a', { decision: 'approve' });
  await people.decideClientAction(sessionId, 'call_b', { decision: 'reject' });
  const claims = await Promise.allSettled([client.claimRun(sessionId, 'run-1', { leaseSeconds: 60 }), client.claimRun(sessionId, 'run-1')]);
  const won = claims.filter((claim) => claim.status === 'fulfilled').map((claim) => claim.value);
  const lost = claims.filter((claim) => claim.status === 'rejected').map((claim) => claim.reason.code);
  assert.deepEqual(lost, ['run_claimed']);
  assert.equal(won.length, 1);
  assert.equal(won[0].state, 'the state');
  assert.match(won[0].claimedBy, /js tests \(write\)/);
  assert.ok(Date.parse(won[0].claimedUntil) > Date.now());
  assert.equal((await client.getRun(sessionId, 'run-1')).ready, false, 'a claimed run is not ready for another');
});

test('a lease out of range is invalid_input', async () => {
  const { sessionId, agent } = await sessionWithActions('lease');
  await client.parkRun(sessionId, 'run-1', { agent, state: 's', callIds: ['call_a'] });
  await assert.rejects(client.claimRun(sessionId, 'run-1', { leaseSeconds: 0 }), { status: 400, code: 'invalid_input' });
});
