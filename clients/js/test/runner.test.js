// The SDK's own Runner, driven by a scripted offline model, keeping its
// conversation in HistoryHub exactly as it keeps it in MemorySession.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Agent, MemorySession, OutputGuardrailTripwireTriggered, Runner, tool } from '@openai/agents';

import { HistoryHubSession } from '../src/agents.js';
import { assistantMessage, compactionItem, functionCall } from './support/items.js';
import { liveClient, uniqueSessionId } from './support/live.js';
import { ScriptedModel } from './support/scripted-model.js';

const client = await liveClient();
const runner = new Runner({ tracingDisabled: true });

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
  execute: async ({ city }) => `Sunny in ${city}`,
});

const noSecrets = {
  name: 'no_secrets',
  execute: async ({ agentOutput }) => ({ tripwireTriggered: String(agentOutput).includes('secret'), outputInfo: {} }),
};

function weatherAgent(script) {
  const model = new ScriptedModel(script);
  return { model, agent: new Agent({ name: 'weather', instructions: 'Answer briefly.', model, tools: [getWeather] }) };
}

/** The session, wrapped so a test can see which Session methods the runner called. */
function recorded(session) {
  const calls = [];
  const proxy = new Proxy(session, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args) => {
        calls.push({ method: property, args });
        return value.apply(target, args);
      };
    },
  });
  return { session: proxy, methods: () => calls.map((call) => call.method), calls };
}

function hubSession(label) {
  const sessionId = uniqueSessionId(label);
  return { sessionId, session: new HistoryHubSession({ client, sessionId, agent: 'weather' }) };
}

/** Run the same turns with a fresh copy of the script on a session; the model's requests. */
async function converse(session, script, turns) {
  const { model, agent } = weatherAgent(structuredClone(script));
  for (const input of turns) await runner.run(agent, input, { session });
  return model.requests.map((request) => request.input);
}

const twoTurnsWithTools = [
  [functionCall('call_paris', 'get_weather', { city: 'Paris' })],
  [assistantMessage('msg_paris', 'It is sunny in Paris.')],
  [functionCall('call_rome', 'get_weather', { city: 'Rome' })],
  [assistantMessage('msg_rome', 'Sunny in Rome too.')],
];

test('two turns with tool calls are stored item for item as MemorySession stores them', async () => {
  const { sessionId, session } = hubSession('two-turns');
  const memory = new MemorySession();
  const turns = ['Weather in Paris?', 'And in Rome?'];
  const hubRequests = await converse(session, twoTurnsWithTools, turns);
  const memoryRequests = await converse(memory, twoTurnsWithTools, turns);

  const stored = await client.getItems(sessionId);
  assert.deepEqual(stored, await memory.getItems());
  assert.deepEqual(await session.getItems(), stored);
  assert.equal(stored.length, 8, 'per turn: the question, the call, its result and the answer');
  // The second turn's model input was rebuilt from HistoryHub as from memory.
  assert.deepEqual(hubRequests, memoryRequests);

  const history = await client.history(sessionId);
  assert.deepEqual(
    history.items.map((item) => [item.type, item.role ?? item.name, item.status]),
    [
      ['message', 'user', undefined],
      ['action', 'get_weather', 'completed'],
      ['message', 'assistant', undefined],
      ['message', 'user', undefined],
      ['action', 'get_weather', 'completed'],
      ['message', 'assistant', undefined],
    ],
  );
});

test('a model that reuses one id for every reply keeps every reply', async () => {
  // Waits for the server change that stores every item (ids are not identities).
  const script = [
    [assistantMessage('__fake_id__', 'Hello.')],
    [assistantMessage('__fake_id__', 'Hello again.')],
  ];
  const { sessionId, session } = hubSession('reused-ids');
  const memory = new MemorySession();
  await converse(session, script, ['Hi', 'Hi again']);
  await converse(memory, script, ['Hi', 'Hi again']);
  assert.deepEqual(await client.getItems(sessionId), await memory.getItems());
  assert.equal((await client.getItems(sessionId)).length, 4);
});

test('a compaction returned by the model replaces the history through HistoryHub\'s compaction', async () => {
  const script = [
    [assistantMessage('msg_1', 'It is sunny.')],
    [compactionItem('summary-of-turn-1'), assistantMessage('msg_2', 'You are welcome.')],
  ];
  const { sessionId, session } = hubSession('runner-compaction');
  const hub = recorded(session);
  const memory = new MemorySession();
  const { agent } = weatherAgent(script);
  await runner.run(agent, 'Weather?', { session: hub.session });
  // A client action still waiting survives a compaction; a clear would remove it.
  await client.openClientAction(sessionId, { callId: 'approve-1', name: 'approve_refund', arguments: { amount: 5 } });
  await runner.run(agent, 'Thanks', { session: hub.session });
  await converse(memory, script, ['Weather?', 'Thanks']);

  assert.ok(hub.methods().includes('replaceHistoryWithCompaction'));
  assert.ok(!hub.methods().includes('clearSession'));
  const stored = await client.getItems(sessionId);
  assert.deepEqual(stored, [compactionItem('summary-of-turn-1'), assistantMessage('msg_2', 'You are welcome.')]);
  assert.deepEqual(stored, await memory.getItems());
  const snapshot = await client.getSession(sessionId);
  assert.deepEqual(snapshot.pendingClientActions.map((action) => action.callId), ['approve-1']);
  const history = await client.history(sessionId);
  assert.deepEqual(
    history.items.map((item) => item.content?.[0]?.text ?? item.callId),
    ['approve-1', 'You are welcome.'],
  );
});

test('output blocked by a guardrail is persisted through a HistoryHub transaction', async () => {
  const script = [
    [functionCall('call_1', 'get_weather', { city: 'Paris' })],
    [assistantMessage('msg_1', 'The secret is that it is sunny.')],
  ];
  const guarded = (model) => new Agent({ name: 'weather', model, tools: [getWeather], outputGuardrails: [noSecrets] });
  const { sessionId, session } = hubSession('guardrail');
  const hub = recorded(session);
  const memory = new MemorySession();
  await assert.rejects(
    runner.run(guarded(new ScriptedModel(structuredClone(script))), 'Weather in Paris?', { session: hub.session }),
    OutputGuardrailTripwireTriggered,
  );
  await assert.rejects(
    runner.run(guarded(new ScriptedModel(structuredClone(script))), 'Weather in Paris?', { session: memory }),
    OutputGuardrailTripwireTriggered,
  );

  const transactions = hub.calls.filter((call) => call.method === 'applyHistoryTransaction');
  assert.equal(transactions.length, 1);
  const [{ operationId, transaction }] = transactions[0].args;
  assert.equal(transaction.type, 'append_items');
  const stored = await client.getItems(sessionId);
  assert.deepEqual(stored, await memory.getItems());
  assert.deepEqual(
    stored.map((item) => item.type),
    ['message', 'function_call', 'function_call_result'],
    'the tool call and its result are kept; the withheld answer is not',
  );
  // HistoryHub recorded the operation: the same id with another transaction is refused.
  const other = { type: 'append_items', items: [stored[0]] };
  await assert.rejects(client.applyTransaction(sessionId, operationId, other), { status: 409, code: 'operation_conflict' });
  assert.equal(await client.applyTransaction(sessionId, operationId, transaction), false);
});
