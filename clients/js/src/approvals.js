// Human approval for `@openai/agents` tools, decided on HistoryHub: the
// JavaScript twin of the Python client's historyhub/client/approvals.py
// (docs/python-client.md, "Human approval for Agents SDK tools"; how the two
// agree: docs/clients.md).
//
// runWithApprovals runs an agent with a HistoryHubSession. Each tool call that
// needs approval becomes a client action a person decides; the decision goes
// back into the SDK's run state (state.approve / state.reject) and the run
// goes on until it ends. While it waits, the run state is parked in
// HistoryHub, so another process can finish it (resumeDecidedRuns) if this
// one stops.
//
// Executing once: before the SDK runs an approved tool, the bridge claims its
// execution on HistoryHub with the digest of the arguments it is about to run
// (the approved ones when edited). A refused claim (the action was not
// approved here, the arguments are not the approved ones, or the call ran
// already) rejects the call in the run state instead: the tool does not run,
// and the model reads why. So a resumed run never runs a tool twice, and a
// decision never applies to other arguments (docs/clients.md).
//
// Edited arguments: the SDK runs a tool with the arguments the model wrote and
// neither takes nor honours changed ones (openai-agents-js #1097). A tool made
// with approvalTool instead looks up, by its call id, the arguments the
// approver approved, and runs with those.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

import { RunState, run as runWithDefaultRunner, tool } from '@openai/agents-core';

import { argumentsDigest } from './digests.js';
import { AlreadyExecutedError, ArgumentsMismatchError, HistoryHubError, NotApprovedError } from './errors.js';
import { HistoryHubSession, agentWhenUnnamed } from './session.js';

// The sentences the model reads instead of a tool's output, as the Python client words them.
export const REJECTED = 'The person reviewing this call rejected it; the tool did not run.';
export const EXPIRED = 'Nobody decided on this call before its approval request expired; the tool did not run.';
export const WITHDRAWN = 'The approval request for this call no longer exists; the tool did not run.';
export const DISMISSED = 'The person reviewing this call dismissed the request without answering; the tool did not run.';
// What the model reads when HistoryHub refuses to let an approved call run (POST …/execution answered 409), as
// the Python client words it (historyhub_client/claims.py); `detail` is HistoryHub's own sentence.
export const ARGUMENTS_MISMATCH =
  'HistoryHub refused to run this call: its arguments are not the ones a person approved, so the tool did not run.';
export const NO_DIGEST = 'These arguments have no canonical JSON, so nobody can show they were approved; the tool did not run.';

export function alreadyExecuted(detail) {
  return `HistoryHub refused to run this call again: it ran already (${detail}), so it did not run twice.`;
}

export function notApproved(detail) {
  return `HistoryHub refused to run this call: no decision approved it (${detail}), so the tool did not run.`;
}

/** Python's CANNOT_EDIT: what the model reads when a tool that cannot take edited arguments was approved with some. */
export function cannotEdit(approvedArguments, name) {
  return (
    `The approver changed the arguments to ${JSON.stringify(approvedArguments)}, but the tool ${name} ` +
    'cannot run with changed arguments, so it did not run.'
  );
}

// Arguments approvers changed, by call id, for the tool calls of the run going on in this async context.
const approvedArguments = new AsyncLocalStorage();
// The tools approvalTool made: they run with an approver's edited arguments.
const takesApprovedArguments = new WeakSet();

// Tools ------------------------------------------------------------------------------

/**
 * `tool({ ...options, needsApproval: true })`, which runs with the arguments
 * the approver approved. When the approver edits the arguments on HistoryHub,
 * the tool is invoked with the edited ones, parsed and checked against its
 * parameters like the model's; otherwise with the model's.
 */
export function approvalTool(options) {
  const made = tool({ needsApproval: true, ...options });
  const { invoke } = made;
  made.invoke = (runContext, input, details) => {
    const approved = approvedArguments.getStore()?.get(details?.toolCall?.callId);
    return invoke(runContext, approved === undefined ? input : JSON.stringify(approved), details);
  };
  takesApprovedArguments.add(made);
  return made;
}

// Running ----------------------------------------------------------------------------

