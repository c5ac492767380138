import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// What one client can make a server hold (#13 item 3), measured: each limit is pushed well past
// its bound in a child process with --expose-gc, and the heap after full collections may grow only
// by what the bound allows. Without the bounds the same attempts cost far more: 100,000
// subscriptions took 235 MB and 5,000 idle sessions 38 MB.
const SCRIPT = resolve(__dirname, '../fixtures/memory-bounds.js');
const MiB = 1024 * 1024;

function push(limit: string, attempts: number): Record<string, number> {
  const out = execFileSync(process.execPath, ['--expose-gc', SCRIPT, limit, String(attempts)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as Record<string, number>;
}

describe('memory one client can make a server hold (#13)', () => {
  it('subscriptions: 20,000 distinct URIs in one session keep 1,000 (the default) and under 6 MiB', () => {
    const { accepted, refused, growth } = push('subscriptions', 20_000);
    expect(accepted).toBe(1000);
    expect(refused).toBe(19_000);
    expect(growth).toBeLessThan(6 * MiB);
  }, 90_000);

  it('sessions: 5,000 initialize-only clients against maxSessions 100 keep 100 sessions and under 8 MiB', () => {
    const { accepted, refused, sessions, growth } = push('sessions', 5000);
    expect(accepted).toBe(100);
    expect(refused).toBe(4900);
    expect(sessions).toBe(100);
    expect(growth).toBeLessThan(8 * MiB);
  }, 90_000);

  it('an initialize with invalid params opens no session: 5,000 of them keep nothing', () => {
    const { accepted, sessions, growth } = push('invalid-initialize', 5000);
    expect(accepted).toBe(0);
    expect(sessions).toBe(0);
    expect(growth).toBeLessThan(4 * MiB);
  }, 90_000);
});
