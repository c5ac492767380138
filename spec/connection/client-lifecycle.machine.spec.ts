import { initialTransition, transition } from 'xstate';
import { clientLifecycle } from '../../lib/connection/client-lifecycle.machine';

const input = { supported: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] };
const answer = (protocolVersion: string) =>
  ({
    type: 'peer.initializeResult',
    protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 's', version: '1' },
  }) as const;

describe('clientLifecycle', () => {
  it('may send initialize only once, and nothing else before the answer', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    expect(s0.hasTag('may-send-initialize')).toBe(true);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    expect(s1.hasTag('may-send-initialize')).toBe(false);
    expect(s1.hasTag('may-send-requests')).toBe(false);
  });

  it('[lifecycle.client-accepts-older] operates on any supported revision the server answers', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    const [s2] = transition(clientLifecycle, s1, answer('2024-11-05'));
    expect(s2.value).toEqual({ initializing: 'confirming' });
    expect(s2.context.revision).toBe('2024-11-05');
    expect(s2.context.serverCapabilities).toEqual({ tools: {} });
    // Requests wait for notifications/initialized; ping does not.
    expect(s2.hasTag('may-send-requests')).toBe(false);
    expect(s2.hasTag('may-send-ping')).toBe(true);
    const [s3] = transition(clientLifecycle, s2, { type: 'local.initialized' });
    expect(s3.value).toBe('operating');
    expect(s3.hasTag('may-send-requests')).toBe(true);
  });

  it('[lifecycle.client-rejects-unsupported] refuses an answer naming a modern revision, which has no handshake', () => {
    const supported = { supported: [...input.supported, '2026-07-28'] };
    const [s0] = initialTransition(clientLifecycle, supported);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    const [s2] = transition(clientLifecycle, s1, answer('2026-07-28'));
    expect(s2.status).toBe('done');
    expect(s2.context.closeReason).toContain('"2026-07-28"');
  });

  it('[lifecycle.ping] allows ping both ways in every state but shutdown', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    const [s2] = transition(clientLifecycle, s1, answer('2025-06-18'));
    const [s3] = transition(clientLifecycle, s2, { type: 'local.initialized' });
    for (const state of [s0, s1, s2, s3]) {
      expect([state.hasTag('accepts-ping'), state.hasTag('may-send-ping')]).toEqual([true, true]);
    }
    const [closed] = transition(clientLifecycle, s3, { type: 'local.close', reason: 'done' });
    expect([closed.hasTag('accepts-ping'), closed.hasTag('may-send-ping'), closed.hasTag('closed')]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('[lifecycle.client-rejects-unsupported] shuts down with a reason naming the version', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    const [s2] = transition(clientLifecycle, s1, answer('2099-01-01'));
    expect(s2.status).toBe('done');
    expect(s2.context.closeReason).toContain('"2099-01-01"');
  });

  it('shuts down when initialize fails', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    const [s1] = transition(clientLifecycle, s0, { type: 'local.initialize' });
    const [s2] = transition(clientLifecycle, s1, { type: 'peer.initializeFailed', reason: 'boom' });
    expect(s2.status).toBe('done');
    expect(s2.context.closeReason).toBe('boom');
  });

  it('[lifecycle.client-modern] skips the handshake for a modern revision it speaks, and accepts no server requests', () => {
    const supported = { supported: [...input.supported, '2026-07-28'] };
    const [s0] = initialTransition(clientLifecycle, supported);
    const [s1] = transition(clientLifecycle, s0, {
      type: 'local.modern',
      protocolVersion: '2026-07-28',
      capabilities: { tools: {} },
      serverInfo: { name: 's', version: '2' },
    });
    expect(s1.value).toBe('modern');
    expect(s1.hasTag('may-send-requests')).toBe(true);
    expect(s1.hasTag('accepts-requests')).toBe(false);
    expect(s1.hasTag('may-send-initialize')).toBe(false);
    expect(s1.context.serverInfo).toEqual({ name: 's', version: '2' });
  });

  it('stays where it was when told to use a modern revision it does not speak, or a handshake one', () => {
    const [s0] = initialTransition(clientLifecycle, input);
    for (const protocolVersion of ['2026-07-28', '2025-06-18']) {
      const [s1] = transition(clientLifecycle, s0, { type: 'local.modern', protocolVersion });
      expect(s1.value).toEqual({ initializing: 'idle' });
      expect(s1.hasTag('may-send-initialize')).toBe(true);
      expect(s1.context.revision).toBeUndefined();
    }
  });
});
