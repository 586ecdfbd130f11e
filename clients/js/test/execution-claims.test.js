// runWithApprovals and resumeDecidedRuns claim each approved call's execution
// before the tool runs (docs/api.md, "Executing what was approved, once"):
// the SDK's real Runner with scripted offline models, a live server.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  ARGUMENTS_MISMATCH,
  HistoryHubSession,
  NO_DIGEST,
  approvalTool,
  resumeDecidedRuns,
  runWithApprovals,
} from '../src/agents.js';
import { argumentsDigest } from '../src/index.js';
import { assistantMessage, functionCall } from './support/items.js';
import { deciderClient, liveClient, uniqueSessionId } from './support/live.js';
import { REFUND } from './support/refunds.js';
import { ScriptedModel } from './support/scripted-model.js';
import { Shop, cards, needsApprovalTool, runner } from './support/shop.js';

const client = await liveClient();
const people = await deciderClient();
const ASK = [functionCall('call_refund', 'issue_refund', REFUND)];
const DONE = [assistantMessage('msg_done', 'All done.')];
// What the model reads when the call ran before: Python's sentence around HistoryHub's own.
const RAN_ALREADY = /^HistoryHub refused to run this call again: it ran already \(Client action 'call_refund' was executed already, at [^)]+\), so it did not run twice\.$/;

function hubSession(label) {
  const sessionId = uniqueSessionId(label);
  return { sessionId, session: new HistoryHubSession({ client, sessionId }) };
}

const approve = (sessionId, decision = { decision: 'approve' }) => (action) => people.decideClientAction(sessionId, action.callId, decision);

/** A run that asked for approval of REFUND and was parked at once: {sessionId, run} (run: the parked run, with its state). */
async function parkedRun(shop, label) {
  const { sessionId, session } = hubSession(label);
  await runWithApprovals(shop.agent, 'Refund 25 on order 1234', { session, runner, waitSeconds: 0 });
  const [listed] = (await client.listRuns({ sessionId })).items;
  return { sessionId, run: await client.getRun(sessionId, listed.runId) };
}

/** Park `run` again as it was, with `change` applied to the model's call in its state (as a stale or altered state would be). */
async function parkAgain({ sessionId, run }, change = (call) => call) {
  const state = JSON.parse(run.state, (key, value) =>
    value?.type === 'function_call' && value.callId === 'call_refund' ? change(value) : value,
  );
  await client.parkRun(sessionId, run.runId, { agent: run.agent, state: JSON.stringify(state), callIds: run.callIds });
}

test('an approved call is claimed with the digest of its arguments, then runs once', async () => {
  const shop = new Shop({ makeTool: needsApprovalTool });
  const { sessionId, session } = hubSession('claimed');
  const before = Date.now();
  await runWithApprovals(shop.agent, 'Refund', { session, runner, onApprovalRequest: approve(sessionId) });
  assert.deepEqual(shop.refunds, [[1234, 25]]);
  const action = await client.getClientAction(sessionId, 'call_refund');
  assert.ok(Date.parse(action.executedAt) >= before - 1000, 'claimed by this run');
  assert.equal(action.approvedArgumentsDigest, argumentsDigest(REFUND));
  // The call's card shows when it was executed, and no refused attempt.
  const [card] = cards(await client.history(sessionId), 'call_refund');
  assert.deepEqual([card.approval.executedAt, card.approval.executionRefusedAt], [action.executedAt, undefined]);
});

test('an edited approval is claimed with the edited arguments, which the tool runs with', async () => {
  const shop = new Shop();
  const { sessionId, session } = hubSession('claimed-edit');
  await runWithApprovals(shop.agent, 'Refund', {
    session,
    runner,
    onApprovalRequest: approve(sessionId, { decision: 'approve', arguments: { order: 1234, amount: 20 } }),
  });
  assert.deepEqual(shop.refunds, [[1234, 20]]);
  assert.ok((await client.getClientAction(sessionId, 'call_refund')).executedAt);
});

test('a call whose arguments are not the approved ones does not run, and the model is told why', async () => {
  const shop = new Shop();
  const parked = await parkedRun(shop, 'mismatch');
  await people.decideClientAction(parked.sessionId, 'call_refund', { decision: 'approve' });
  // The run's state now holds other arguments for the approved call id than those the person approved.
  await parkAgain(parked, (call) => ({ ...call, arguments: JSON.stringify({ order: 1234, amount: 2500 }) }));

  const [resumed] = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.equal(resumed.error, undefined);
  assert.deepEqual(shop.refunds, []);
  assert.equal(shop.toolOutput(), ARGUMENTS_MISMATCH);
  assert.deepEqual(resumed.refused, [{ callId: 'call_refund', code: 'arguments_mismatch', message: ARGUMENTS_MISMATCH }]);
  assert.equal(resumed.result.finalOutput, 'All done.');
  const action = await client.getClientAction(parked.sessionId, 'call_refund');
  assert.equal(action.executedAt, null);
  const [card] = cards(await client.history(parked.sessionId), 'call_refund');
  assert.ok(card.approval.executionRefusedAt, 'the refused attempt is on the card');
  assert.equal(card.approval.executedAt, undefined);
});

