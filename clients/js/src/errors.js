/**
 * Every failure of a HistoryHub call: an error answer of the API (`status`,
 * `code` and `message` as docs/api.md names them), or no answer at all
 * (`status` null, `code` "connection_failed", as in the Python client:
 * docs/clients.md).
 */
export class HistoryHubError extends Error {
  constructor(status, code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HistoryHubError';
    this.status = status;
    this.code = code;
  }
}
