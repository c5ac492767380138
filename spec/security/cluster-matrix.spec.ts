import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { clusterFront } from './http-fronts';
import { sessionMatrix, modernMatrix } from './matrix-suites';
import type { FrontKind } from './matrix-suites';

// The combination matrix (rows in `matrix-suites.ts`) on a 2-process cluster on a real
// redis-server: each session opened on one process, every later request sent to the other, which
// forwards it to the owner.
let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());
let prefixes = 0;
/** A 2-process cluster on the suite's redis-server, each test on keys of its own. */
const clusterKind: FrontKind = (server, auth) => clusterFront(redis.url, `matrix${(prefixes += 1)}:`)(server, auth);

const MODES = [
  ['a 2-process cluster, each request on the process that does not own the session', clusterKind, 'direct'],
] as const;
sessionMatrix(MODES);
modernMatrix(MODES);
