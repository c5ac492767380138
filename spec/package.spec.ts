import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// The built package (npm test builds first) must load both ways, as one module instance.
const ROOT = resolve(__dirname, '..');
const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim();

describe('the built package', () => {
  it('loads with require("rxmcp")', () => {
    const out = run([
      '-e',
      "const m = require('rxmcp'); console.log(typeof m.createServer, typeof m.connect, m.LATEST_REVISION)",
    ]);
    expect(out).toBe('function function 2026-07-28');
  });

  it('loads with import from "rxmcp", sharing classes with the CommonJS build', () => {
    const out = run([
      '--input-type=module',
      '-e',
      "import { createServer, JsonRpcError } from 'rxmcp'; import { createRequire } from 'node:module';" +
        "const cjs = createRequire(import.meta.url)('rxmcp');" +
        'console.log(typeof createServer, JsonRpcError === cjs.JsonRpcError)',
    ]);
    expect(out).toBe('function true');
  });

  it('serves each role from its own entry, as one module instance with the root, both ways', () => {
    const out = run([
      '--input-type=module',
      '-e',
      "import { createServer } from 'rxmcp/server'; import { connect } from 'rxmcp/client';" +
        "import { createStdioServerTransport } from 'rxmcp/stdio'; import { startStreamableHttpServer } from 'rxmcp/http';" +
        "import { startWebSocketServer } from 'rxmcp/websocket'; import { createRequire } from 'node:module';" +
        "const require = createRequire(import.meta.url); const root = require('rxmcp');" +
        'console.log([createServer === root.createServer, connect === root.connect, createStdioServerTransport === require("rxmcp/stdio").createStdioServerTransport,' +
        ' typeof startStreamableHttpServer, typeof startWebSocketServer].join(" "))',
    ]);
    expect(out).toBe('true true true function function');
  });

  it('loads no transport through rxmcp/server', () => {
    const out = run([
      '-e',
      "require('rxmcp/server'); console.log(Object.keys(require.cache).filter((f) => /[\\/]transport[\\/](stdio|http|http-server|http-client|websocket)[\\/]/.test(f)).length)",
    ]);
    expect(out).toBe('0');
  });

  /**
   * How many loaded modules match `pattern` after `setup`, then after each of `steps`, in a fresh
   * process: when each part of rxmcp is loaded.
   */
  const loadsAfter = (setup: string, pattern: string, steps: readonly string[]): number[] =>
    run([
      '-e',
      `${setup}; const loaded = () => Object.keys(require.cache).filter((f) => ${pattern}.test(f)).length;` +
        `const counts = [loaded()]; ${steps.map((step) => `${step}; counts.push(loaded());`).join(' ')}` +
        "console.log(counts.join(' '));",
    ])
      .split(' ')
      .map(Number);

  it("loads a server's task runner and handlers with the first server that has tasks, not with rxmcp/server", () => {
    const counts = loadsAfter(
      "const { createServer, partialResults } = require('rxmcp/server')",
      String.raw`/[\/]server[\/]tasks[\/](task-runner|task-handlers|task-setup)\.js$/`,
      [
        "createServer({ name: 'plain', version: '1' })",
        // partialResults() installs into the task handlers: it loads them, not the runner.
        "createServer({ name: 'pieces', version: '1', extensions: [partialResults()] })",
        "createServer({ name: 'tasks', version: '1', tasks: true })",
      ],
    );
    expect(counts).toEqual([0, 0, 1, 3]);
  });

  it("loads the client's part of a connection with the first client connection, never for a server's sessions", () => {
    const counts = loadsAfter(
      "const { createServer, createInMemoryPair } = require('rxmcp/server'); const { createConnection } = require('rxmcp/core')",
      String.raw`/[\/]connection[\/](client-handshake|client-lifecycle\.machine)\.js$/`,
      [
        "const [a, b] = createInMemoryPair(); createServer({ name: 's', version: '1' }).connect(b)",
        "createConnection({ transport: a, role: 'client', info: { name: 'c', version: '1' } })",
      ],
    );
    expect(counts).toEqual([0, 0, 2]);
  });

  it("loads the events extension's modules when a program first makes it, not with rxmcp/server", () => {
    const [loaded, withServer, withEvents] = loadsAfter(
      "const { createServer, events } = require('rxmcp/server')",
      String.raw`/[\/]server[\/]events[\/]/`,
      [
        "createServer({ name: 'plain', version: '1' })",
        "events([{ name: 'tick', source: () => ({ subscribe: () => ({ unsubscribe() {} }) }) }])",
      ],
    );
    // The entry's events() and EventsTerminated; the extension's dozen come with the first events().
    expect([loaded, withServer]).toEqual([2, 2]);
    expect(withEvents).toBeGreaterThan(withServer! + 5);
  });

  it("loads a client's events modules when a program first asks for them, not with rxmcp/client", () => {
    const [loaded, asked] = loadsAfter(
      "const { eventsClient } = require('rxmcp/client')",
      String.raw`/[\/]client[\/]events[\/]/`,
      ['try { eventsClient({}); } catch {}'],
    );
    // The entry's eventsClient() and the webhook receiver; the followers come with the first call.
    expect(loaded).toBe(2);
    expect(asked).toBeGreaterThan(loaded! + 3);
  });

  it('loads no transport class through rxmcp/client: what the client shares with HTTP comes from leaf modules', () => {
    // The client reads a header encoding and an error's data key of the Streamable HTTP transport:
    // importing them from the transport's own module loaded all fifteen of its files.
    const out = run([
      '-e',
      "require('rxmcp/client'); console.log(Object.keys(require.cache).filter((f) => /[\\/]transport[\\/](stdio|http|http-server|http-client|websocket)[\\/]/.test(f)).map((f) => f.split(/[\\\\/]/).pop()).sort().join(' '))",
    ]);
    expect(out).toBe('modern-calls.js request-headers.js');
  });

  it("sends a client's HTTP requests through undici's pool without loading the rest of undici", () => {
    // undici's entry loads fetch, WebSocket, caches and mocks too: about 100 ms before a first request.
    const script =
      "const http = require('node:http'); const { createStreamableHttpClientTransport } = require('rxmcp/http-client');" +
      "const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' })" +
      ".end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }))); });" +
      "server.listen(0, '127.0.0.1', () => { const t = createStreamableHttpClientTransport({ url: 'http://127.0.0.1:' + server.address().port + '/mcp', openStandaloneStream: false });" +
      't.incoming$.subscribe((frame) => { const undici = Object.keys(require.cache).filter((f) => /[\\/]node_modules[\\/]undici[\\/]/.test(f));' +
      "console.log(JSON.stringify(frame.message ?? frame).includes('result'), undici.some((f) => /dispatcher[\\/]pool\\.js$/.test(f)), undici.some((f) => /undici[\\/]index\\.js$/.test(f)));" +
      't.close(); server.close(); });' +
      "t.send({ jsonrpc: '2.0', id: 1, method: 'ping' }); });";
    expect(run(['-e', script])).toBe('true true false');
  });

  it('requires neither node:crypto nor node:child_process while loading a stdio server, until they are used', () => {
    const script = (use: string) =>
      "const Module = require('node:module'); const load = Module._load; const asked = new Set();" +
      'const note = (id) => { if (/^(node:)?(crypto|child_process)$/.test(id)) asked.add(id.replace("node:", "")); };' +
      // Asked for by require() or by process.getBuiltinModule(), either way.
      'Module._load = function (request, ...rest) { note(request); return load.call(this, request, ...rest); };' +
      'const builtin = process.getBuiltinModule.bind(process); process.getBuiltinModule = (id) => { note(id); return builtin(id); };' +
      "const server = require('rxmcp/server'); const stdio = require('rxmcp/stdio');" +
      use +
      'console.log([...asked].sort().join(" ") || "none")';
    expect(run(['-e', script('')])).toBe('none');
    // Spawning a server and signing a request state load each as they need it.
    const used =
      "stdio.createStdioClientTransport({ command: process.execPath, args: ['-e', ''] }).close();" +
      "new (require('./dist/lib/server/request-state').RequestStateSealer)().seal({ request: 'm', expiresAt: 0, answers: {}, asked: {} });";
    expect(run(['-e', script(used)])).toBe('child_process crypto');
  });

  it('builds a lifecycle machine when the first connection of its role needs it, not at load', () => {
    const machines =
      'console.log(Object.keys(require.cache).filter((f) => /lifecycle\\.machine\\.js$/.test(f)).map((f) => f.split(/[\\\\/]/).pop()).join(" ") || "none")';
    expect(run(['-e', `require('rxmcp/server'); require('rxmcp/stdio'); ${machines}`])).toBe('none');
    expect(run(['-e', `require('rxmcp/client'); require('rxmcp/http-client'); ${machines}`])).toBe('none');
    const serving =
      "const { createServer, createInMemoryPair } = require('rxmcp'); const [, side] = createInMemoryPair();" +
      "createServer({ name: 's', version: '1' }).connect(side);";
    // The session's initialize deadline would keep the process alive: it exits once it has said.
    expect(run(['-e', `${serving} ${machines}; process.exit(0);`])).toBe('server-lifecycle.machine.js');
  });

  it('loads only the RxJS modules the runtime uses, not the whole of rxjs, for a stdio server or an HTTP client', () => {
    const loaded = (entries: string[]) =>
      run([
        '-e',
        entries.map((e) => `require('${e}');`).join('') +
          'const rx = Object.keys(require.cache).filter((f) => /[\\/]rxjs[\\/]dist[\\/]/.test(f)); console.log(rx.length, rx.some((f) => /[\\/]cjs[\\/]index\\.js$/.test(f)))',
      ]);
    for (const entries of [
      ['rxmcp/server', 'rxmcp/stdio'],
      ['rxmcp/client', 'rxmcp/http-client'],
    ]) {
      const [count, whole] = loaded(entries).split(' ');
      expect(whole).toBe('false');
      expect(Number(count)).toBeGreaterThan(10);
      // The creators and operators (about 60 modules) wait for their first use.
      expect(Number(count)).toBeLessThan(50);
    }
    // Loading the root entry of rxjs as well brings in all of it: the check above can tell.
    expect(loaded(['rxmcp/server', 'rxjs']).split(' ')[1]).toBe('true');
  });

  it('loads each RxJS creator and operator on its first read, as RxJS has it, and then holds it as a value', () => {
    const out = run([
      '-e',
      "const rx = require('./dist/lib/rx/rxjs.js');" +
        'const loaded = () => Object.keys(require.cache).some((f) => /[\\/]operators[\\/]map\\.js$/.test(f));' +
        "const before = [typeof Object.getOwnPropertyDescriptor(rx, 'map').get, loaded()];" +
        "const same = rx.map === require('rxjs/internal/operators/map').map;" +
        "const after = [typeof Object.getOwnPropertyDescriptor(rx, 'map').get, loaded()];" +
        'const out = []; rx.of(1, 2, 3).pipe(rx.map((n) => n * 2), rx.filter((n) => n > 2), rx.toArray()).subscribe((v) => out.push(v));' +
        "console.log(JSON.stringify({ before, same, after, out, lazy: Object.keys(rx).filter((k) => String(Object.getOwnPropertyDescriptor(rx, k).get).includes('__firstRead')).length }))",
    ]);
    expect(JSON.parse(out)).toEqual({
      before: ['function', false],
      same: true,
      after: ['undefined', true],
      out: [[4, 6]],
      // The 23 creators and operators not read yet (map, filter, of and toArray were).
      lazy: 19,
    });
  });

  it('serves the building blocks from rxmcp/core, both ways, and not from the root', () => {
    const out = run([
      '--input-type=module',
      '-e',
      "import { createConnection, MalformedFrame } from 'rxmcp/core'; import { createRequire } from 'node:module';" +
        'const require = createRequire(import.meta.url);' +
        "console.log([typeof createConnection, MalformedFrame === require('rxmcp/core').MalformedFrame, 'createConnection' in require('rxmcp')].join(' '))",
    ]);
    expect(out).toBe('function true false');
  });
});

