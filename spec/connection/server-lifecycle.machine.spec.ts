import { createActor, initialTransition, SimulatedClock, transition } from 'xstate';
import { serverLifecycle } from '../../lib/connection/server-lifecycle.machine';

const input = { supported: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'], initializeTimeoutMs: 1000 };
const initialize = (protocolVersion: string) =>
  ({
    type: 'peer.initialize',
    protocolVersion,
    capabilities: { sampling: {} },
    clientInfo: { name: 'c', version: '1' },
  }) as const;

describe('serverLifecycle', () => {
  it('[lifecycle.version-echo] answers with the client version when it is supported', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    const [s1] = transition(serverLifecycle, s0, initialize('2025-03-26'));
    expect(s1.context.revision).toBe('2025-03-26');
    expect(s1.context.clientCapabilities).toEqual({ sampling: {} });
  });

  it('[lifecycle.version-fallback] answers with its latest revision when the client version is unknown', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    const [s1] = transition(serverLifecycle, s0, initialize('1999-01-01'));
    expect(s1.context.revision).toBe('2025-11-25');
    expect(s1.context.requestedRevision).toBe('1999-01-01');
  });

  it('[lifecycle.ping] allows ping both ways in every state but shutdown, modern included', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    const [s1] = transition(serverLifecycle, s0, initialize('2025-06-18'));
    const [s2] = transition(serverLifecycle, s1, { type: 'peer.initialized' });
    const [modern] = transition(serverLifecycle, s0, {
      type: 'peer.modernRequest',
      protocolVersion: '2026-07-28',
    });
    for (const state of [s0, s1, s2, modern]) {
      expect([state.hasTag('accepts-ping'), state.hasTag('may-send-ping')]).toEqual([true, true]);
    }
    const [closed] = transition(serverLifecycle, s2, { type: 'transport.closed', reason: 'gone' });
    expect([closed.hasTag('accepts-ping'), closed.hasTag('may-send-ping')]).toEqual([false, false]);
  });

  it('accepts only initialize before the handshake, requests after initialize, and sends requests after initialized', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    expect(s0.hasTag('accepts-initialize')).toBe(true);
    expect(s0.hasTag('accepts-requests')).toBe(false);
    const [s1] = transition(serverLifecycle, s0, initialize('2025-06-18'));
    expect(s1.hasTag('accepts-initialize')).toBe(false);
    expect(s1.hasTag('accepts-requests')).toBe(true);
    expect(s1.hasTag('may-send-requests')).toBe(false);
    const [s2] = transition(serverLifecycle, s1, { type: 'peer.initialized' });
    expect(s2.value).toBe('operating');
    expect(s2.hasTag('may-send-requests')).toBe(true);
  });

  it('ignores initialized before initialize', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    const [s1] = transition(serverLifecycle, s0, { type: 'peer.initialized' });
    expect(s1.hasTag('accepts-initialize')).toBe(true);
    expect(s1.hasTag('accepts-requests')).toBe(false);
  });

  it('shuts down when the transport closes, in any state', () => {
    const [s0] = initialTransition(serverLifecycle, input);
    const [s1] = transition(serverLifecycle, s0, { type: 'transport.closed', reason: 'peer closed' });
    expect(s1.status).toBe('done');
    expect(s1.hasTag('closed')).toBe(true);
    expect(s1.context.closeReason).toBe('peer closed');
  });

  it('shuts down when no initialize arrives within initializeTimeoutMs', () => {
    const clock = new SimulatedClock();
    const actor = createActor(serverLifecycle, { input, clock }).start();
    clock.increment(999);
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(1);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.closeReason).toMatch(/no initialize/);
  });

  it('stops the initialize timer once initialize arrives', () => {
    const clock = new SimulatedClock();
    const actor = createActor(serverLifecycle, { input, clock }).start();
    actor.send(initialize('2025-11-25'));
    clock.increment(5000);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('waits for ever, with no timer at all, when initializeTimeoutMs is Infinity', () => {
    const clock = new SimulatedClock();
    const setTimeoutSpy = jest.spyOn(clock, 'setTimeout');
    const actor = createActor(serverLifecycle, { input: { ...input, initializeTimeoutMs: Infinity }, clock }).start();
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    clock.increment(1e9);
    expect(actor.getSnapshot().status).toBe('active');
  });

  describe('the modern family (2026-07-28)', () => {
    const modern = { type: 'peer.modernRequest', protocolVersion: '2026-07-28' } as const;

    it('[lifecycle.modern] serves modern requests from the first one on, and sends no requests of its own', () => {
      const [s0] = initialTransition(serverLifecycle, input);
      expect(s0.hasTag('accepts-modern-requests')).toBe(false);
      const [s1] = transition(serverLifecycle, s0, modern);
      expect(s1.value).toBe('modern');
      expect(s1.hasTag('accepts-modern-requests')).toBe(true);
      expect(s1.hasTag('accepts-requests')).toBe(false);
      expect(s1.hasTag('may-send-requests')).toBe(false);
      const [s2] = transition(serverLifecycle, s1, modern);
      expect(s2.value).toBe('modern');
    });

    it('[lifecycle.modern-no-deadline] runs no initialize deadline once modern', () => {
      const clock = new SimulatedClock();
      const actor = createActor(serverLifecycle, { input, clock }).start();
      actor.send(modern);
      clock.increment(input.initializeTimeoutMs * 10);
      expect(actor.getSnapshot().value).toBe('modern');
      expect(actor.getSnapshot().status).toBe('active');
    });

    it('[lifecycle.modern-then-initialize] opens a session for a client that probed in the modern way first', () => {
      const [s0] = initialTransition(serverLifecycle, input);
      const [s1] = transition(serverLifecycle, s0, modern);
      const [s2] = transition(serverLifecycle, s1, initialize('2025-11-25'));
      expect(s2.hasTag('accepts-requests')).toBe(true);
      expect(s2.hasTag('accepts-modern-requests')).toBe(false);
      const [s3] = transition(serverLifecycle, s2, { type: 'peer.initialized' });
      expect(s3.value).toBe('operating');
      const [s4] = transition(serverLifecycle, s3, modern);
      expect(s4.value).toBe('operating');
    });

    it('ends on close like any connection', () => {
      const [s0] = initialTransition(serverLifecycle, input);
      const [s1] = transition(serverLifecycle, s0, modern);
      const [s2] = transition(serverLifecycle, s1, { type: 'local.close', reason: 'bye' });
      expect(s2.status).toBe('done');
      expect(s2.context.closeReason).toBe('bye');
    });
  });
});
