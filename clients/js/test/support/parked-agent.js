// An agent process for the resume tests:
//   node test/support/parked-agent.js URL KEY SESSION_ID
// It asks for approval of a refund, prints the client action it opened as one
// JSON line, and waits for the decision; the test ends the process there. The
// resuming process (bin/historyhub-resume.js) imports `agent` from here (its
// tool and model), as a deployment's resumer imports its own agents.
//
// PARKED_AGENT_NAME names the agent (unique per test, so no other test's
// resumer takes its runs); each refund the tool makes is appended to the file
// PARKED_AGENT_LOG, one JSON line, so a test sees what ran in which process.
import { appendFileSync } from 'node:fs';
import { argv, env, stdout } from 'node:process';
import { fileURLToPath } from 'node:url';

import { Agent, Usage, setTracingDisabled } from '@openai/agents';

import { HistoryHubClient } from '../../src/index.js';
import { HistoryHubSession, approvalTool, runWithApprovals } from '../../src/agents.js';
import { assistantMessage, functionCall } from './items.js';
import { refundTool } from './refunds.js';

setTracingDisabled(true);

/** The offline model: ask for the refund, then report what the tool answered. */
class RefundModel {
  async getResponse({ input }) {
    const outputs = input.filter((item) => item.type === 'function_call_result');
    const output = outputs.length
      ? [assistantMessage(`msg_${input.length}`, `Done: ${outputs.at(-1).output.text}`)]
      : [functionCall('call_refund', 'issue_refund', { order: 1234, amount: 25 })];
    return { usage: new Usage(), output, responseId: `resp_${input.length}` };
  }

  async *getStreamedResponse() {
    throw new Error('The refund model does not stream.');
  }
}

const refunds = {
  push: (refund) => appendFileSync(env.PARKED_AGENT_LOG, `${JSON.stringify({ pid: process.pid, refund })}\n`),
};

export const agent = new Agent({
  name: env.PARKED_AGENT_NAME ?? 'refunds',
  model: new RefundModel(),
  tools: [approvalTool(refundTool(refunds))],
});

if (argv[1] === fileURLToPath(import.meta.url)) {
  const [url, key, sessionId] = argv.slice(2);
  const session = new HistoryHubSession({ client: new HistoryHubClient({ baseUrl: url, apiKey: key }), sessionId });
  await runWithApprovals(agent, 'Refund 25 on order 1234', {
    session,
    onApprovalRequest: (action) => stdout.write(`${JSON.stringify(action)}\n`),
  });
}
