/** The implementations under test, in the order the runner starts from. */
import { floor } from './impl/floor';
import { official } from './impl/official';
import { officialV2 } from './impl/official-v2';
import { rxmcp } from './impl/rxmcp';
import type { Implementation } from './workload';

export const IMPLEMENTATIONS: readonly Implementation[] = [rxmcp, official, officialV2, floor];

export function implementationNamed(name: string | undefined): Implementation {
  const found = IMPLEMENTATIONS.find((impl) => impl.name === name);
  if (!found) throw new Error(`unknown implementation ${String(name)}`);
  return found;
}
