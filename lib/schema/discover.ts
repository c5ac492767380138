/**
 * Discovery (2026-07-28 on; spec: Server → Discover): `server/discover` tells a client the
 * revisions, capabilities and identity of a server before, or instead of, anything else.
 */
import { z } from 'zod';
import { perRevision, V2026_07_28 } from './build';
import { capabilitySchemas } from './capabilities';
import { envelopeSchemas, requestShape } from './envelope';

/** Builds the discovery schemas of one revision (only 2026-07-28 and later expose them). */
export const discoverSchemas = perRevision((revision) => {
  const { RequestParams, CacheableResult } = envelopeSchemas(revision);
  const { ServerCapabilities } = capabilitySchemas(revision);
  return {
    DiscoverRequest: z.looseObject(requestShape(revision, 'server/discover', RequestParams)),
    DiscoverResult: CacheableResult.extend({
      supportedVersions: z.array(z.string()),
      capabilities: ServerCapabilities,
      instructions: z.string().optional(),
    }),
  };
});

const modern = () => discoverSchemas(V2026_07_28);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof discoverSchemas>;

/** A `server/discover` request. */
export type DiscoverRequest = z.infer<Schemas['DiscoverRequest']>;
/** The result of `server/discover`: supported revisions, capabilities, instructions, caching hints. */
export const DiscoverResultSchema = z.lazy(() => modern().DiscoverResult);
/** The result of `server/discover`. */
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