/** One run and how it waits: shared by a first run and every resumption of it. */
class ApprovalRun {
  constructor({ agent, session, sessionId, runId, parked, options }) {
    const { expiresInSeconds, waitSeconds, allowedResponses, onApprovalRequest, runner, ...runOptions } = options;
    Object.assign(this, { agent, session, sessionId, runId, expiresInSeconds, waitSeconds, allowedResponses, onApprovalRequest, runner, runOptions });
    // Whether HistoryHub holds a parked state of this run, to forget when it ends.
    this.parked = parked;
    // The approved calls HistoryHub did not let run: {callId, code, message}.
    this.refused = [];
  }

  get client() {
    return this.session.client;
  }

  runAgent(input) {
    const options = { ...this.runOptions, session: this.session };
    return this.runner ? this.runner.run(this.agent, input, options) : runWithDefaultRunner(this.agent, input, options);
  }
}

/**
 * `runner.run(agent, input, { session, ...runOptions })` with HistoryHub as
 * the approver; the final RunResult.
 *
 * Every tool call awaiting approval opens a client action on the session
 * (callId, name, parsed arguments, the tool's description; expiresAt
 * `expiresInSeconds` ahead, if given) and the run waits for the decisions with
 * long polls. The run state is parked in HistoryHub meanwhile; `waitSeconds`
 * bounds how long this process waits (undefined: until people decide), after
 * which it returns the interrupted result and the run stays parked for
 * resumeDecidedRuns. The session's runStatus follows the run: running,
 * waiting_for_client_action, then completed or failed.
 */
export async function runWithApprovals(agent, input, { session, runId, ...options } = {}) {
  if (!(session instanceof HistoryHubSession)) throw new TypeError('runWithApprovals needs a HistoryHubSession as session.');
  // The session may not exist yet; runStatus needs it.
  session[agentWhenUnnamed](agent.name);
  const sessionId = await session.getSessionId();
  runId ??= `run_${randomUUID().replaceAll('-', '')}`;
  const run = new ApprovalRun({ agent, session, sessionId, runId, parked: false, options });
  return follow(run, () =>
    orFail(run, async () => {
      await run.client.updateSession(sessionId, { runStatus: 'running' });
      return run.runAgent(input);
    }),
  );
}

/**
 * Resume every parked run whose client actions have all been decided; one
 * {sessionId, runId, result, error, refused} each (`refused`: the approved
 * calls HistoryHub did not let run, with the code of its 409).
 *
 * `agents` are the starting agents, matched to runs by name (the process that
 * resumes supplies the code of the tools). Each run is claimed first, so of
 * several resumers only one resumes it. A run that asks for new approvals is
 * parked again (`waitSeconds` of waiting first, none by default). A run that
 * fails is marked failed and forgotten; its error is in its entry and the
 * others go on.
 */
export async function resumeDecidedRuns(client, agents, { waitSeconds = 0, leaseSeconds, ...options } = {}) {
  const resumed = [];
  for (const agent of new Map(agents.map((one) => [one.name, one])).values()) {
    for (;;) {
      const page = await client.listRuns({ ready: true, agent: agent.name, pageSize: 100 });
      let claimedAny = false;
      for (const listed of page.items) {
        // One at a time: a run is claimed just before it is resumed, so its lease covers the resumption.
        const parked = await claim(client, listed, leaseSeconds);
        if (parked === undefined) continue;
        claimedAny = true;
        const { sessionId, runId } = parked;
        const session = new HistoryHubSession({ client, sessionId });
        const run = new ApprovalRun({ agent, session, sessionId, runId, parked: true, options: { waitSeconds, ...options } });
        const entry = { sessionId, runId, result: undefined, error: undefined, refused: run.refused };
        try {
          entry.result = await resumeParked(run, parked);
        } catch (error) {
          entry.error = error;
        }
        resumed.push(entry);
      }
      if (!claimedAny) break;
    }
  }
  return resumed;
}

/** The run with its state, or undefined when another resumer took it first or it is no longer ready. */
async function claim(client, listed, leaseSeconds) {
  try {
    return await client.claimRun(listed.sessionId, listed.runId, { leaseSeconds });
  } catch (error) {
    if (isHistoryHubError(error, 'run_claimed', 'run_not_ready', 'not_found', 'session_not_found')) return undefined;
    throw error;
  }
}

