import { compileFilter, compileMatcher, globToRegExp } from '../../lib/proxy/name-filter';

describe('name filters', () => {
  it('matches globs on the whole name, with regular-expression characters taken literally', () => {
    expect(globToRegExp('read_*').test('read_file')).toBe(true);
    expect(globToRegExp('read_*').test('unread_file')).toBe(false);
    expect(globToRegExp('v?.x').test('v1.x')).toBe(true);
    expect(globToRegExp('v?.x').test('v1ax')).toBe(false);
    expect(globToRegExp('mem://(a)+').test('mem://(a)+')).toBe(true);
  });

  it('matches an exact name, any of a list, a RegExp (even a global one, repeatedly) or a predicate', () => {
    expect(compileMatcher('add')('add')).toBe(true);
    expect(compileMatcher('add')('adder')).toBe(false);
    expect(compileMatcher(['a', /^b\d$/])('b1')).toBe(true);
    const global = compileMatcher(/x/g);
    expect([global('x'), global('x'), global('x')]).toEqual([true, true, true]);
    expect(compileMatcher((name) => name.length === 3)('abc')).toBe(true);
  });

  it('keeps what include matches and exclude does not', () => {
    const keeps = compileFilter({ include: 'file_*', exclude: ['file_delete', /secret/] });
    expect(['file_read', 'file_delete', 'file_secret', 'other'].filter(keeps)).toEqual(['file_read']);
    expect(compileFilter(undefined)('anything')).toBe(true);
    expect(compileFilter({ exclude: 'x' })('y')).toBe(true);
  });
});
