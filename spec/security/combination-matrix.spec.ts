import { fetchFront, nodeFront } from './http-fronts';
import { sessionMatrix, modernMatrix } from './matrix-suites';
import type { Mode } from './matrix-suites';

// The combination matrix (rows in `matrix-suites.ts`) over the modes of one process: Streamable
// HTTP, the fetch handler, and `proxy()` and `aggregate` fronts. The cluster's rows are in
// `cluster-matrix.spec.ts`; HTTP+SSE and WebSocket in `surfaces-auth.spec.ts`.
const MODES: readonly Mode[] = [
  ['Streamable HTTP sessions', nodeFront, 'direct'],
  ['the fetch handler', fetchFront, 'direct'],
  ['a proxy() front', nodeFront, 'proxy'],
  ['an aggregate front', nodeFront, 'aggregate'],
];

sessionMatrix(MODES);
modernMatrix(MODES);