/**
 * Finish a parked run in this process. The decisions are read first: should
 * HistoryHub not answer, the run stays parked (claimed until its lease ends)
 * rather than be finished as if its actions were gone.
 */
async function resumeParked(run, parked) {
  const actions = new Map();
  for (const callId of parked.callIds) {
    try {
      actions.set(callId, await run.client.getClientAction(run.sessionId, callId));
    } catch (error) {
      // A cleared session took its actions with it: those calls are withdrawn.
      if (!isHistoryHubError(error, 'not_found')) throw error;
    }
  }
  return follow(run, async () => proceed(run, await orFail(run, () => RunState.fromString(run.agent, parked.state)), actions));
}

/**
 * Start the run, then answer its approvals until it ends or parks; runStatus
 * follows. A failure of the run itself (or of parking it) marks it failed. A
 * failure while it waits for people, or claims what they approved, leaves it
 * parked, for this process to retry or for a resumer to finish.
 */
async function follow(run, start) {
  let result = await start();
  while (result.interruptions.length > 0) {
    const { state } = result;
    const actions = await orFail(run, () => park(run, state));
    const decided = await decisions(run, actions);
    if (decided === undefined) return result;
    result = await proceed(run, state, decided);
  }
  await forget(run);
  await run.client.updateSession(run.sessionId, { runStatus: 'completed' });
  return result;
}

async function orFail(run, step) {
  try {
    return await step();
  } catch (error) {
    try {
      await forget(run);
      await run.client.updateSession(run.sessionId, { runStatus: 'failed' });
    } catch (marking) {
      // Already failing: the run's own error is the one to throw.
      if (!(marking instanceof HistoryHubError)) throw marking;
    }
    throw error;
  }
}

/** Delete the run's parked state once it ended: left behind, a resumer would run its tools again. */
async function forget(run) {
  if (!run.parked) return;
  try {
    await run.client.deleteRun(run.sessionId, run.runId);
  } catch (error) {
    if (!isHistoryHubError(error, 'not_found')) throw error;
  }
  run.parked = false;
}

/** Open a client action for each pending approval and park the run until they are decided; the actions. */
async function park(run, state) {
  const { sessionId } = run;
  const expiresAt = run.expiresInSeconds === undefined ? undefined : new Date(Date.now() + run.expiresInSeconds * 1000).toISOString();
  const actions = [];
  for (const item of state.getInterruptions()) {
    actions.push(
      await run.client.openClientAction(sessionId, {
        callId: callIdOf(item),
        name: item.name,
        arguments: argumentsOf(item.rawItem),
        description: toolOf(item)?.description ?? '',
        expiresAt,
        allowedResponses: run.allowedResponses,
      }),
    );
  }
  const callIds = actions.map((action) => action.callId);
  await run.client.parkRun(sessionId, run.runId, { agent: run.agent.name, state: state.toString(), callIds });
  run.parked = true;
  return actions;
}

/**
 * Tell people, wait for their decisions, and claim the run: the decided
 * actions by call id. Undefined when `waitSeconds` ran out first, or another
 * process resumes the run: it stays parked.
 */
async function decisions(run, actions) {
  const { sessionId } = run;
  if (run.onApprovalRequest) {
    for (const action of actions) await run.onApprovalRequest(action);
  }
  const waits = actions.map((action) => run.client.waitForClientAction(sessionId, action.callId, { timeoutSeconds: run.waitSeconds }));
  const decided = await Promise.all(waits);
  if (decided.some(undecided)) return undefined;
  try {
    // A resumer in another process may have seen the decisions too: the server gives the run to one of us.
    await run.client.claimRun(sessionId, run.runId);
  } catch (error) {
    // Another process goes on with it, or the server does not see every decision yet: it stays parked.
    if (isHistoryHubError(error, 'run_claimed', 'run_not_ready')) return undefined;
    throw error;
  }
  return new Map(decided.map((action) => [action.callId, action]));
}

/** Claim the calls people approved, then put every verdict into the run state and run on. */
async function proceed(run, state, actions) {
  const verdicts = new Map();
  for (const item of state.getInterruptions()) {
    const callId = callIdOf(item);
    verdicts.set(callId, await claimed(run, item, verdictOn(item, actions.get(callId))));
  }
  return orFail(run, () => resume(run, state, verdicts));
}

