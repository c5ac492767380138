/**
 * What a tool is, as `tools/list` lists it and `sampling/createMessage` offers it to a model.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import {
  chooseAsOlder,
  MetaSchema,
  perRevision,
  since,
  until,
  V2025_03_26,
  V2025_06_18,
  V2025_11_25,
  V2026_07_28,
} from './build';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the tool definition schemas of one revision. */
export const toolTypeSchemas = perRevision((revision) => {
  const { Icon } = baseSchemas(revision);
  const ToolAnnotations = z.looseObject({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  });
  const ToolExecution = z.looseObject({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() });
  // A JSON Schema for an object; only the top level is checked here. 2026-07-28 allows any
  // 2020-12 keyword, so `properties` and `required` are no longer pinned down there.
  const ObjectJsonSchema = z.looseObject({
    $schema: since(revision, V2025_11_25, z.string()).optional(),
    type: z.literal('object'),
    properties: until(revision, V2025_11_25, z.record(z.string(), z.looseObject({}))).optional(),
    required: until(revision, V2025_11_25, z.array(z.string())).optional(),
  });
  // 2026-07-28: an output schema need not describe an object (structured content is any JSON value).
  const OutputJsonSchema = chooseAsOlder(
    revision,
    V2026_07_28,
    z.looseObject({ $schema: z.string().optional() }),
    ObjectJsonSchema,
  );
  const Tool = z.looseObject({
    name: z.string(),
    title: since(revision, V2025_06_18, z.string()).optional(),
    description: z.string().optional(),
    inputSchema: ObjectJsonSchema,
    outputSchema: since(revision, V2025_06_18, OutputJsonSchema).optional(),
    annotations: since(revision, V2025_03_26, ToolAnnotations).optional(),
    // Task support moved to the tasks extension in 2026-07-28.
    execution: until(revision, V2025_11_25, since(revision, V2025_11_25, ToolExecution)).optional(),
    icons: since(revision, V2025_11_25, z.array(Icon)).optional(),
    _meta: since(revision, V2025_06_18, MetaSchema).optional(),
  });
  return { ToolAnnotations, ToolExecution, Tool };
});

const latest = () => toolTypeSchemas(LATEST_LEGACY_REVISION);

/** Hints about a tool's behaviour (from 2025-03-26); clients must not trust them from untrusted servers. */
export const ToolAnnotationsSchema = z.lazy(() => latest().ToolAnnotations);
/** Hints about a tool's behaviour (read-only, destructive, idempotent, open world) and its title; untrusted unless the server is. */
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** How a tool may be run: whether it supports task-augmented calls (2025-11-25 only). */
export const ToolExecutionSchema = z.lazy(() => latest().ToolExecution);
/** How a tool runs: whether it may, must or must not be called as a task (2025-11-25 on). */
export type ToolExecution = z.infer<typeof ToolExecutionSchema>;

/** A tool the server offers: its name, input schema and optional output schema. */
export const ToolSchema = z.lazy(() => latest().Tool);
/** A tool the server offers: its name, input schema and optional output schema. */
export type Tool = z.infer<typeof ToolSchema>;
