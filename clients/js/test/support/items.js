// Items as the JS Agents SDK writes them.

export function userMessage(text) {
  return { type: 'message', role: 'user', content: text };
}

export function assistantMessage(id, text) {
  return { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
}

export function functionCall(callId, name, args) {
  return { type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' };
}

export function functionResult(callId, name, text) {
  return { type: 'function_call_result', name, callId, status: 'completed', output: { type: 'text', text } };
}

export function compactionItem(encrypted) {
  return { type: 'compaction', id: `cmp_${encrypted}`, encrypted_content: encrypted };
}
