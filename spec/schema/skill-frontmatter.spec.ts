import { FrontmatterError, parseSkillDocument, parseYaml } from '../../lib/validation/skill-frontmatter';

describe('parseSkillDocument', () => {
  it('splits the frontmatter from the body, with or without a byte-order mark', () => {
    const text = '---\nname: pdf\ndescription: Reads PDFs\n---\n\n# PDF\n';
    expect(parseSkillDocument(text)).toEqual({
      frontmatter: { name: 'pdf', description: 'Reads PDFs' },
      body: '\n# PDF\n',
    });
    expect(parseSkillDocument(`\ufeff${text}`).frontmatter.name).toBe('pdf');
    expect(parseSkillDocument('---\r\nname: a\r\n---\r\nbody').body).toBe('body');
  });

  it('refuses an oversized frontmatter block before parsing it', () => {
    const huge = `---\nname: ${' '.repeat(70_000)}x\n---\n`;
    expect(() => parseSkillDocument(huge)).toThrow(/longer than 65536/);
  });

  it('refuses a document without a leading frontmatter block, or whose frontmatter is not a mapping', () => {
    expect(() => parseSkillDocument('# no frontmatter\n')).toThrow(FrontmatterError);
    expect(() => parseSkillDocument('---\n- a\n- b\n---\n')).toThrow(/not a mapping/);
  });
});

describe('parseYaml (the frontmatter subset)', () => {
  it('reads nested mappings, sequences of scalars and of mappings, and comments', () => {
    const yaml = [
      'name: pdf-processing # trailing comment',
      '# a comment line',
      'metadata:',
      '  author: example-org',
      '  version: "1.0"',
      'tags:',
      '  - a',
      '  - "b c"',
      'steps:',
      '- name: x',
      '  v: 1',
      '- name: y',
    ].join('\n');
    expect(parseYaml(yaml)).toEqual({
      name: 'pdf-processing',
      metadata: { author: 'example-org', version: '1.0' },
      tags: ['a', 'b c'],
      steps: [{ name: 'x', v: 1 }, { name: 'y' }],
    });
  });

  it('resolves plain scalars as the YAML 1.2 core schema does', () => {
    expect(parseYaml('a: ~\nb: true\nc: False\nd: 12\ne: -1.5e3\nf: 0x1F\ng: 0o17\nh: 1.0.0\ni:\nj: .inf')).toEqual({
      a: null,
      b: true,
      c: false,
      d: 12,
      e: -1500,
      f: 31,
      g: 15,
      h: '1.0.0',
      i: null,
      j: Infinity,
    });
  });

  it('reads quoted scalars with their escapes, and flow collections of scalars', () => {
    expect(
      parseYaml(`a: 'it''s # not a comment'\nb: "tab\\there \\u00e9 \\"q\\""\nc: [x, "y, z", 2]\nd: { k: v, n: 1 }`),
    ).toEqual({
      a: "it's # not a comment",
      b: 'tab\there é "q"',
      c: ['x', 'y, z', 2],
      d: { k: 'v', n: 1 },
    });
  });

  it('reads literal and folded block scalars with their chomping, and folds continued plain scalars', () => {
    expect(
      parseYaml('a: |\n  one\n  two\nb: >-\n  one\n  two\n\n  three\nc: |+\n  kept\n\nd: a plain\n  continued line'),
    ).toEqual({
      a: 'one\ntwo\n',
      b: 'one two\nthree',
      c: 'kept\n\n',
      d: 'a plain continued line',
    });
  });

  it('reads long hostile lines in linear time (no backtracking blow-up)', () => {
    const started = performance.now();
    for (const yaml of [`a${' '.repeat(60_000)}b`, `a:${' x'.repeat(30_000)}`, `- ${' '.repeat(60_000)}`]) {
      try {
        parseYaml(yaml);
      } catch (error) {
        expect(error).toBeInstanceOf(FrontmatterError);
      }
    }
    // Quadratic backtracking took over ten seconds here; linear scanning takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it.each([
    ['anchors', 'a: &x 1'],
    ['aliases', 'a: *x'],
    ['tags', 'a: !!str 1'],
    ['duplicate keys', 'a: 1\na: 2'],
    ['tabs', 'a:\n\tb: 1'],
    ['an unterminated quote', 'a: "open'],
    ['nested flow collections', 'a: [[1]]'],
    ['a line that is no key', 'just text'],
  ])('refuses %s', (_what, yaml) => {
    expect(() => parseYaml(yaml)).toThrow(FrontmatterError);
  });
});
