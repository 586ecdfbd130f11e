#!/usr/bin/env node
// Resume every parked run whose approvals have been decided: the JavaScript
// twin of `python -m historyhub.client.resume` (docs/python-client.md).
//
//   HISTORYHUB_URL=http://127.0.0.1:8000 HISTORYHUB_API_KEY=hh_… \
//       historyhub-resume ./agents.js#supportAgent [more.js#agent …] [--watch SECONDS]
//
// Each `file#name` is a starting agent, the export `name` (dotted for a
// property of one) of the module at `file`, a path from the working directory.
// Runs are matched to agents by the agent's name. Each approved call is
// claimed on HistoryHub before its tool runs; a call HistoryHub refuses (not
// approved there, other arguments, run already) does not run, and its line
// says so: "[call_1 not run: already_executed]". Once, or with --watch
// SECONDS again and again until stopped. Prints one line a run; exits 1 when
// a run failed, 2 when the command line is wrong.
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { resumeDecidedRuns } from '../src/agents.js';
import { HistoryHubClient } from '../src/index.js';

const USAGE = 'usage: historyhub-resume FILE#AGENT [FILE#AGENT …] [--watch SECONDS] [--url URL] [--api-key KEY]';

class UsageError extends Error {}

/** The starting agent a `file#name` reference names. */
async function load(reference) {
  const cut = reference.lastIndexOf('#');
  if (cut <= 0 || cut === reference.length - 1) throw new UsageError(`${JSON.stringify(reference)} is not FILE#AGENT`);
  let target = await import(pathToFileURL(resolve(reference.slice(0, cut))).href);
  for (const part of reference.slice(cut + 1).split('.')) {
    target = target?.[part];
  }
  if (typeof target?.name !== 'string') throw new UsageError(`${JSON.stringify(reference)} is not an agent`);
  return target;
}

function parse(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, 'api-key': { type: 'string' }, watch: { type: 'string' } },
  });
  const url = values.url ?? process.env.HISTORYHUB_URL;
  const apiKey = values['api-key'] ?? process.env.HISTORYHUB_API_KEY;
  if (positionals.length === 0) throw new UsageError('name at least one starting agent');
  if (!url || !apiKey) throw new UsageError('give --url and --api-key, or set HISTORYHUB_URL and HISTORYHUB_API_KEY');
  const watch = values.watch === undefined ? undefined : Number(values.watch);
  if (watch !== undefined && !(watch >= 0)) throw new UsageError('--watch takes a number of seconds');
  return { references: positionals, url, apiKey, watch };
}

function outcome({ result, error, refused }) {
  // Approved calls HistoryHub did not let run (their tool did not run; the model was told why).
  const notRun = refused.map(({ callId, code }) => ` [${callId} not run: ${code}]`).join('');
  if (error !== undefined) return `failed: ${error.message}${notRun}`;
  if (result.interruptions.length > 0) return `parked again, waiting for ${result.interruptions.length} approval(s)${notRun}`;
  return `completed: ${result.finalOutput}${notRun}`;
}

/** One pass, or one every `watch` seconds; true when every resumed run went well. */
async function resumeAll({ references, url, apiKey, watch }) {
  const agents = await Promise.all(references.map(load));
  const client = new HistoryHubClient({ baseUrl: url, apiKey });
  let allWell = true;
  try {
    for (;;) {
      for (const run of await resumeDecidedRuns(client, agents)) {
        allWell &&= run.error === undefined;
        process.stdout.write(`${run.sessionId} ${run.runId}: ${outcome(run)}\n`);
      }
      if (watch === undefined) return allWell;
      await delay(watch * 1000);
    }
  } finally {
    client.close();
  }
}

try {
  process.exitCode = (await resumeAll(parse(process.argv.slice(2)))) ? 0 : 1;
} catch (error) {
  if (!(error instanceof UsageError || error.code?.startsWith('ERR_PARSE_ARGS'))) throw error;
  process.stderr.write(`historyhub-resume: ${error.message}\n${USAGE}\n`);
  process.exitCode = 2;
}
