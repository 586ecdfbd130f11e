// A local HTTP proxy in front of the live server that records every request
// and lets a test decide, request by request, what the client experiences.
import { createServer } from 'node:http';

const FORWARDED_HEADERS = ['authorization', 'accept', 'content-type', 'idempotency-key'];

/**
 * `plan(request, index)` answers, for each request ({method, url, headers, body}):
 * - undefined: forward it and pass the answer back;
 * - {status, headers?, body?}: answer that instead, without forwarding (`body` as JSON,
 *   or `rawBody` as it is);
 * - 'lose-answer': forward it, then drop the connection without answering;
 * - {rewriteUrl}: forward it to that URL (path and query) instead.
 * Answers {url, requests, close}.
 */
export async function startProxy(targetUrl, plan = () => undefined) {
  const requests = [];
  const server = createServer(async (incoming, outgoing) => {
    const chunks = [];
    for await (const chunk of incoming) chunks.push(chunk);
    const request = {
      method: incoming.method,
      url: incoming.url,
      headers: incoming.headers,
      body: chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined,
    };
    requests.push(request);
    const decision = await plan(request, requests.length - 1);
    if (decision && typeof decision === 'object' && 'status' in decision) {
      outgoing.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers });
      outgoing.end(decision.rawBody ?? (decision.body === undefined ? '' : JSON.stringify(decision.body)));
      return;
    }
    const headers = Object.fromEntries(FORWARDED_HEADERS.filter((name) => name in incoming.headers).map((name) => [name, incoming.headers[name]]));
    const answer = await fetch(`${targetUrl}${decision?.rewriteUrl ?? request.url}`, {
      method: request.method,
      headers,
      body: request.body,
    });
    const text = await answer.text();
    if (decision === 'lose-answer') {
      outgoing.socket.destroy();
      return;
    }
    outgoing.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    outgoing.end(text);
  });
  await new Promise((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolveClose) => server.close(resolveClose));
    },
  };
}
