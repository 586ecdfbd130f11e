// Digests of a client action's arguments, as HistoryHub computes them
// (docs/api.md, "Digests"): "sha256:" + the lowercase hex SHA-256 of the
// value's RFC 8785 canonical JSON (the JSON Canonicalization Scheme, JCS).
//
// JCS writes numbers and strings exactly as ECMAScript's JSON.stringify does
// (Number.prototype.toString for numbers, -0 as 0; the same escapes for
// strings), and sorts object keys by their UTF-16 code units, which is how
// Array.prototype.sort compares strings: so JavaScript's own primitives make
// the canonical form, and this module adds only the ordering and the refusals.
// A number is a double here as on the server, which reads an integer beyond
// 2^53 as the double nearest to it, as JSON.parse does.
import { createHash } from 'node:crypto';

export const DIGEST_PREFIX = 'sha256:';

// A UTF-16 surrogate not paired with its other half: JCS cannot write it (RFC 8785, 3.2.2.2).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The RFC 8785 canonical JSON text of a JSON value: null, a boolean, a finite
 * number, a string, an array or a plain object of those. Throws TypeError for
 * anything else (undefined, NaN, Infinity, a BigInt, a Date, a lone
 * surrogate, a cycle), rather than write it as something it is not.
 */
export function canonicalJson(value) {
  return write(value, [], new Set());
}

/** "sha256:" + the lowercase hex SHA-256 of the value's canonical JSON (UTF-8): the server's argumentsDigest. */
export function argumentsDigest(value) {
  return DIGEST_PREFIX + createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

function write(value, path, ancestors) {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) refuse(`${value} is not a JSON number`, path);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return quote(value, path);
  if (typeof value !== 'object') refuse(`a value of type ${typeof value} is not JSON`, path);
  if (ancestors.has(value)) refuse('a value that contains itself has no JSON form', path);
  ancestors.add(value);
  let text;
  if (Array.isArray(value)) {
    const elements = [];
    for (let index = 0; index < value.length; index += 1) elements.push(write(value[index], [...path, index], ancestors));
    text = `[${elements.join(',')}]`;
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) refuse(`a ${value.constructor?.name ?? 'non-plain object'} is not a JSON object`, path);
    // The default sort compares UTF-16 code units, which is JCS's order (RFC 8785, 3.2.3).
    const members = Object.keys(value)
      .sort()
      .map((key) => `${quote(key, path)}:${write(value[key], [...path, key], ancestors)}`);
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}

function quote(text, path) {
  if (LONE_SURROGATE.test(text)) refuse('a string holding a lone UTF-16 surrogate is not JSON text', path);
  return JSON.stringify(text);
}

function refuse(reason, path) {
  const where = path.length ? ` (at ${path.map((part) => JSON.stringify(part)).join(' > ')})` : '';
  throw new TypeError(`${reason}${where}; it has no RFC 8785 canonical JSON.`);
}
