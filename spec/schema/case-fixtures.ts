/** Building blocks of the hand-written cases. */
export const text = { type: 'text', text: 'hello' };
export const image = { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' };
export const audio = { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' };
export const textResource = { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'a' };
export const blobResource = { uri: 'file:///a.bin', blob: 'aGVsbG8=' };
export const embedded = {
  type: 'resource',
  resource: textResource,
  annotations: { audience: ['user'], priority: 0.5 },
};
export const resourceLink = { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' };
export const toolUse = { type: 'tool_use', id: 'call-1', name: 'weather', input: { city: 'Paris' } };
export const toolResult = { type: 'tool_result', toolUseId: 'call-1', content: [text] };
export const req = (method: string, params?: object) => ({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) });
export const note = (method: string, params?: object) => ({ jsonrpc: '2.0', method, ...(params && { params }) });
export const clientInfo = { name: 'client', version: '1.0.0' };
export const initializeParams = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo };
/** The `_meta` every 2026-07-28 request carries. */
export const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const elicitRequest = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Proceed?',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};
