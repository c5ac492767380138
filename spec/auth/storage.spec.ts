import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileOAuthStorage } from '../../lib/auth/storage';

const record = (token: string) => ({
  issuer: 'https://as.example',
  tokens: { access_token: token, token_type: 'Bearer' },
});

describe('createFileOAuthStorage, where others can write', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rxmcp-oauth-store-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('creates its folder for its owner only, and leaves no file but the store behind', async () => {
    const folder = join(scratch, 'config', 'rxmcp');
    const path = join(folder, 'oauth.json');
    await createFileOAuthStorage(path).save('https://mcp.example', record('t-1'));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['oauth.json']);
  });

  it('never writes tokens through a symlink planted where a temporary file would be', async () => {
    const folder = join(scratch, 'store');
    mkdirSync(folder);
    const path = join(folder, 'oauth.json');
    const stolen = join(scratch, 'stolen.json');
    // Every name an earlier version wrote through, and the plain guesses.
    for (const name of [`oauth.json.${process.pid}.tmp`, 'oauth.json.tmp', '.oauth.json.tmp'])
      symlinkSync(stolen, join(folder, name));
    await createFileOAuthStorage(path).save('https://mcp.example', record('secret-token'));
    expect(existsSync(stolen)).toBe(false);
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toContain('secret-token');
  });

  it('refuses a store that is a symlink, reading or writing, and leaves its target alone', async () => {
    const target = join(scratch, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ 'https://mcp.example https://as.example': record('planted') }));
    const path = join(scratch, 'oauth.json');
    symlinkSync(target, path);
    const storage = createFileOAuthStorage(path);
    await expect(storage.load('https://mcp.example', 'https://as.example')).rejects.toThrow(/symbolic link/);
    await expect(storage.save('https://mcp.example', record('secret-token'))).rejects.toThrow(/symbolic link/);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).not.toContain('secret-token');
  });
});
