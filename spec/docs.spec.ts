import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { diagnoseExamples } from './support/example-compile';
import { parseExamples, runExamples } from './support/readme-examples';
import type { Example } from './support/readme-examples';

// The guides in docs/ are held to what the README is held to (spec/readme.spec.ts): every
// TypeScript block compiles against the library as it is and runs against the built package
// (npm test builds first), with the markers of spec/support/readme-examples.ts. Their links, and
// the README's and the CHANGELOG's, point at files and headings that exist.
const ROOT = resolve(__dirname, '..');
const DOCS = join(ROOT, 'docs');

// The guides the README's map of the docs names; a guide that goes missing fails here.
const GUIDES = [
  'README.md',
  'architecture.md',
  'authorization.md',
  'benchmarks.md',
  'client.md',
  'cluster.md',
  'composition.md',
  'errors.md',
  'extensions.md',
  'middleware-and-telemetry.md',
  'migrating.md',
  'security.md',
  'server.md',
  'transports.md',
];

// The blocks that are only type-checked, and why none of them can run in a test.
const FRAGMENTS: Record<string, Record<string, string>> = {
  'transports.md': {
    'web-handler': 'exports route handlers for a host (Bun, Deno, Workers, Next.js) that calls them',
    hono: 'exports an app for a host to serve',
    express: 'listens on a fixed port until stopped, as an application does',
    fastify: 'listens on a fixed port until stopped, as an application does',
    'web-app': 'runs in a web page, against a server that allows its origin',
  },
  'authorization.md': {
    'oauth-cli': 'signs a person in with a browser, at an authorization server on the internet',
  },
  'cluster.md': {
    cluster: 'joins a cluster on a redis-server, which these tests do not start',
  },
  'middleware-and-telemetry.md': {
    'stately-inspector': 'opens the Stately inspector in a browser and serves its bridge on a fixed port',
  },
};

const guides = () =>
  readdirSync(DOCS)
    .filter((file) => file.endsWith('.md'))
    .sort();

/** A guide's examples, named after the guide so that the examples of all guides can share a program. */
const examplesOf = (file: string): Example[] =>
  parseExamples(readFileSync(join(DOCS, file), 'utf8')).map((example) => ({
    ...example,
    name: `${file.replace(/\.md$/, '')}-${example.name}`,
  }));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The headings of a Markdown text, as anchors, outside its code blocks. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

/**
 * The relative links of a Markdown file (outside code blocks) that lead nowhere: to a file that
 * does not exist, or to a heading its target does not have. `docs/api/` is generated, so a link
 * into it is checked by `npm run docs`, not here.
 */
function brokenLinks(file: string, markdown: string, read = (path: string) => readFileSync(path, 'utf8')): string[] {
  const broken: string[] = [];
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : resolve(dirname(file), path);
    if (relative(ROOT, resolved).startsWith('docs/api')) continue;
    if (path !== '' && !existsSync(resolved)) {
      broken.push(`${relative(ROOT, file)}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) {
      broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`);
    }
  }
  return broken;
}

const children = new Set<ChildProcess>();
let dir: string;

beforeAll(() => {
  // Inside the package (and ignored by git), so that `import ... from 'rxmcp'` in a compiled
  // example resolves to the built package through its own exports, and rxjs and zod resolve too.
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.cache', 'docs-'));
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the guides in docs/', () => {
  it('include every guide the README names', () => {
    expect(guides()).toEqual(expect.arrayContaining(GUIDES));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const guide of GUIDES.filter((file) => file !== 'README.md')) expect(readme).toContain(`(docs/${guide}`);
  });

  it('have only the fragments named here', () => {
    for (const file of guides()) {
      const fragments = examplesOf(file)
        .filter((example) => example.role === 'fragment')
        .map((example) => example.fragment);
      expect({ file, fragments: fragments.sort() }).toEqual({
        file,
        fragments: Object.keys(FRAGMENTS[file] ?? {}).sort(),
      });
    }
  });

  it('have TypeScript examples that compile against the library', () => {
    expect(diagnoseExamples(ROOT, guides().flatMap(examplesOf))).toEqual([]);
  }, 120_000);

  it('link, with the README and the CHANGELOG, only to files and headings that exist', () => {
    const files = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...guides().map((file) => join(DOCS, file))];
    expect(files.flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('would report a link to a missing file or heading', () => {
    const file = join(DOCS, 'probe.md');
    const markdown = [
      '# Probe',
      '## A heading, with `code`',
      '[ok](#a-heading-with-code) [ok](server.md) [gone](nowhere.md) [bad anchor](#no-such-heading)',
      '[external](https://example.com/x.md)',
      '```md',
      '[in a code block](ignored.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(file, markdown, (path) => (path === file ? markdown : readFileSync(path, 'utf8')))).toEqual([
      'docs/probe.md: nowhere.md (no such file)',
      'docs/probe.md: #no-such-heading (no such heading)',
    ]);
  });
});

describe.each(GUIDES)('docs/%s', (file) => {
  it('has examples that run against the built package: servers listen, programs exit 0 and print what it says', async () => {
    expect(existsSync(join(ROOT, 'dist/esm/index.mjs'))).toBe(true);
    expect(await runExamples(examplesOf(file), { dir, children })).toEqual([]);
  }, 180_000);
});
