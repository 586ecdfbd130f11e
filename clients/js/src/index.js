export { HistoryHubClient } from './client.js';
export { HistoryHubError } from './errors.js';
