import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import type { Browser } from 'puppeteer-core';
import { built, killLeftovers, ROOT, startProgram, stopProgram } from '../examples/run-example';
import type { Running } from '../examples/run-example';
import { programPath } from '../support/programs';
import { bundleForBrowser } from './bundle';

// examples/browser: index.html and the bundle of page.ts served from one origin, the built
// examples/browser/server.js allowing that origin, and the page run in headless Chromium.
describe('examples/browser in headless Chromium', () => {
  let page: Server | undefined;
  let origin: string;
  let server: Running | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    const bundle = await bundleForBrowser({ file: resolve(ROOT, 'examples/browser/page.ts') });
    const html = readFileSync(resolve(ROOT, 'examples/browser/index.html'), 'utf8');
    page = createServer((req, res) => {
      const script = req.url === '/page.js';
      res.writeHead(200, { 'content-type': `text/${script ? 'javascript' : 'html'}; charset=utf-8` });
      res.end(script ? bundle.code : html);
    });
    await new Promise<void>((done) => page!.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    [server, browser] = await Promise.all([
      startProgram(built('browser/server.ts'), [], { env: { PAGE_ORIGIN: origin, PORT: '0' } }),
      puppeteer.launch({
        executablePath: programPath('chromium'),
        headless: true,
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await stopProgram(server);
    await new Promise((done) => (page ? page.close(done) : done(undefined)));
    killLeftovers();
  });

  it("connects across origins, shows the tool's progress and its result", async () => {
    const tab = await browser!.newPage();
    try {
      await tab.goto(`${origin}/?server=${encodeURIComponent(server!.url)}`, { waitUntil: 'load' });
      // The page sets its title when it is done (or failed); evaluated in the page, where the DOM is.
      await tab.waitForFunction("document.title === 'done' || document.title === 'failed'", { timeout: 10_000 });
      const output = await tab.$eval('#output', (element) => element.textContent ?? '');
      expect(await tab.title()).toBe('done');
      expect(output.split('\n')).toEqual([
        expect.stringMatching(/^connected to browser-example \(\d{4}-\d{2}-\d{2}\)$/),
        '1/3: 2 to go',
        '2/3: 1 to go',
        '3/3: 0 to go',
        'lift-off',
        '',
      ]);
    } finally {
      await tab.close();
    }
  });
});
