import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Metafile } from 'esbuild';
import { assertBuilt, consumerProject, zodIn } from './consumer';

// A web app's bundle of the client: rxmcp/client and the Streamable HTTP client transport, with
// the app's own zod, bundled by esbuild for the browser and minified, as an app's bundler does.
// Before the ES module build it was 925 KB, 564 KB of it zod (the CommonJS copy and the app's);
// at the time of writing it is about 340 KB. The app imports zod as zod's docs do (a namespace): a
// named import of \`z\` makes a bundler keep every export of zod, its 260 KB of locales among them.
const BOUND_BYTES = 400_000;

const APP = `import * as z from 'zod';
import { connect } from 'rxmcp/client';
import { createStreamableHttpClientTransport } from 'rxmcp/http-client';

const Args = z.object({ city: z.string() });
export async function weather(url, city) {
  const client = await connect(createStreamableHttpClientTransport({ url }), { name: 'web', version: '1.0.0' });
  return client.promises.callTool('weather', Args.parse({ city }));
}
`;

describe('the browser bundle of the client, from the package', () => {
  let project: string;
  let bytes: number;
  let metafile: Metafile;

  beforeAll(async () => {
    assertBuilt();
    project = consumerProject({ 'app.mjs': APP });
    const result = await build({
      entryPoints: [join(project, 'app.mjs')],
      absWorkingDir: project,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bytes = result.outputFiles[0]!.contents.byteLength;
    metafile = result.metafile;
  }, 60_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it(`weighs less than ${BOUND_BYTES / 1000} KB minified`, () => {
    expect(bytes).toBeLessThan(BOUND_BYTES);
  });

  it("holds zod once, as ES modules, shared with the app's", () => {
    const zod = zodIn(metafile);
    expect(zod.copies).toHaveLength(1);
    expect(zod.commonJsFiles).toEqual([]);
    // zod's locales stay out: rxmcp imports zod as a namespace, which a bundler can shake.
    expect(zod.files.filter((file) => file.includes('/locales/') && !file.endsWith('/en.js'))).toEqual([]);
  });

  it("takes rxmcp's ES module build, and nothing of pino, ws, eventsource or jose", () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((file) => file.includes('/dist/mjs/')).length).toBeGreaterThan(30);
    expect(inputs.filter((file) => file.includes('/dist/lib/'))).toEqual([]);
    expect(inputs.filter((file) => /node_modules\/(pino|ws|eventsource|jose)\//.test(file))).toEqual([]);
  });
});
