import { skillDigest } from '../../lib/schema/skills';
import { catalogSkill } from '../../lib/server/skills/skill-catalog';

describe('skillDigest', () => {
  it('is the SHA-256 of the bytes as the entries carry it, for text and for bytes alike', async () => {
    const abc = 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(await skillDigest('abc')).toBe(abc);
    expect(await skillDigest(new Uint8Array([0x61, 0x62, 0x63]))).toBe(abc);
  });

  it('matches the digests a server lists for its files', async () => {
    const manifest = '---\nname: notes\ndescription: Takes notes.\n---\n\nBody.\n';
    const skill = catalogSkill({ path: 'notes', files: { 'SKILL.md': manifest, 'a.txt': 'abc' } }, 'skill://');
    const listed = skill.entry.resources as ReadonlyArray<{ uri: string; digest: string }>;
    expect(listed.map((file) => file.digest)).toEqual([await skillDigest(manifest), await skillDigest('abc')]);
  });
});