describe('the ES module build, for bundlers', () => {
  const ENTRIES = [
    'rxmcp',
    'rxmcp/server',
    'rxmcp/client',
    'rxmcp/stdio',
    'rxmcp/http',
    'rxmcp/http-client',
    'rxmcp/websocket',
    'rxmcp/auth',
    'rxmcp/core',
    'rxmcp/proxy',
    'rxmcp/cluster',
  ];
  const exportsOf = (conditions: string[]) =>
    JSON.parse(
      run([
        ...conditions,
        '--input-type=module',
        '-e',
        `const out = {}; for (const entry of ${JSON.stringify(ENTRIES)}) { const m = await import(entry); out[entry] = { file: import.meta.resolve(entry).replace(/^.*\\/dist\\//, 'dist/'), names: Object.keys(m).sort(), whole: Object.keys(m.default).filter((n) => n !== '__esModule').length }; } console.log(JSON.stringify(out));`,
      ]),
    ) as Record<string, { file: string; names: string[]; whole: number }>;

  it('is what the `module` condition gives (set by bundlers, never by Node), with the same exports as the CommonJS build', () => {
    const node = exportsOf([]);
    const bundler = exportsOf(['--conditions=module']);
    for (const entry of ENTRIES) {
      const name = entry === 'rxmcp' ? 'index' : entry.slice('rxmcp/'.length);
      expect([entry, node[entry]!.file]).toEqual([entry, `dist/esm/${name}.mjs`]);
      expect([entry, bundler[entry]!.file]).toEqual([entry, `dist/mjs/${name}.mjs`]);
      expect([entry, bundler[entry]!.names]).toEqual([entry, node[entry]!.names]);
      // The default export is the whole API either way.
      expect([entry, bundler[entry]!.whole]).toEqual([entry, node[entry]!.whole]);
    }
  });

  it('runs in Node as it is: a client calls a tool in memory', () => {
    const out = run([
      '--conditions=module',
      '--input-type=module',
      '-e',
      "import { createServer, createInMemoryPair, textResult } from 'rxmcp/server'; import { connect } from 'rxmcp/client';" +
        "const server = createServer({ name: 's', version: '1' }); server.tool({ name: 'hi', handler: () => textResult('hello') });" +
        "const [a, b] = createInMemoryPair(); server.connect(b); const client = await connect(a, { name: 'c', version: '1' });" +
        "const result = await client.promises.callTool('hi', {}); await client.close(); server.close(); console.log(result.content[0].text);",
    ]);
    expect(out).toBe('hello');
  });

  it('leaves no require and no CommonJS global in its modules', () => {
    const out = run([
      '-e',
      "const fs = require('node:fs'); const path = require('node:path');" +
        "const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('.mjs') ? [path.join(d, e.name)] : []);" +
        "const found = walk('dist/mjs').filter((f) => /(^|[^.\\w$])(require\\(|module\\.exports|exports\\.)/.test(fs.readFileSync(f, 'utf8')));" +
        "console.log(found.join(' ') || 'none')",
    ]);
    expect(out).toBe('none');
  });
});
