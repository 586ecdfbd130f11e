// `npm test`: one HistoryHub for the whole run, then node's test runner over test/.
import { spawn } from 'node:child_process';

import { startHistoryHub } from './support/server.js';

const hub = await startHistoryHub();
let status;
try {
  const runner = spawn(process.execPath, ['--test', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: {
      ...process.env,
      HISTORYHUB_TEST_URL: hub.url,
      HISTORYHUB_TEST_WRITE_KEY: hub.writeKey,
      HISTORYHUB_TEST_READ_KEY: hub.readKey,
      HISTORYHUB_TEST_DECIDE_KEY: hub.decideKey,
    },
  });
  status = await new Promise((resolveStatus) => runner.once('exit', (code, signal) => resolveStatus(code ?? signal)));
} finally {
  await hub.stop();
}
process.exitCode = status === 0 ? 0 : 1;
