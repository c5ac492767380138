import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

// DESIGN.md → Layers: a layer imports only from the layers listed before it. `rx` (the RxJS modules
// lib uses, loaded one by one) sits beneath them all.
const LAYERS = [
  'rx',
  'base',
  'jsonrpc',
  'validation',
  'operations',
  'schema',
  'transport',
  'operators',
  'connection',
  'server',
  'client',
  'proxy',
  'auth',
  'cluster',
  'bench',
  'cli',
];
const LIB = resolve(__dirname, '..', 'lib');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  // Static imports and re-exports, and dynamic import() and require() calls.
  const specifiers = [
    ...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g),
    ...text.matchAll(/\b(?:import|require)\(\s*'(\.{1,2}\/[^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers.map((specifier) => relative(LIB, resolve(dirname(file), specifier)) + '.ts');
}

function layerOf(path: string): string {
  return path.split('/')[0]!.replace(/\.ts$/, '');
}

const files = sourceFiles(LIB).map((f) => relative(LIB, f));
const graph = new Map(files.map((f) => [f, localImports(join(LIB, f))]));

// STYLE.md → Layout: past about 400 lines a file splits, and past about 80 a function becomes named parts.
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** Every function, method and arrow function in `file` whose body runs longer than `limit` lines. */
function longFunctions(file: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      const lines = lineOf(body.getEnd()) - lineOf(body.getStart(source)) + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      if (lines > limit) long.push(`${file}:${lineOf(body.getStart(source)) + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

describe('lib/ architecture', () => {
  it(`keeps files under ${MAX_FILE_LINES} lines and functions under ${MAX_FUNCTION_LINES}`, () => {
    const long = files.flatMap((file) => {
      const text = readFileSync(join(LIB, file), 'utf8');
      const lines = text.split('\n').length;
      return [
        ...(lines > MAX_FILE_LINES ? [`${file} (${lines} lines)`] : []),
        ...longFunctions(file, text, MAX_FUNCTION_LINES),
      ];
    });
    expect(long).toEqual([]);
  });

  it('would report a long function', () => {
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    expect(longFunctions('x.ts', `export function long() {\n${body}\n}\n`, MAX_FUNCTION_LINES)).toEqual([
      'x.ts:1 long (92 lines)',
    ]);
    expect(longFunctions('x.ts', 'const short = () => 1;\n', MAX_FUNCTION_LINES)).toEqual([]);
  });

  it('runs connection timers only through a scheduler (no raw setTimeout or setInterval in lib/connection)', () => {
    const raw = files
      .filter((f) => f.startsWith('connection/'))
      .filter((f) => /\b(setTimeout|setInterval|setImmediate)\s*\(/.test(readFileSync(join(LIB, f), 'utf8')));
    expect(raw).toEqual([]);
  });

  it('has every file in a known layer', () => {
    // entries/ holds the subpath entry points (rxmcp/server, rxmcp/client, ...): like index.ts, they
    // may re-export any layer and nothing imports them.
    const unknown = files.filter((f) => f !== 'index.ts' && layerOf(f) !== 'entries' && !LAYERS.includes(layerOf(f)));
    expect(unknown).toEqual([]);
  });

  it('imports only from layers above (never from index.ts or a lower layer)', () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      if (file === 'index.ts') continue;
      const entry = layerOf(file) === 'entries';
      const rank = LAYERS.indexOf(layerOf(file));
      for (const target of imports) {
        if (target === 'index.ts' || layerOf(target) === 'entries') violations.push(`${file} → ${target}`);
        else if (!entry && LAYERS.indexOf(layerOf(target)) > rank) violations.push(`${file} → ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps the roles apart: the client never imports the server', () => {
    const violations = [...graph].flatMap(([file, imports]) =>
      layerOf(file) === 'client'
        ? imports.filter((target) => layerOf(target) === 'server').map((target) => `${file} → ${target}`)
        : [],
    );
    expect(violations).toEqual([]);
  });

  it('keeps sibling folders apart inside a layer: a transport imports another only through a shared module', () => {
    // Inside a layer, a file in a subfolder may import its own subfolder and the layer's own top-level
    // files or shared folders (transport.ts, framing/, http/), never a sibling subfolder. In transport,
    // http/ is what every HTTP-based side stands on (the exchange, guards, CORS, request auth, request
    // keys); http-server/ and http-client/ hold the two sides, each with its Streamable HTTP and HTTP+SSE.
    const SHARED = new Set(['framing', 'http']);
    // Where one transport is built on another, named here so the list can only shrink (#12). Since
    // HTTP's server and client sides became folders of their own, the Streamable HTTP server hosting
    // the HTTP+SSE endpoints, and its client falling back to HTTP+SSE, stay inside one folder.
    const COMPOSED = new Set<string>([]);
    const folderOf = (path: string): string | undefined => {
      const parts = path.split('/');
      return parts.length > 2 ? parts[1] : undefined;
    };
    const violations = [...graph].flatMap(([file, imports]) => {
      const own = folderOf(file);
      if (own === undefined) return [];
      return imports
        .filter((target) => layerOf(target) === layerOf(file))
        .filter((target) => {
          const folder = folderOf(target);
          return folder !== undefined && folder !== own && !SHARED.has(folder);
        })
        .map((target) => `${file} → ${target}`)
        .filter((edge) => !COMPOSED.has(edge));
    });
    expect([...new Set(violations)]).toEqual([]);
  });

  it('resolves every relative import to a file', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((t) => !graph.has(t)).map((t) => `${file} → ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('never uses console in lib/', () => {
    const offenders = files.filter((f) =>
      /\bconsole\.(log|error|warn|info|debug)\(/.test(readFileSync(join(LIB, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  // DESIGN.md → lib/operators: one implementation per semantic. The request path runs the objects
  // the public operators are made of, so breaking an operator breaks the runtime's tests too.
  it("runs requests on the operators' own parts: the request clock, the cancellation reasons, the abort listener", () => {
    const imports = (file: string) => graph.get(file) ?? [];
    expect(imports('connection/request-pipeline.ts')).toEqual(
      expect.arrayContaining([
        'operators/request-clock.ts',
        'operators/cancel-on-unsubscribe.ts',
        'operators/abort-on-signal.ts',
        'operators/deadlines.ts',
      ]),
    );
    expect(imports('operators/timeout-with-reset.ts')).toEqual(
      expect.arrayContaining(['operators/request-clock.ts', 'operators/deadlines.ts']),
    );
    expect(imports('operators/deadlines.ts')).toContain('operators/timer-scheduler.ts');
    expect(imports('connection/correlator.ts')).toContain('operators/progress.ts');
    expect(imports('transport/stdio/stdio-server-connection.ts')).toContain('transport/framing/ndjson.ts');
    // Nothing else makes a request's timeout error: the clock is the one place deadlines are decided.
    const makers = files.filter((f) => /new RequestTimeoutError\(/.test(readFileSync(join(LIB, f), 'utf8')));
    expect(makers).toEqual(['operators/request-clock.ts']);
  });

  // DESIGN.md → lib/connection: every lifecycle rule lives in the machines (tags and context); the
  // connection reads them and decides nothing beside them.
  it('writes what the lifecycle decided in one place each: the flags from the tags, the peer from the context', () => {
    const connectionFiles = files.filter((f) => f.startsWith('connection/'));
    const writers = (pattern: RegExp) =>
      connectionFiles.filter((f) => pattern.test(readFileSync(join(LIB, f), 'utf8'))).sort();
    expect(writers(/\b(?:conn|this)\.(?:revision|peerCapabilities|peerInfo|instructions|requestMeta)\s*=[^=]/)).toEqual(
      ['connection/connection-lifecycle.ts'],
    );
    const connection = readFileSync(join(LIB, 'connection/connection.ts'), 'utf8');
    // From the tags after each step; and closed, when a machine that failed can take no step to say so.
    expect(connection.match(/this\.flags\s*=[^=][^;]*/g)).toEqual([
      'this.flags = flagsOf(snapshot)',
      'this.flags = Flag.closed',
    ]);
    // ping is answered and sent as the lifecycle's ping tags say, never by its name alone.
    const pingRules = connectionFiles.flatMap((f) =>
      readFileSync(join(LIB, f), 'utf8')
        .split('\n')
        .filter((line) => /=== 'ping'/.test(line))
        .map((line) => ({ f, pingTag: /acceptsPing|maySendPing/.test(line) })),
    );
    expect(pingRules.length).toBeGreaterThan(0);
    expect(pingRules.filter((rule) => !rule.pingTag)).toEqual([]);
  });
});
