import type { AnyMachineSnapshot } from 'xstate';

/** The bits of a connection's flags: what its lifecycle's tags allow, and whether it is closed. */
export const Flag = {
  acceptsInitialize: 1,
  acceptsRequests: 2,
  acceptsModern: 4,
  maySendRequests: 8,
  maySendInitialize: 16,
  closed: 32,
  acceptsPing: 64,
  maySendPing: 128,
} as const;

/** The tags of a lifecycle snapshot as a connection's flags (`Flag` bits). */
export function flagsOf(snapshot: AnyMachineSnapshot): number {
  return (
    (snapshot.hasTag('accepts-initialize') ? Flag.acceptsInitialize : 0) |
    (snapshot.hasTag('accepts-requests') ? Flag.acceptsRequests : 0) |
    (snapshot.hasTag('accepts-modern-requests') ? Flag.acceptsModern : 0) |
    (snapshot.hasTag('may-send-requests') ? Flag.maySendRequests : 0) |
    (snapshot.hasTag('may-send-initialize') ? Flag.maySendInitialize : 0) |
    (snapshot.hasTag('accepts-ping') ? Flag.acceptsPing : 0) |
    (snapshot.hasTag('may-send-ping') ? Flag.maySendPing : 0) |
    (snapshot.hasTag('closed') ? Flag.closed : 0)
  );
}
