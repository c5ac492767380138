import { resolveCollisions } from '../../lib/proxy/collisions';
import type { Candidate, Collision } from '../../lib/proxy/collisions';

const candidate = (upstream: string, name: string): Candidate<null> => ({ upstream, local: name, name, item: null });

const CANDIDATES = [candidate('a', 'x'), candidate('a', 'y'), candidate('b', 'x'), candidate('b', 'z')];
const prefixed = (c: Candidate<null>) => `${c.upstream}_${c.local}`;

describe('resolveCollisions', () => {
  it('prefixes every claimant of a shared name with its upstream, keeping the order', () => {
    const reported: Collision[] = [];
    const chosen = resolveCollisions(CANDIDATES, 'prefix', prefixed, (c) => reported.push(c));
    expect([...chosen.keys()]).toEqual(['a_x', 'y', 'b_x', 'z']);
    expect(chosen.get('b_x')).toMatchObject({ upstream: 'b', local: 'x' });
    expect(reported).toEqual([]);
  });

  it('keeps the first claimant with "first", and reports the others', () => {
    const reported: Collision[] = [];
    const chosen = resolveCollisions(CANDIDATES, 'first', prefixed, (c) => reported.push(c));
    expect([...chosen.keys()]).toEqual(['x', 'y', 'z']);
    expect(chosen.get('x')?.upstream).toBe('a');
    expect(reported).toEqual([{ name: 'x', upstreams: ['a', 'b'], kept: 'a' }]);
  });

  it('leaves every claimant out with "error"', () => {
    const reported: Collision[] = [];
    const chosen = resolveCollisions(CANDIDATES, 'error', prefixed, (c) => reported.push(c));
    expect([...chosen.keys()]).toEqual(['y', 'z']);
    expect(reported).toEqual([{ name: 'x', upstreams: ['a', 'b'], kept: undefined }]);
  });

  it('lets the name already there keep it when a prefixed name meets it', () => {
    const reported: Collision[] = [];
    const taken = [candidate('c', 'a_x'), ...CANDIDATES];
    const chosen = resolveCollisions(taken, 'prefix', prefixed, (c) => reported.push(c));
    expect(chosen.get('a_x')?.upstream).toBe('c');
    expect(reported).toEqual([{ name: 'a_x', upstreams: ['c', 'a'], kept: 'c' }]);
  });
});
