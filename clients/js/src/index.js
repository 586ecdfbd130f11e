export { HistoryHubClient } from './client.js';
export { argumentsDigest, canonicalJson } from './digests.js';
export {
  AlreadyExecutedError,
  ArgumentsMismatchError,
  ExecutionRefusedError,
  HistoryHubError,
  NotApprovedError,
} from './errors.js';
