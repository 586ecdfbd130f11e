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

/**
 * A refused execution claim (POST …/execution answered 409): the tool must not
 * run. One subclass per code, so a caller can tell why with `instanceof`.
 */
export class ExecutionRefusedError extends HistoryHubError {
  constructor(status, code, message, options) {
    super(status, code, message, options);
    this.name = 'ExecutionRefusedError';
  }
}

/** 409 `not_approved`: no decision given on HistoryHub approved the action (waiting, rejected, reported, imported…). */
export class NotApprovedError extends ExecutionRefusedError {
  constructor(status, code, message, options) {
    super(status, code, message, options);
    this.name = 'NotApprovedError';
  }
}

/** 409 `arguments_mismatch`: the digest is not the approved arguments'; the attempt is on the card and in the audit log. */
export class ArgumentsMismatchError extends ExecutionRefusedError {
  constructor(status, code, message, options) {
    super(status, code, message, options);
    this.name = 'ArgumentsMismatchError';
  }
}

/** 409 `already_executed`: the one execution of the action was claimed before. */
export class AlreadyExecutedError extends ExecutionRefusedError {
  constructor(status, code, message, options) {
    super(status, code, message, options);
    this.name = 'AlreadyExecutedError';
  }
}

// The error class of each code that has one of its own; every other code is a plain HistoryHubError.
const ERROR_CLASSES = new Map([
  ['not_approved', NotApprovedError],
  ['arguments_mismatch', ArgumentsMismatchError],
  ['already_executed', AlreadyExecutedError],
]);

/** The error for an API error answer: the class its code names, else HistoryHubError. */
export function apiError(status, code, message) {
  const ErrorClass = ERROR_CLASSES.get(code) ?? HistoryHubError;
  return new ErrorClass(status, code, message);
}
