import { parseUriTemplate } from '../../lib/server/uri-template';

// The variables of RFC 6570 §3.2.1, used by the examples of §3.2.2 to §3.2.9.
const VARIABLES = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  keys: { semi: ';', dot: '.', comma: ',' },
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: {},
  undef: undefined,
};

// [template, expansion] pairs from RFC 6570 §3.2.
const EXAMPLES: Array<[string, string]> = [
  // §3.2.2 simple string expansion
  ['{var}', 'value'],
  ['{hello}', 'Hello%20World%21'],
  ['{half}', '50%25'],
  ['O{empty}X', 'OX'],
  ['O{undef}X', 'OX'],
  ['{x,y}', '1024,768'],
  ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ['?{x,empty}', '?1024,'],
  ['?{x,undef}', '?1024'],
  ['?{undef,y}', '?768'],
  ['{var:3}', 'val'],
  ['{var:30}', 'value'],
  ['{list}', 'red,green,blue'],
  ['{list*}', 'red,green,blue'],
  ['{keys}', 'semi,%3B,dot,.,comma,%2C'],
  ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
  // §3.2.3 reserved expansion
  ['{+var}', 'value'],
  ['{+hello}', 'Hello%20World!'],
  ['{+half}', '50%25'],
  ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
  ['{+base}index', 'http://example.com/home/index'],
  ['O{+empty}X', 'OX'],
  ['O{+undef}X', 'OX'],
  ['{+path}/here', '/foo/bar/here'],
  ['here?ref={+path}', 'here?ref=/foo/bar'],
  ['up{+path}{var}/here', 'up/foo/barvalue/here'],
  ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['{+path,x}/here', '/foo/bar,1024/here'],
  ['{+path:6}/here', '/foo/b/here'],
  ['{+list}', 'red,green,blue'],
  ['{+list*}', 'red,green,blue'],
  ['{+keys}', 'semi,;,dot,.,comma,,'],
  ['{+keys*}', 'semi=;,dot=.,comma=,'],
  // §3.2.4 fragment expansion
  ['{#var}', '#value'],
  ['{#hello}', '#Hello%20World!'],
  ['{#half}', '#50%25'],
  ['foo{#empty}', 'foo#'],
  ['foo{#undef}', 'foo'],
  ['{#x,hello,y}', '#1024,Hello%20World!,768'],
  ['{#path,x}/here', '#/foo/bar,1024/here'],
  ['{#path:6}/here', '#/foo/b/here'],
  ['{#list}', '#red,green,blue'],
  ['{#list*}', '#red,green,blue'],
  ['{#keys}', '#semi,;,dot,.,comma,,'],
  ['{#keys*}', '#semi=;,dot=.,comma=,'],
  // §3.2.5 label expansion with dot-prefix
  ['{.who}', '.fred'],
  ['{.who,who}', '.fred.fred'],
  ['{.half,who}', '.50%25.fred'],
  ['www{.dom*}', 'www.example.com'],
  ['X{.var}', 'X.value'],
  ['X{.empty}', 'X.'],
  ['X{.undef}', 'X'],
  ['X{.var:3}', 'X.val'],
  ['X{.list}', 'X.red,green,blue'],
  ['X{.list*}', 'X.red.green.blue'],
  ['X{.keys}', 'X.semi,%3B,dot,.,comma,%2C'],
  ['X{.keys*}', 'X.semi=%3B.dot=..comma=%2C'],
  ['X{.empty_keys}', 'X'],
  ['X{.empty_keys*}', 'X'],
  // §3.2.6 path segment expansion
  ['{/who}', '/fred'],
  ['{/who,who}', '/fred/fred'],
  ['{/half,who}', '/50%25/fred'],
  ['{/who,dub}', '/fred/me%2Ftoo'],
  ['{/var}', '/value'],
  ['{/var,empty}', '/value/'],
  ['{/var,undef}', '/value'],
  ['{/var,x}/here', '/value/1024/here'],
  ['{/var:1,var}', '/v/value'],
  ['{/list}', '/red,green,blue'],
  ['{/list*}', '/red/green/blue'],
  ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
  ['{/keys}', '/semi,%3B,dot,.,comma,%2C'],
  ['{/keys*}', '/semi=%3B/dot=./comma=%2C'],
  // §3.2.7 path-style parameter expansion
  ['{;who}', ';who=fred'],
  ['{;half}', ';half=50%25'],
  ['{;empty}', ';empty'],
  ['{;v,empty,who}', ';v=6;empty;who=fred'],
  ['{;v,bar,who}', ';v=6;who=fred'],
  ['{;x,y}', ';x=1024;y=768'],
  ['{;x,y,empty}', ';x=1024;y=768;empty'],
  ['{;x,y,undef}', ';x=1024;y=768'],
  ['{;hello:5}', ';hello=Hello'],
  ['{;list}', ';list=red,green,blue'],
  ['{;list*}', ';list=red;list=green;list=blue'],
  ['{;keys}', ';keys=semi,%3B,dot,.,comma,%2C'],
  ['{;keys*}', ';semi=%3B;dot=.;comma=%2C'],
  // §3.2.8 form-style query expansion
  ['{?who}', '?who=fred'],
  ['{?half}', '?half=50%25'],
  ['{?x,y}', '?x=1024&y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['{?x,y,undef}', '?x=1024&y=768'],
  ['{?var:3}', '?var=val'],
  ['{?list}', '?list=red,green,blue'],
  ['{?list*}', '?list=red&list=green&list=blue'],
  ['{?keys}', '?keys=semi,%3B,dot,.,comma,%2C'],
  ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
  // §3.2.9 form-style query continuation
  ['{&who}', '&who=fred'],
  ['{&half}', '&half=50%25'],
  ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
  ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ['{&var:3}', '&var=val'],
  ['{&list}', '&list=red,green,blue'],
  ['{&list*}', '&list=red&list=green&list=blue'],
  ['{&keys}', '&keys=semi,%3B,dot,.,comma,%2C'],
  ['{&keys*}', '&semi=%3B&dot=.&comma=%2C'],
];

describe('parseUriTemplate', () => {
  describe('expand', () => {
    it.each(EXAMPLES)('[resources.uri-template] expands %s to %s (RFC 6570 §3.2)', (template, expected) => {
      expect(parseUriTemplate(template).expand(VARIABLES)).toBe(expected);
    });

    it('encodes characters outside the BMP as UTF-8', () => {
      expect(parseUriTemplate('{x}').expand({ x: '😀é' })).toBe('%F0%9F%98%80%C3%A9');
    });
  });

  describe('match', () => {
    it('[resources.template-match] matches a simple template and decodes the variable', () => {
      const template = parseUriTemplate('test://template/{id}/data');
      expect(template.match('test://template/123/data')).toEqual({ id: '123' });
      expect(template.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
      expect(template.match('test://template/123/other')).toBeUndefined();
      expect(template.match('test://template/1/2/data')).toBeUndefined();
    });

    it('does not let a simple variable swallow a path separator', () => {
      expect(parseUriTemplate('file:///{name}').match('file:///a/b')).toBeUndefined();
    });

    it('matches reserved expansion across slashes', () => {
      expect(parseUriTemplate('file://{+path}').match('file:///home/me/notes.txt')).toEqual({
        path: '/home/me/notes.txt',
      });
    });

    it('matches exploded path segments as a list', () => {
      expect(parseUriTemplate('repo://x{/segments*}').match('repo://x/a/b/c')).toEqual({ segments: ['a', 'b', 'c'] });
    });

    it('matches query parameters in any order, and their absence', () => {
      const template = parseUriTemplate('search://items{?q,page}');
      expect(template.match('search://items?page=2&q=red%20shoes')).toEqual({ q: 'red shoes', page: '2' });
      expect(template.match('search://items')).toEqual({});
    });

    it('matches several variables of one expression', () => {
      expect(parseUriTemplate('map://{x,y}').match('map://1024,768')).toEqual({ x: '1024', y: '768' });
    });

    it('round-trips the RFC level 1 to 3 examples it can invert', () => {
      const cases: Array<[string, Record<string, string>]> = [
        ['{/who,dub}', { who: 'fred', dub: 'me/too' }],
        ['{;x,y}', { x: '1024', y: '768' }],
        ['X{.var}', { var: 'value' }],
        ['{#hello}', { hello: 'Hello World!' }],
        ['{?x,y}', { x: '1024', y: '768' }],
      ];
      for (const [text, variables] of cases) {
        const template = parseUriTemplate(text);
        expect(template.match(template.expand(variables))).toEqual(variables);
      }
    });

    it('lists variable names in order', () => {
      expect(parseUriTemplate('a{/b,c*}{?d}').variableNames).toEqual(['b', 'c', 'd']);
    });
  });

  it('rejects malformed templates with a clear error', () => {
    expect(() => parseUriTemplate('test://{id')).toThrow(/unclosed/);
    expect(() => parseUriTemplate('test://{a b}')).toThrow(/invalid variable/);
  });
});

describe('matching in linear time (#13)', () => {
  // Each of these took seconds to hours with the backtracking regular expression this matcher
  // replaced (exponential in the repeated part); the test's timeout is the bound.
  it.each([
    ['x://h{&q}', `x://h${'&'.repeat(5000)}#`],
    ['x://h{?q}{&page}', `x://h?${'a&'.repeat(5000)}#`],
    ['x://{a}{b}{c}', `x://${'a'.repeat(30_000)}/`],
    ['x://{a}.{b}.{c}/end', `x://${'a.'.repeat(20_000)}x`],
  ])(
    'gives up quickly on %s against a hostile URI',
    (template, uri) => {
      expect(parseUriTemplate(template).match(uri)).toBeUndefined();
    },
    5_000,
  );

  it('still lets a reserved expression run past a later copy of the literal that follows it', () => {
    expect(parseUriTemplate('files://{+path}/x').match('files://a/x/b/x')).toEqual({ path: 'a/x/b' });
    expect(parseUriTemplate('files://{+path}/x').match('files://a/x')).toEqual({ path: 'a' });
  });

  it('splits adjacent expressions the same way every time: the first takes its whole run', () => {
    expect(parseUriTemplate('x://{a}{b}').match('x://abc')).toEqual({ a: 'abc' });
    expect(parseUriTemplate('x://{a}{/b}').match('x://abc/def')).toEqual({ a: 'abc', b: 'def' });
  });
});
