import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import type { Browser, Page } from 'puppeteer-core';
import { startExample } from '../support/example-server';
import { programPath } from '../support/programs';
import { bundleForBrowser } from './bundle';
import type * as McpPage from './page/mcp-page';

// The built example server (npm test builds first), started with --http 0 --cors <page origin>.
// Chromium is found (or installed) by scripts/test-programs.cjs before the suites run.

type PageGlobal = typeof globalThis & { mcpPage: typeof McpPage };

/** Serves a page that loads `script` on 127.0.0.1, an origin of its own (its port). */
async function servePage(script: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/mcp-page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(script);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><meta charset="utf-8"><title>rxmcp</title><script src="/mcp-page.js"></script>');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Starts the example server allowing `origin`; resolves with the child and its endpoint. */
async function startAllowing(origin: string): Promise<{ child: ChildProcess; endpoint: string }> {
  const { child, url } = await startExample(['--cors', origin]);
  return { child, endpoint: url };
}

const closeServer = (server: Server | undefined) =>
  new Promise<void>((done) => (server ? server.close(() => done()) : done()));

describe('the Streamable HTTP client in headless Chromium, across origins', () => {
  let page: { server: Server; origin: string } | undefined;
  let other: { server: Server; origin: string } | undefined;
  let example: { child: ChildProcess; endpoint: string } | undefined;
  let browser: Browser | undefined;
  /** What the page logged, shown when a step fails. */
  const pageLog: string[] = [];

  beforeAll(async () => {
    const chromium = programPath('chromium');
    const bundle = await bundleForBrowser(
      { file: resolve(__dirname, 'page/mcp-page.ts') },
      {
        format: 'iife',
        globalName: 'mcpPage',
      },
    );
    if (bundle.nodeImports.length > 0)
      throw new Error(`the page imports Node built-ins: ${bundle.nodeImports.join(', ')}`);
    [page, other] = await Promise.all([servePage(bundle.code), servePage(bundle.code)]);
    [example, browser] = await Promise.all([
      startAllowing(page.origin),
      puppeteer.launch({
        executablePath: chromium,
        headless: true,
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    if (example) {
      const exited = new Promise((done) => example!.child.once('exit', done));
      example.child.kill('SIGTERM');
      await exited;
    }
    await Promise.all([closeServer(page?.server), closeServer(other?.server)]);
  });

  /** Opens the page at `origin` and runs `step` in it; the page's console is attached to a failure. */
  async function inPage<T>(origin: string, step: (tab: Page) => Promise<T>): Promise<T> {
    const tab = await browser!.newPage();
    tab.on('console', (message) => pageLog.push(`${message.type()}: ${message.text()}`));
    tab.on('pageerror', (error) => pageLog.push(`pageerror: ${String(error)}`));
    try {
      await tab.goto(`${origin}/`, { waitUntil: 'load' });
      return await step(tab);
    } catch (error) {
      throw new Error(`${String(error)}\npage log:\n${pageLog.join('\n')}`);
    } finally {
      await tab.close();
    }
  }

  it('initializes, lists tools, streams the progress of a tool call and closes the session', async () => {
    const session = await inPage(page!.origin, (tab) =>
      tab.evaluate(
        (endpoint) => (globalThis as PageGlobal).mcpPage.runSession(endpoint, '2025-11-25'),
        example!.endpoint,
      ),
    );
    expect(session).toMatchObject({ era: 'legacy', revision: '2025-11-25', closeReason: 'page done' });
    expect(session.serverName).not.toBe('');
    // The session id came from an exposed response header.
    expect(session.sessionId).toEqual(expect.any(String));
    expect(session.tools).toEqual(expect.arrayContaining(['echo', 'countdown', 'test_tool_with_progress']));
    expect(session.events).toEqual([
      { type: 'progress', progress: 0, total: 100 },
      { type: 'progress', progress: 50, total: 100 },
      { type: 'progress', progress: 100, total: 100 },
      { type: 'result', text: expect.stringMatching(/^Progress token: /) },
    ]);
    // The DELETE sent on close passed its preflight: the session is gone.
    expect(session.afterClose).toBe(404);
  });

  it('speaks the modern revision too: its Mcp-Method and Mcp-Name headers pass the preflight', async () => {
    const session = await inPage(page!.origin, (tab) =>
      tab.evaluate((endpoint) => (globalThis as PageGlobal).mcpPage.runSession(endpoint, 'auto'), example!.endpoint),
    );
    expect(session.era).toBe('modern');
    expect(session.sessionId).toBeUndefined();
    expect(session.tools).toContain('test_tool_with_progress');
    expect(session.events.at(-1)).toEqual({ type: 'result', text: expect.stringMatching(/^Progress token: /) });
  });

  it('cannot call the server from an origin its --cors does not list', async () => {
    const outcome = await inPage(other!.origin, (tab) =>
      tab.evaluate((endpoint) => (globalThis as PageGlobal).mcpPage.tryConnect(endpoint), example!.endpoint),
    );
    expect(outcome).not.toBe('connected');
    expect(outcome).toMatch(/fetch/i);
  });
});
