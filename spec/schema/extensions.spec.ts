import { declaredExtensions, extensionSettings, isExtensionId, placeExtensions } from '../../lib/schema/extensions';

describe('extension declarations', () => {
  it('takes prefixed names as extension identifiers', () => {
    expect(isExtensionId('io.modelcontextprotocol/ui')).toBe(true);
    expect(isExtensionId('com.example/my-ext.v2')).toBe(true);
    expect(isExtensionId('ui')).toBe(false);
    expect(isExtensionId('example/ui')).toBe(false);
    expect(isExtensionId('io.modelcontextprotocol/')).toBe(false);
  });

  it('reads a peer’s extensions from extensions and, for identifiers, from experimental', () => {
    const capabilities = {
      extensions: { 'io.modelcontextprotocol/skills': {}, 'com.example/bad': true },
      experimental: { 'com.example/old': { a: 1 }, plainFeature: {} },
    };
    expect(declaredExtensions(capabilities)).toEqual({
      'io.modelcontextprotocol/skills': {},
      'com.example/old': { a: 1 },
    });
    expect(extensionSettings(capabilities, 'com.example/old')).toEqual({ a: 1 });
    expect(extensionSettings(capabilities, 'com.example/bad')).toBeUndefined();
    expect(declaredExtensions(undefined)).toEqual({});
  });

  it('moves extensions into experimental for a handshake revision, and leaves them for 2026-07-28', () => {
    const ours = { tools: {}, experimental: { feature: {} }, extensions: { 'com.example/x': { y: 1 } } };
    const older = placeExtensions(ours, '2025-11-25');
    expect(older).toEqual({ tools: {}, experimental: { feature: {}, 'com.example/x': { y: 1 } } });
    expect(placeExtensions(ours, '2025-11-25')).toBe(older);
    expect(placeExtensions(ours, '2026-07-28')).toBe(ours);
    expect(placeExtensions(ours, undefined)).toBe(ours);
    expect(placeExtensions({ tools: {}, extensions: {} }, '2024-11-05')).toEqual({ tools: {} });
  });
});
