// Argument digests (docs/api.md, "Digests"): RFC 8785's own test vectors, and
// the live server's argumentsDigest for the same values sent with other key
// orders, white space and number forms.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { argumentsDigest, canonicalJson } from '../src/index.js';
import { deciderClient, historyHub, liveClient, uniqueSessionId } from './support/live.js';

// Before any test is defined, so that a file run on its own keeps its server until its last test.
const hub = await historyHub();
const client = await liveClient();
const people = await deciderClient();

function sha(text) {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function double(bits) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

// RFC 8785, appendix B: IEEE 754 doubles (as hex bits) and how JCS writes them.
const NUMBERS = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

test('numbers are written as RFC 8785 appendix B writes them', () => {
  for (const [bits, written] of NUMBERS) {
    assert.equal(canonicalJson({ n: double(bits) }), `{"n":${written}}`, bits);
    assert.equal(argumentsDigest({ n: double(bits) }), sha(`{"n":${written}}`), bits);
  }
});

test('the RFC 8785 section 3.2.2 example', () => {
  const parsed = JSON.parse(String.raw`{
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  }`);
  const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  assert.equal(canonicalJson(parsed), expected);
  assert.equal(argumentsDigest(parsed), sha(expected));
});

test('the RFC 8785 section 3.2.3 sorting example: UTF-16 code units, not code points', () => {
  const parsed = JSON.parse(String.raw`{
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  }`);
  // The emoji's surrogates (D83D…) sort before U+FB33, although its code point is greater.
  assert.equal(
    canonicalJson(parsed),
    String.raw`{"\r":"Carriage Return","1":"One","` +
      '\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
      '"\u{1f600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test('the RFC 8785 section 3.2.4 example: UTF-8, and no Unicode normalization', () => {
  const canonical = canonicalJson(JSON.parse(String.raw`{"Unnormalized Unicode":"A\u030a"}`));
  const expected = '7b 22 55 6e 6e 6f 72 6d 61 6c 69 7a 65 64 20 55 6e 69 63 6f 64 65 22 3a 22 41 cc 8a 22 7d';
  assert.equal(Buffer.from(canonical, 'utf8').toString('hex').match(/../g).join(' '), expected);
});

test("the RFC's reference test data: structures and weird keys", () => {
  const structures = JSON.parse(String.raw`{
    "1": {"f": {"f": "hi","F": 5} ,"\n": 56.0},
    "10": { },
    "": "empty",
    "a": { },
    "111": [ { } ],
    "A": { }
  }`);
  assert.equal(canonicalJson(structures), String.raw`{"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}`);
  const weird = JSON.parse(String.raw`{
    "\u20ac": "Euro Sign",
    "1": "One",
    "\u0080": "Control\u007f",
    "\ud83d\ude02": "Smiley",
    "\u00f6": "Latin Small Letter O With Diaeresis",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "</script>": "Browser Challenge"
  }`);
  assert.equal(
    canonicalJson(weird),
    '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\u{1f602}":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test('what is not JSON has no canonical form: a TypeError naming where, never a digest of something else', () => {
  for (const [value, reason] of [
    [{ amount: Number.NaN }, /NaN is not a JSON number \(at "amount"\)/],
    [{ amount: Infinity }, /Infinity is not a JSON number/],
    [{ amount: undefined }, /type undefined is not JSON \(at "amount"\)/],
    [[1, 2n], /type bigint is not JSON \(at 1\)/],
    [{ at: new Date(0) }, /a Date is not a JSON object/],
    [{ text: 'half \ud800 a pair' }, /lone UTF-16 surrogate/],
    [{ ['\udc00']: 1 }, /lone UTF-16 surrogate/],
    [() => 1, /type function is not JSON/],
  ]) {
    assert.throws(() => argumentsDigest(value), { name: 'TypeError', message: reason });
  }
  const cycle = { a: [] };
  cycle.a.push(cycle);
  assert.throws(() => canonicalJson(cycle), /contains itself has no JSON form \(at "a" > 0\)/);
  // The same object twice, side by side, is no cycle.
  const shared = { x: 1 };
  assert.equal(canonicalJson({ a: shared, b: [shared] }), '{"a":{"x":1},"b":[{"x":1}]}');
  assert.equal(canonicalJson(Object.assign(Object.create(null), { b: 1, a: 2 })), '{"a":2,"b":1}');
  assert.equal(canonicalJson('a \ud83d\ude00 pair'), '"a 😀 pair"');
});

// Against the live server -------------------------------------------------------------------

/** A POST whose JSON body is sent exactly as written, so the server reads these very number forms. */
async function postText(path, key, text) {
  const response = await fetch(`${hub.url}/api/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: text,
  });
  const answer = await response.json();
  assert.ok(response.ok, JSON.stringify(answer));
  return answer;
}

// The same values written differently each time: other key orders, white space, escapes and number forms.
const WRITTEN = [
  [String.raw`{"order": 1234, "amount": 25.0, "note": "caf\u00e9"}`, '{ "note":"café","amount":2.5e1,"order":1234E0 }'],
  [
    '{"big": 1152921504606846976, "neg": -0.0, "tiny": 5e-324, "large": 1e21, "frac": 0.000001, "small": 1E-7, "third": 0.3333333333333333333}',
    '{"third":3.333333333333333e-1,"small":0.0000001,"large":1000000000000000000000,"frac":1e-6,"tiny":4.9406564584124654e-324,"neg":0,"big":1152921504606847000}',
  ],
  [
    String.raw`{"\u20ac": 1, "\r": 2, "\ufb33": 3, "1": 4, "\ud83d\ude00": 5, "\u0080": 6, "\u00f6": 7, "nested": {"b": [1.50, {"z": true, "a": null}], "a": "\u2028\t\u001f</script>"}}`,
    String.raw`{"nested":{"a":"\u2028\u0009\u001F<\/script>","b":[15e-1,{"a":null,"z":true}]},"ö":7,"`+ '\u0080' + String.raw`":6,"😀":5,"1":4.0,"\ufb33":3,"\u000d":2,"€":1}`,
  ],
];

test("the digest is the server's for the same values, whatever their key order and number forms", async () => {
  const sessionId = uniqueSessionId('digests');
  await client.createSession({ sessionId, agent: 'refunds' });
  for (const [index, [written, rewritten]] of WRITTEN.entries()) {
    const expected = argumentsDigest(JSON.parse(written));
    assert.equal(argumentsDigest(JSON.parse(rewritten)), expected, `case ${index}: both writings are one value`);
    const callId = `call_${index}`;
    const opened = await postText(
      `sessions/${sessionId}/client-actions`,
      hub.writeKey,
      `{"callId": "${callId}", "name": "issue_refund", "arguments": ${written}}`,
    );
    assert.equal(opened.argumentsDigest, expected, `case ${index}: opened`);
    // The approver edits to the same values written the other way: the server finds them equal to the original.
    const decided = await postText(
      `sessions/${sessionId}/client-actions/${callId}/decision`,
      hub.decideKey,
      `{"decision": "approve", "arguments": ${rewritten}}`,
    );
    assert.deepEqual([decided.argumentsDigest, decided.approvedArgumentsDigest], [expected, expected], `case ${index}: approved`);
  }
});

test("an edited approval's digest is the digest of the edited arguments", async () => {
  const sessionId = uniqueSessionId('digests-edited');
  await client.createSession({ sessionId, agent: 'refunds' });
  await client.openClientAction(sessionId, { callId: 'call_1', name: 'issue_refund', arguments: { order: 1234, amount: 25 } });
  const edited = { amount: 12.5, order: 1234, reason: 'Half now, «half» later.' };
  const decided = await people.decideClientAction(sessionId, 'call_1', { decision: 'approve', arguments: edited });
  assert.equal(decided.argumentsDigest, argumentsDigest({ order: 1234, amount: 25 }));
  assert.equal(decided.approvedArgumentsDigest, argumentsDigest({ reason: 'Half now, «half» later.', order: 1234, amount: 12.5 }));
  assert.notEqual(decided.approvedArgumentsDigest, decided.argumentsDigest);
});
