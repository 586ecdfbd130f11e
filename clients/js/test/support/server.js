// A live HistoryHub for the tests: a fresh database, API keys, and the
// production start script (bin/start) serving on a free local port.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const PYTHON = process.env.PYTHON ?? join(ROOT, '.venv/bin/python');
const STARTUP_DEADLINE_MS = 60_000;
const GROUP_STOP_DEADLINE_MS = 15_000;

// Creates or drops a PostgreSQL database; psycopg is what the server itself uses.
const POSTGRES_ADMIN = `
import sys
import psycopg
from psycopg import sql

url, action, name = sys.argv[1:]
statement = "CREATE DATABASE {}" if action == "create" else "DROP DATABASE IF EXISTS {} WITH (FORCE)"
with psycopg.connect(url, autocommit=True) as connection:
    connection.execute(sql.SQL(statement).format(sql.Identifier(name)))
`;

/**
 * Start HistoryHub on a database of its own: SQLite in a temporary directory,
 * or, when DATABASE_URL names PostgreSQL, a new database on that server.
 * Answers {url, writeKey, readKey, decideKey, stop}.
 */
export async function startHistoryHub() {
  const dataDir = await mkdtemp(join(tmpdir(), 'historyhub-js-'));
  const database = await freshDatabase(dataDir);
  const port = await freePort();
  const environment = {
    ...process.env,
    PATH: `${dirname(PYTHON)}:${process.env.PATH}`,
    DEBUG: 'False',
    SECRET_KEY: randomBytes(32).toString('hex'),
    // A Fernet key: 32 random bytes in url-safe base64, with its padding (the server encrypts its stored secrets).
    FIELD_ENCRYPTION_KEYS: randomBytes(32).toString('base64url') + '=',
    // An Ed25519 private key: 32 random bytes in url-safe base64 (the server signs client actions' receipts).
    RECEIPT_SIGNING_KEYS: randomBytes(32).toString('base64url'),
    ALLOWED_HOSTS: '127.0.0.1',
    SECURE_SSL_REDIRECT: 'False',
    SECURE_COOKIES: 'False',
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    STATIC_ROOT: join(dataDir, 'static'),
    BIND: `127.0.0.1:${port}`,
    WEB_CONCURRENCY: '2',
  };
  const manage = (...args) => run(PYTHON, ['manage.py', ...args], { cwd: ROOT, env: environment });
  let server;
  try {
    await manage('migrate', '--noinput', '--verbosity', '0');
    const writeKey = (await manage('createapikey', 'js tests (write)', '--scope', 'write')).stdout.trim();
    const readKey = (await manage('createapikey', 'js tests (read)', '--scope', 'read')).stdout.trim();
    // People decide with a key of their own: the key that opened an action may never decide it.
    const decideKey = (await manage('createapikey', 'js tests (decide)', '--scope', 'decide')).stdout.trim();
    const logPath = join(dataDir, 'server.log');
    const log = createWriteStream(logPath);
    // A process group of its own, so stopping it stops the notification worker and the sweep it started,
    // which write into dataDir (SQLite's journal, their logs) until they are gone.
    server = spawn(join(ROOT, 'bin', 'start'), {
      cwd: ROOT,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout.pipe(log);
    server.stderr.pipe(log);
    const url = `http://127.0.0.1:${port}`;
    await waitUntilHealthy(url, server, logPath);
    const stop = async () => {
      await stopProcess(server);
      await database.drop();
      await removeDirectory(dataDir);
    };
    return { url, writeKey, readKey, decideKey, stop };
  } catch (error) {
    if (server) await stopProcess(server);
    await database.drop();
    await removeDirectory(dataDir);
    throw error;
  }
}

async function freshDatabase(dataDir) {
  const configured = process.env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:/.test(configured)) {
    return { url: `sqlite:///${join(dataDir, 'historyhub.sqlite3')}`, drop: async () => {} };
  }
  const url = new URL(configured);
  const base = url.pathname.replace(/^\//, '') || 'historyhub';
  const name = `${base}_js_${process.pid}_${randomBytes(3).toString('hex')}`;
  // The maintenance database, which exists on every server, runs the CREATE and DROP.
  const admin = new URL(configured);
  admin.pathname = '/postgres';
  const postgres = (action) => run(PYTHON, ['-c', POSTGRES_ADMIN, admin.href, action, name]);
  await postgres('create');
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => postgres('drop') };
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Poll /healthz until it answers 200; fail with the server's log if it exits or the deadline passes. */
async function waitUntilHealthy(url, server, logPath) {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  const exited = new Promise((resolveExit) => server.once('exit', resolveExit));
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) break;
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    // The next probe after a short pause, or at once if the server exits meanwhile.
    await Promise.race([exited, new Promise((resolvePause) => setTimeout(resolvePause, 100))]);
  }
  const log = await readFile(logPath, 'utf8').catch(() => '');
  throw new Error(`HistoryHub did not become healthy at ${url}:\n${log.slice(-4000)}`);
}

/** SIGTERM to bin/start's whole process group, then wait until every process in it has ended. */
async function stopProcess(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    signalGroup(child.pid, 'SIGTERM');
    await exited;
  }
  // The supervised workers end within their STOP_SECONDS (10 s) of SIGTERM; past that, SIGKILL.
  const deadline = Date.now() + GROUP_STOP_DEADLINE_MS;
  while (signalGroup(child.pid, 0)) {
    if (Date.now() > deadline) {
      signalGroup(child.pid, 'SIGKILL');
      break;
    }
    await new Promise((resolvePause) => setTimeout(resolvePause, 100));
  }
}

/** Send a signal to a process group; false once no process of it is left. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (error.code === 'ESRCH') return false;
    throw error;
  }
}

/** The data directory, retried: a process that just ended may still have had a file open in it. */
function removeDirectory(path) {
  return rm(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
