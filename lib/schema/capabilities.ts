/**
 * Who a peer is and what it supports: implementations and capabilities. The handshake revisions
 * exchange them in `initialize`; the modern ones in every request's `_meta` and in
 * `server/discover`.
 */
import { z } from 'zod';
import { baseSchemas, JSONObjectSchema } from './base';
import {
  choose,
  chooseAsOlder,
  OpenObjectSchema,
  perRevision,
  since,
  until,
  V2025_03_26,
  V2025_06_18,
  V2025_11_25,
  V2026_07_28,
} from './build';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the implementation and capability schemas of one revision. */
export const capabilitySchemas = perRevision((revision) => {
  const { Icon } = baseSchemas(revision);
  // Settings objects: any object up to 2025-11-25, a JSON object from 2026-07-28.
  const settings = chooseAsOlder(revision, V2026_07_28, JSONObjectSchema, OpenObjectSchema);
  const open = settings.optional();
  const listChanged = z.looseObject({ listChanged: z.boolean().optional() }).optional();
  const byName = z.record(z.string(), settings).optional();
  const tasks = <T extends z.ZodType>(schema: T) => until(revision, V2025_11_25, since(revision, V2025_11_25, schema));

  const Implementation = z.looseObject({
    name: z.string(),
    title: since(revision, V2025_06_18, z.string()).optional(),
    version: z.string(),
    description: since(revision, V2025_11_25, z.string()).optional(),
    icons: since(revision, V2025_11_25, z.array(Icon)).optional(),
    websiteUrl: since(revision, V2025_11_25, z.string()).optional(),
  });
  // Peers send `{}` for "supported, no options"; every level stays open to unknown keys.
  const ClientCapabilities = z.looseObject({
    experimental: byName,
    extensions: since(revision, V2026_07_28, z.record(z.string(), JSONObjectSchema)).optional(),
    // 2026-07-28 dropped `roots.listChanged` with `notifications/roots/list_changed`.
    roots: z.looseObject({ listChanged: until(revision, V2025_11_25, z.boolean()).optional() }).optional(),
    sampling: choose(revision, V2025_11_25, z.looseObject({ context: open, tools: open }), OpenObjectSchema).optional(),
    elicitation: since(
      revision,
      V2025_06_18,
      choose(revision, V2025_11_25, z.looseObject({ form: open, url: open }), OpenObjectSchema),
    ).optional(),
    tasks: tasks(
      z.looseObject({
        list: open,
        cancel: open,
        requests: z
          .looseObject({
            sampling: z.looseObject({ createMessage: open }).optional(),
            elicitation: z.looseObject({ create: open }).optional(),
          })
          .optional(),
      }),
    ).optional(),
  });
  const ServerCapabilities = z.looseObject({
    experimental: byName,
    extensions: since(revision, V2026_07_28, z.record(z.string(), JSONObjectSchema)).optional(),
    logging: open,
    completions: since(revision, V2025_03_26, settings).optional(),
    prompts: listChanged,
    resources: z.looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() }).optional(),
    tools: listChanged,
    tasks: tasks(
      z.looseObject({
        list: open,
        cancel: open,
        requests: z.looseObject({ tools: z.looseObject({ call: open }).optional() }).optional(),
      }),
    ).optional(),
  });

  return { Implementation, ClientCapabilities, ServerCapabilities };
});

const latest = () => capabilitySchemas(LATEST_LEGACY_REVISION);

/** The name and version (and, from 2025-06-18, title; from 2025-11-25, icons) of a client or server. */
export const ImplementationSchema = z.lazy(() => latest().Implementation);
/** The name and version (and, from 2025-06-18, title; from 2025-11-25, icons) of a client or server. */
export type Implementation = z.infer<typeof ImplementationSchema>;

/** What a client supports: roots, sampling, elicitation, tasks, extensions, experimental features. */
export const ClientCapabilitiesSchema = z.lazy(() => latest().ClientCapabilities);
/** What a client supports: roots, sampling, elicitation, tasks, extensions, experimental features. */
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;

/** What a server supports: tools, resources, prompts, logging, completions, tasks, extensions. */
export const ServerCapabilitiesSchema = z.lazy(() => latest().ServerCapabilities);
/** What a server supports: tools, resources, prompts, logging, completions, tasks, extensions. */
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
