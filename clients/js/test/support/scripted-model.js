// An offline model for the SDK's Runner: it answers each call with the next
// response of its script and records the requests it was given.
import { Usage } from '@openai/agents';

export class ScriptedModel {
  constructor(script) {
    this.script = [...script];
    this.requests = [];
  }

  async getResponse(request) {
    this.requests.push(request);
    const output = this.script.shift();
    if (!output) throw new Error(`The script has no response for model call ${this.requests.length}.`);
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }

  async *getStreamedResponse() {
    throw new Error('The scripted model does not stream.');
  }
}