test('arguments that have no canonical JSON match no approval and never run', async () => {
  const shop = new Shop();
  const parked = await parkedRun(shop, 'no-digest');
  await people.decideClientAction(parked.sessionId, 'call_refund', { decision: 'approve' });
  // A lone surrogate in the call's arguments: JSON text can carry it, RFC 8785 cannot write it.
  await parkAgain(parked, (call) => ({ ...call, arguments: '{"order": 1234, "amount": 25, "note": "\\ud800"}' }));

  const [resumed] = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.equal(resumed.error, undefined);
  assert.deepEqual(shop.refunds, []);
  assert.deepEqual(resumed.refused, [{ callId: 'call_refund', code: 'no_digest', message: NO_DIGEST }]);
  assert.equal(shop.toolOutput(), NO_DIGEST);
  assert.equal((await client.getClientAction(parked.sessionId, 'call_refund')).executedAt, null);
});

test('a run resumed twice runs its tool once: the second time the model is told it ran', async () => {
  const shop = new Shop({ script: [ASK, DONE, [assistantMessage('msg_again', 'Nothing more to do.')]] });
  const parked = await parkedRun(shop, 'twice');
  await people.decideClientAction(parked.sessionId, 'call_refund', { decision: 'approve' });
  const [first] = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.deepEqual([first.result.finalOutput, first.refused], ['All done.', []]);
  assert.deepEqual((await client.listRuns({ sessionId: parked.sessionId })).items, [], 'the run ended and was forgotten');

  // Its state parked again, as when a process stopped after the tool ran and before it forgot the run.
  await parkAgain(parked);
  const [second] = await resumeDecidedRuns(client, [shop.agent], { runner });
  assert.equal(second.error, undefined);
  assert.deepEqual(shop.refunds, [[1234, 25]]);
  assert.deepEqual(second.refused.map((refusal) => [refusal.callId, refusal.code]), [['call_refund', 'already_executed']]);
  assert.match(shop.toolOutput(), RAN_ALREADY);
  assert.equal(second.refused[0].message, shop.toolOutput());
  assert.equal(second.result.finalOutput, 'Nothing more to do.');
});

test('a resumer whose lease ran out while the tool ran does not let a second resumer run it again', async () => {
  let release;
  const released = new Promise((resolveRelease) => (release = resolveRelease));
  let started;
  const running = new Promise((resolveStarted) => (started = resolveStarted));
  let calls = 0;
  // A slow tool the first time: it starts, then waits until the test lets it finish.
  const shop = new Shop({
    makeTool: (options) =>
      approvalTool({
        ...options,
        execute: async (args, ...rest) => {
          calls += 1;
          if (calls === 1) {
            started();
            await released;
          }
          return options.execute(args, ...rest);
        },
      }),
  });
  const parked = await parkedRun(shop, 'race');
  await people.decideClientAction(parked.sessionId, 'call_refund', { decision: 'approve' });

  const other = await liveClient();
  const first = resumeDecidedRuns(client, [shop.agent], { runner, leaseSeconds: 1 });
  await running;
  // The first resumer's claim on the run ends while its tool still runs: the run is ready to resume again.
  let ready = [];
  for (const deadline = Date.now() + 10_000; ready.length === 0 && Date.now() < deadline; ) {
    await new Promise((resolvePause) => setTimeout(resolvePause, 200));
    ready = (await client.listRuns({ ready: true, sessionId: parked.sessionId })).items;
  }
  assert.equal(ready.length, 1, 'the lease ran out');
  const secondModel = new ScriptedModel([[assistantMessage('msg_second', 'It was done already.')]]);
  const [second] = await resumeDecidedRuns(other, [shop.agent.clone({ model: secondModel })], { runner });
  assert.deepEqual(second.refused.map((refusal) => refusal.code), ['already_executed']);
  assert.match(secondModel.requests[0].input.find((item) => item.type === 'function_call_result').output.text, RAN_ALREADY);
  assert.equal(second.result.finalOutput, 'It was done already.');
  release();
  const [firstResumed] = await first;
  assert.equal(firstResumed.result.finalOutput, 'All done.');
  assert.deepEqual(firstResumed.refused, []);
  assert.deepEqual(shop.refunds, [[1234, 25]], 'the tool ran once, in the first resumer');
});

test('an approval of an earlier call with the same id never runs a new one', async () => {
  const { sessionId, session } = hubSession('reused-id');
  const first = new Shop();
  await runWithApprovals(first.agent, 'Refund', { session, runner, onApprovalRequest: approve(sessionId) });
  assert.deepEqual(first.refunds, [[1234, 25]]);

  // The model calls again with the same call id and arguments: the action it finds is the one approved and run before.
  const again = new Shop();
  let asked = 0;
  const result = await runWithApprovals(again.agent, 'Refund once more', { session, runner, onApprovalRequest: () => (asked += 1) });
  assert.equal(result.finalOutput, 'All done.');
  assert.deepEqual(again.refunds, []);
  assert.match(again.toolOutput(), RAN_ALREADY);
  assert.equal(asked, 1);

  // With other arguments, the call id is refused when it asks: the run fails and nothing runs.
  const altered = new Shop({ script: [[functionCall('call_refund', 'issue_refund', { order: 1234, amount: 2500 })]] });
  await assert.rejects(runWithApprovals(altered.agent, 'Refund more', { session, runner }), { code: 'action_result_conflict' });
  assert.deepEqual(altered.refunds, []);
});
