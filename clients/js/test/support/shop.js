// An agent with one tool that needs approval, for the approval tests: the
// real SDK Agent with a scripted model, and a record of what the tool did.
import { Agent, Runner, tool } from '@openai/agents';

import { approvalTool } from '../../src/agents.js';
import { assistantMessage, functionCall } from './items.js';
import { uniqueSessionId } from './live.js';
import { REFUND, refundTool } from './refunds.js';
import { ScriptedModel } from './scripted-model.js';

export const runner = new Runner({ tracingDisabled: true });

/** The SDK's own way to gate a tool, without approvalTool: it cannot run with edited arguments. */
export function needsApprovalTool(options) {
  return tool({ ...options, needsApproval: true });
}

export class Shop {
  /**
   * `script`: the model's answers (by default, ask for REFUND, then say
   * "All done."). `makeTool`: makes the refund tool from its options, which
   * record each refund in `refunds` (default approvalTool). The agent's name
   * is unique, so no other test's resumer takes its runs.
   */
  constructor({ script, makeTool = approvalTool } = {}) {
    this.refunds = [];
    this.model = new ScriptedModel(
      script ?? [[functionCall('call_refund', 'issue_refund', REFUND)], [assistantMessage('msg_done', 'All done.')]],
    );
    const tools = [makeTool(refundTool(this.refunds))];
    this.agent = new Agent({ name: uniqueSessionId('support'), instructions: 'Help with refunds.', model: this.model, tools });
  }

  /** What the model was last told the tool answered for `callId`. */
  toolOutput(callId = 'call_refund') {
    const result = this.model.requests.at(-1).input.find((item) => item.type === 'function_call_result' && item.callId === callId);
    return typeof result.output === 'string' ? result.output : result.output.text;
  }
}

/** The timeline items of one call: a gated call shows as one card. */
export function cards(history, callId) {
  return history.items.filter((item) => item.callId === callId);
}