/**
 * An approved verdict once HistoryHub let its call run: claimed with the digest
 * of the arguments the tool will run with. Refused, the call does not run and
 * the model reads why. Any other failure (HistoryHub unreachable after the
 * client's retries) is thrown: the run stays parked, and the calls claimed so
 * far answer `already_executed` when it is resumed, so none runs twice.
 */
async function claimed(run, item, verdict) {
  if (!verdict.approved) return verdict;
  const callId = callIdOf(item);
  let digest;
  try {
    digest = argumentsDigest(verdict.arguments ?? argumentsOf(item.rawItem));
  } catch (error) {
    // Arguments JSON cannot write canonically (a lone surrogate) match no approval: nothing may run.
    if (!(error instanceof TypeError)) throw error;
    return refusedRun(run, callId, 'no_digest', NO_DIGEST);
  }
  try {
    await run.client.claimExecution(run.sessionId, callId, { argumentsDigest: digest });
    return verdict;
  } catch (error) {
    if (error instanceof ArgumentsMismatchError) return refusedRun(run, callId, error.code, ARGUMENTS_MISMATCH);
    if (error instanceof AlreadyExecutedError) return refusedRun(run, callId, error.code, alreadyExecuted(error.message));
    if (error instanceof NotApprovedError) return refusedRun(run, callId, error.code, notApproved(error.message));
    throw error;
  }
}

function refusedRun(run, callId, code, message) {
  run.refused.push({ callId, code, message });
  return refused(message);
}

/** Put the verdicts into the run state and run on. */
async function resume(run, state, verdicts) {
  const edited = new Map(approvedArguments.getStore());
  for (const item of state.getInterruptions()) {
    const callId = callIdOf(item);
    const verdict = verdicts.get(callId);
    if (verdict.approved) {
      state.approve(item);
      if (verdict.arguments !== undefined) edited.set(callId, verdict.arguments);
    } else {
      state.reject(item, { message: verdict.message });
    }
  }
  await run.client.updateSession(run.sessionId, { runStatus: 'running' });
  return approvedArguments.run(edited, () => run.runAgent(state));
}

/**
 * What a client action's outcome does to its call (docs/clients.md): {approved:
 * true, arguments?} runs the tool (with edited arguments, for a tool made with
 * approvalTool); {approved: false, message} does not, and the model reads the
 * message as the tool's output.
 */
function verdictOn(item, action) {
  if (action === undefined) return refused(WITHDRAWN);
  switch (action.status) {
    case 'approved': {
      const approved = action.approvedArguments;
      if (approved === null || approved === undefined || isDeepStrictEqual(approved, action.arguments)) return { approved: true };
      if (takesApprovedArguments.has(toolOf(item))) return { approved: true, arguments: approved };
      return refused(cannotEdit(approved, item.name));
    }
    case 'rejected':
      return refused(action.comment || REJECTED);
    case 'answered':
      // The person answered instead of letting the tool run: the answer is the tool's output.
      return refused(asText(action.response));
    case 'dismissed':
      return refused(DISMISSED);
    case 'completed':
    case 'failed':
      // A client application ran the action itself: its output stands in for the tool's.
      return refused(asText(action.output));
    default:
      // Expired, or still waiting with its expiresAt passed.
      return refused(EXPIRED);
  }
}

function refused(message) {
  return { approved: false, message };
}

function asText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function undecided(action) {
  return action.status === 'waiting' && !(action.expiresAt && Date.parse(action.expiresAt) <= Date.now());
}

function isHistoryHubError(error, ...codes) {
  return error instanceof HistoryHubError && codes.includes(error.code);
}

function callIdOf(item) {
  return item.rawItem.callId ?? item.rawItem.id;
}

/** The call's arguments as an object, the way a person reads them. */
function argumentsOf(rawItem) {
  let value = rawItem.arguments ?? rawItem.action ?? rawItem.operation ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { arguments: value };
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { arguments: value };
}

function toolOf(item) {
  return item.agent.tools.find((candidate) => candidate.name === item.name);
}
