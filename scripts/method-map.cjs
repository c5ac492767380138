#!/usr/bin/env node
/**
 * Writes lib/schema/method-map.ts from the method registry in lib/schema/methods.ts: for every
 * method, by direction, the types of its params and (for a request) of its result, as the schema
 * files export them. Run `npm run method-map` after changing the registry; a spec fails while the
 * file is out of date.
 *
 *   node scripts/method-map.cjs           writes the file
 *   node scripts/method-map.cjs --check   exits 1 when the file differs from what it would write
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SCHEMA_DIR = path.join(ROOT, 'lib', 'schema');
const OUTPUT = path.join(SCHEMA_DIR, 'method-map.ts');

const DIRECTIONS = { C2S: 'client-to-server', S2C: 'server-to-client', "'both'": 'both' };

/** The registry's rows, in order: `request(...)` and `notification(...)` calls of methods.ts. */
function readRegistry(source) {
  const rows = [];
  const call = /\b(request|notification)\(\s*'([^']+)',\s*(C2S|S2C|'both'),\s*'(\w+)'(?:,\s*'(\w+)')?/g;
  for (const match of source.matchAll(call)) {
    const [, kind, method, direction, definition, result] = match;
    if (kind === 'request' && result === undefined) throw new Error(`request ${method} names no result`);
    rows.push({ kind, method, direction: DIRECTIONS[direction], definition, result });
  }
  if (rows.length === 0) throw new Error('no methods found in methods.ts');
  return rows;
}

/** Which schema file exports each type (its own `export type X =`, not a re-export). */
function readExports(files) {
  const exports = new Map();
  for (const [file, source] of files) {
    for (const match of source.matchAll(/^export type (\w+)\b/gm)) {
      if (!exports.has(match[1])) exports.set(match[1], file);
    }
  }
  return exports;
}

/** The map's file, from the sources of methods.ts and of the other schema files (name, text). */
function generate(methodsSource, schemaFiles) {
  const rows = readRegistry(methodsSource);
  const exports = readExports(schemaFiles);
  const imports = new Map();
  const use = (name) => {
    const file = exports.get(name);
    if (file === undefined) throw new Error(`no schema file exports the type ${name}`);
    if (!imports.has(file)) imports.set(file, new Set());
    imports.get(file).add(name);
    return name;
  };
  // The params type by its own name when a schema file exports one, else read off the definition.
  const paramsOf = (definition) =>
    exports.has(`${definition}Params`) ? use(`${definition}Params`) : `ParamsIn<${use(definition)}>`;
  // Written as prettier writes them (the file is checked with the rest of lib): keys quoted only
  // where they must be, imports past 120 columns one name a line.
  const key = (method) => (/^[A-Za-z_$][\w$]*$/.test(method) ? method : `'${method}'`);
  const entry = (row) =>
    row.kind === 'request'
      ? `  ${key(row.method)}: { params: ${paramsOf(row.definition)}; result: ${use(row.result)} };`
      : `  ${key(row.method)}: { params: ${paramsOf(row.definition)} };`;
  const section = (kind, direction) =>
    rows
      .filter((row) => row.kind === kind && (row.direction === direction || row.direction === 'both'))
      .map(entry)
      .join('\n');
  const maps = {
    ClientRequestMap: section('request', 'client-to-server'),
    ServerRequestMap: section('request', 'server-to-client'),
    ClientNotificationMap: section('notification', 'client-to-server'),
    ServerNotificationMap: section('notification', 'server-to-client'),
  };
  // What a request that asks for a task (2025-11-25) is answered with, for ResultFor.
  const createTaskResult = use('CreateTaskResult');
  const importLines = [...imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, names]) => importLine(file, [...names].sort()));
  return `${HEADER}
${importLines.join('\n')}

/** A definition's params as a handler receives them: the object, when the definition's params are optional. */
export type ParamsIn<D> = D extends { params?: infer P } ? NonNullable<P> : Record<string, unknown>;

/** The requests a client sends and a server answers, by method: their params and result. */
export interface ClientRequestMap {
${maps.ClientRequestMap}
}

/** The requests a server sends and a client answers, by method: their params and result. */
export interface ServerRequestMap {
${maps.ServerRequestMap}
}

/** The notifications a client sends, by method: their params. */
export interface ClientNotificationMap {
${maps.ClientNotificationMap}
}

/** The notifications a server sends, by method: their params. */
export interface ServerNotificationMap {
${maps.ServerNotificationMap}
}

/** Every request of the registry, either way, by method. */
export interface RequestMap extends ClientRequestMap, ServerRequestMap {}

/** Every notification of the registry, either way, by method. */
export interface NotificationMap extends ClientNotificationMap, ServerNotificationMap {}

/** The name of a request of the registry. */
export type RequestMethod = keyof RequestMap;

/** The name of a notification of the registry. */
export type NotificationMethod = keyof NotificationMap;

/**
 * The params of method \`M\` as its handler receives them (validated); \`Record<string, unknown>\` for a
 * method the registry does not name (a custom or extension method, checked by its handler).
 */
export type ParamsOf<M extends string> = M extends RequestMethod
  ? RequestMap[M]['params']
  : M extends NotificationMethod
    ? NotificationMap[M]['params']
    : Record<string, unknown>;

/**
 * The params of request \`M\` sent without \`task\`: what a request whose answer is \`ResultOf<M>\` carries
 * (a task-augmented request, 2025-11-25, is answered with a \`CreateTaskResult\` instead).
 */
export type PlainParamsOf<M extends string> = ParamsOf<M> & { readonly task?: undefined };

/** The result of request \`M\`; \`Record<string, unknown>\` for a method the registry does not name. */
export type ResultOf<M extends string> = M extends RequestMethod ? RequestMap[M]['result'] : Record<string, unknown>;

/**
 * The result of request \`M\` sent with params \`P\`: \`ResultOf<M>\` when \`P\` carries no \`task\`;
 * when it may (a task-augmented request, 2025-11-25), that or the \`${createTaskResult}\` it is
 * answered with instead.
 */
export type ResultFor<M extends string, P> = [P extends { readonly task?: infer T } ? T : undefined] extends [undefined]
  ? ResultOf<M>
  : ResultOf<M> | ${createTaskResult};
`;
}

function importLine(file, names) {
  const line = `import type { ${names.join(', ')} } from './${file}';`;
  return line.length <= 120
    ? line
    : `import type {\n${names.map((name) => `  ${name},\n`).join('')}} from './${file}';`;
}

const HEADER = `/**
 * The types of every method of the registry (methods.ts), by direction: what a request's params
 * and result are, and a notification's params. Types only: nothing here runs.
 *
 * Generated by scripts/method-map.cjs from methods.ts: do not edit; run \`npm run method-map\`.
 */`;

/** The schema files but the map itself and the registry, by name without extension. */
function readSchemaFiles() {
  return fs
    .readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.ts') && name !== 'method-map.ts' && name !== 'methods.ts')
    .sort()
    .map((name) => [name.slice(0, -3), fs.readFileSync(path.join(SCHEMA_DIR, name), 'utf8')]);
}

function generateFromDisk() {
  return generate(fs.readFileSync(path.join(SCHEMA_DIR, 'methods.ts'), 'utf8'), readSchemaFiles());
}

module.exports = { generate, generateFromDisk, readRegistry, OUTPUT };

if (require.main === module) {
  const text = generateFromDisk();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(OUTPUT) ? fs.readFileSync(OUTPUT, 'utf8') : '';
    if (current !== text) {
      process.stderr.write('lib/schema/method-map.ts is out of date: run npm run method-map\n');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(OUTPUT, text);
  }
}
