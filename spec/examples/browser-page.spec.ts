import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bundleForBrowser } from '../browser/bundle';
import { ROOT } from './run-example';

// examples/browser/page.ts bundled as a web app's bundler would (esbuild, for the browser, with
// `rxmcp/client` and `rxmcp/http-client` resolved through the package's exports to the build).
// spec/browser/example-page.spec.ts runs the page in headless Chromium.
describe('examples/browser', () => {
  it('bundles page.ts for the browser without a Node built-in', async () => {
    const bundle = await bundleForBrowser({ file: resolve(ROOT, 'examples/browser/page.ts') });
    expect(bundle.nodeImports).toEqual([]);
    expect(bundle.code).toContain('countdown');
    // What a browser bundle must not carry: the Node-only transports' dependencies.
    expect(bundle.packageFiles.filter((file) => /^(ws|undici|eventsource|jose)\//.test(file))).toEqual([]);
  });

  it('has a page that loads the bundle, and says how to serve both', () => {
    const html = readFileSync(resolve(ROOT, 'examples/browser/index.html'), 'utf8');
    expect(html).toContain('<script type="module" src="./page.js"></script>');
    expect(html).toContain('<pre id="output"></pre>');
    expect(html).toMatch(/esbuild examples\/browser\/page\.ts --bundle/);
  });
});
