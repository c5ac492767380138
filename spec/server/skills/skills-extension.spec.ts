import { createHash } from 'node:crypto';
import fs, { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { createServer } from '../../../lib/server/server';
import { serveSkills } from '../../../lib/server/skills/skills-extension';
import type { SkillsOptions } from '../../../lib/server/skills/skills-extension';
import type { McpClient } from '../../../lib/client/client';
import { connected } from '../../support/connected';

const FOLDER = join(__dirname, '../../../examples/conformance/skills');
const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const file = (path: string) => readFileSync(join(FOLDER, path));

function skillsServer(options: SkillsOptions = { folder: FOLDER }) {
  const server = createServer({ name: 'skills-spec', version: '1.0.0', logging: false });
  const served = serveSkills(server, options);
  return { server, served };
}

describe('serveSkills', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close('done'));
  const call = (method: string, params: Record<string, unknown> = {}) =>
    firstValueFrom(client!.request(method, params));

  it('declares the extension with directoryRead, and the resources capability its files need', async () => {
    client = await connected(skillsServer().server);
    expect(client.serverCapabilities.extensions).toEqual({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
    expect(client.serverCapabilities.resources).toBeDefined();
  });

  it('lists each skill with its frontmatter and every file, digest and size of the bytes on disk', async () => {
    client = await connected(skillsServer().server);
    const { skills } = (await call('skills/list')) as { skills: Array<Record<string, unknown>> };
    expect(skills.map((skill) => skill.uri)).toEqual([
      'skill://acme/release-notes/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    const pdf = skills[1]!;
    expect(pdf.frontmatter).toEqual({
      name: 'pdf-processing',
      description: expect.stringMatching(/^Extract text and tables/),
      license: 'MIT',
      metadata: { author: 'rxmcp examples', version: '1.0' },
    });
    expect(pdf.resources).toEqual(
      ['SKILL.md', 'references/FORMS.md', 'scripts/fill_form.py'].map((path) => ({
        uri: `skill://pdf-processing/${path}`,
        digest: sha256(file(`pdf-processing/${path}`)),
        size: file(`pdf-processing/${path}`).length,
      })),
    );
  });

  it('adds the caching attributes to skills/list and skills/get only under the modern revision', async () => {
    client = await connected(skillsServer().server);
    expect(await call('skills/list')).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(await call('skills/get', { uri: 'skill://pdf-processing/SKILL.md' })).toMatchObject({ ttlMs: 60_000 });
    client.close('done');
    client = await connected(skillsServer().server, { protocolVersion: '2025-11-25' });
    const listed = await call('skills/list');
    expect(listed).not.toHaveProperty('ttlMs');
    expect((listed.skills as unknown[]).length).toBe(2);
  });

  it('pages skills/list without splitting an entry, and refuses a cursor it did not make', async () => {
    client = await connected(skillsServer({ folder: FOLDER, pageSize: 1 }).server);
    const first = await call('skills/list');
    expect((first.skills as unknown[]).length).toBe(1);
    expect(typeof first.nextCursor).toBe('string');
    const second = await call('skills/list', { cursor: first.nextCursor });
    expect(second.skills).toEqual([expect.objectContaining({ uri: 'skill://pdf-processing/SKILL.md' })]);
    expect(second).not.toHaveProperty('nextCursor');
    await expect(call('skills/list', { cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
  });

  it('answers skills/get with the listed entry, and -32602 for a URI it does not serve or no URI', async () => {
    client = await connected(skillsServer().server);
    const { skills } = (await call('skills/list')) as { skills: unknown[] };
    const got = await call('skills/get', { uri: 'skill://acme/release-notes/SKILL.md' });
    expect(got.skill).toEqual(skills[0]);
    expect(got).not.toHaveProperty('nextCursor');
    await expect(call('skills/get', { uri: 'skill://nope/SKILL.md' })).rejects.toMatchObject({ code: -32602 });
    await expect(call('skills/get', {})).rejects.toMatchObject({ code: -32602 });
  });

  it('serves SKILL.md as a text/markdown resource named and described by its frontmatter', async () => {
    client = await connected(skillsServer().server);
    const resources = await client.promises.listResources();
    expect(resources.find((resource) => resource.uri === 'skill://pdf-processing/SKILL.md')).toMatchObject({
      name: 'pdf-processing',
      description: expect.stringMatching(/^Extract text and tables/),
      mimeType: 'text/markdown',
    });
    const read = await client.promises.readResource('skill://pdf-processing/references/FORMS.md');
    expect(read.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: file('pdf-processing/references/FORMS.md').toString('utf8'),
    });
  });

  it('reads a directory: subfolders as inode/directory, files with their type; -32602 for a file', async () => {
    client = await connected(skillsServer().server);
    const root = await call('resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(root.resources).toEqual([
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/scripts', name: 'scripts', mimeType: 'inode/directory' },
      expect.objectContaining({ uri: 'skill://pdf-processing/SKILL.md', mimeType: 'text/markdown' }),
    ]);
    const acme = await call('resources/directory/read', { uri: 'skill://acme' });
    expect(acme.resources).toEqual([
      { uri: 'skill://acme/release-notes', name: 'release-notes', mimeType: 'inode/directory' },
    ]);
    await expect(call('resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('leaves directory reads out when directoryRead is false', async () => {
    client = await connected(skillsServer({ folder: FOLDER, directoryRead: false }).server);
    expect(client.serverCapabilities.extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
    await expect(call('resources/directory/read', { uri: 'skill://acme' })).rejects.toMatchObject({ code: -32601 });
  });

  it('serves skills given in code, and ones added later', async () => {
    const { server, served } = skillsServer({
      skills: [
        { path: 'tools/greet', files: { 'SKILL.md': '---\nname: greet\ndescription: Greets.\n---\nSay hello.\n' } },
      ],
    });
    served.add({ path: 'bye', files: { 'SKILL.md': '---\nname: bye\ndescription: Says goodbye.\n---\n' } });
    client = await connected(server);
    const { skills } = (await call('skills/list')) as { skills: Array<{ uri: string }> };
    expect(skills.map((skill) => skill.uri)).toEqual(['skill://tools/greet/SKILL.md', 'skill://bye/SKILL.md']);
    expect(served.entries()).toHaveLength(2);
  });

  it.each([
    [{ path: 'x', files: { 'README.md': 'no manifest' } }, /has no SKILL.md/],
    [{ path: 'x', files: { 'SKILL.md': '---\nname: y\ndescription: d\n---\n' } }, /frontmatter name "y" is not x/],
    [{ path: 'Bad_Name', files: { 'SKILL.md': '---\nname: Bad_Name\ndescription: d\n---\n' } }, /skill name/],
    [{ path: 'x', files: { 'SKILL.md': '---\nname: x\n---\n' } }, /no description/],
    [{ path: 'x', files: { 'SKILL.md': 'no frontmatter' } }, /frontmatter block/],
    [{ path: '../x', files: { 'SKILL.md': '---\nname: x\ndescription: d\n---\n' } }, /relative path/],
  ])('refuses a malformed skill (%#)', (skill, message) => {
    expect(() => skillsServer({ skills: [skill] })).toThrow(message);
  });

  it('refuses a skill path served twice', () => {
    const skill = { path: 'x', files: { 'SKILL.md': '---\nname: x\ndescription: d\n---\n' } };
    expect(() => skillsServer({ skills: [skill, skill] })).toThrow(/already served/);
  });
});

describe('serveSkills from a folder with symlinks and large files', () => {
  const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBody.\n`;
  let scratch: string;
  let folder: string;
  let outside: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rxmcp-skills-'));
    folder = join(scratch, 'skills');
    outside = join(scratch, 'outside');
    mkdirSync(join(folder, 'notes', 'docs'), { recursive: true });
    mkdirSync(join(outside, 'secrets'), { recursive: true });
    writeFileSync(join(folder, 'notes', 'SKILL.md'), skill('notes'));
    writeFileSync(join(folder, 'notes', 'docs', 'guide.md'), 'inside');
    writeFileSync(join(outside, 'hostname'), 'secret host');
    writeFileSync(join(outside, 'secrets', 'key.pem'), 'secret key');
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('serves a symlink to a file inside the folder, and neither a file nor a folder it points to outside', async () => {
    symlinkSync(join(folder, 'notes', 'docs', 'guide.md'), join(folder, 'notes', 'alias.md'));
    symlinkSync(join(outside, 'hostname'), join(folder, 'notes', 'hostname.txt'));
    symlinkSync(join(outside, 'secrets'), join(folder, 'notes', 'ssl'));
    // A loop back up the folder is walked once, not forever.
    symlinkSync(join(folder, 'notes'), join(folder, 'notes', 'docs', 'loop'));
    const { server } = skillsServer({ folder });
    const client = await connected(server);
    try {
      const resources = await client.promises.listResources();
      expect(resources.map((resource) => resource.uri).sort()).toEqual([
        'skill://notes/SKILL.md',
        'skill://notes/alias.md',
        'skill://notes/docs/guide.md',
      ]);
      await expect(client.promises.readResource('skill://notes/hostname.txt')).rejects.toThrow();
      await expect(client.promises.readResource('skill://notes/ssl/key.pem')).rejects.toThrow();
      const alias = await client.promises.readResource('skill://notes/alias.md');
      expect(alias.contents[0]).toMatchObject({ text: 'inside' });
    } finally {
      client.close('done');
    }
  });

  it('skips a skill folder that is a symlink to a folder outside', () => {
    mkdirSync(join(outside, 'stolen'));
    writeFileSync(join(outside, 'stolen', 'SKILL.md'), skill('stolen'));
    symlinkSync(join(outside, 'stolen'), join(folder, 'stolen'));
    expect(serveSkills(createServer({ name: 's', version: '1', logging: false }), { folder }).entries()).toEqual([
      expect.objectContaining({ uri: 'skill://notes/SKILL.md' }),
    ]);
  });

  it('refuses a file past the size limit without reading it', () => {
    // Sparse: 300 MB long, no disk used.
    const big = join(folder, 'notes', 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024);
    // Counts every byte read through the calls a folder could be read with.
    let bytesRead = 0;
    const { readFileSync: wholeFile, readSync: someBytes } = fs;
    jest.spyOn(fs, 'readFileSync').mockImplementation(((...args: Parameters<typeof wholeFile>) => {
      const bytes = wholeFile(...args);
      bytesRead += bytes.length;
      return bytes;
    }) as typeof wholeFile);
    jest.spyOn(fs, 'readSync').mockImplementation(((...args: Parameters<typeof someBytes>) => {
      const read = someBytes(...args);
      bytesRead += read;
      return read;
    }) as typeof someBytes);
    let refused: unknown;
    try {
      skillsServer({ folder });
    } catch (error) {
      refused = error;
    }
    expect(bytesRead).toBeLessThan(1024 * 1024);
    expect(refused).toBeInstanceOf(RangeError);
    expect((refused as Error).message).toMatch(/skill file big\.bin of .* is 314572800 bytes/);
  });
});
