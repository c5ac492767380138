#!/usr/bin/env node
// Makes the creators and operators of the CommonJS build's dist/lib/rx/rxjs.js load on first read
// (see lib/rx/rxjs.ts): tsc compiles each re-export to a module required at once and a getter over
// it; this gives each of those named after the marker comment in the source a getter that requires
// its module when first read and then leaves the value in its place. Run after tsc, on every build:
// a file already rewritten is left as it is. A re-export it cannot find stops the build, so that a
// change in what tsc emits is seen here.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SOURCE = path.join(ROOT, 'lib/rx/rxjs.ts');
const BUILT = path.join(ROOT, 'dist/lib/rx/rxjs.js');
const MARKER = 'Loaded on first read in the CommonJS build';

const source = fs.readFileSync(SOURCE, 'utf8');
const start = source.indexOf(MARKER);
if (start < 0) throw new Error(`lib/rx/rxjs.ts: the comment "${MARKER}" was not found`);
const lazy = [...source.slice(start).matchAll(/^export \{ (\w+) \} from '([^']+)';$/gm)].map(([, name, id]) => ({
  name,
  id,
}));

let built = fs.readFileSync(BUILT, 'utf8');
let changed = false;
for (const { name, id } of lazy) {
  // Two lines, as the two it replaces: the source map still points at the right lines.
  const lazyForm = `// ${name}: required on its first read\nObject.defineProperty(exports, "${name}", { enumerable: true, configurable: true, get: function () { return __firstRead("${name}", require("${id}").${name}); } });`;
  if (built.includes(`__firstRead("${name}",`)) continue;
  const eager = new RegExp(
    `var (\\w+) = require\\("${id.replace(/[/.]/g, '\\$&')}"\\);\\nObject\\.defineProperty\\(exports, "${name}", \\{ enumerable: true, get: function \\(\\) \\{ return \\1\\.${name}; \\} \\}\\);`,
  );
  if (!eager.test(built)) throw new Error(`dist/lib/rx/rxjs.js: the re-export of ${name} from ${id} was not found`);
  built = built.replace(eager, lazyForm);
  changed = true;
}
const helper = [
  '/** A lazily loaded export, read for the first time: it becomes a plain value. */',
  'function __firstRead(name, value) {',
  '    Object.defineProperty(exports, name, { enumerable: true, value });',
  '    return value;',
  '}',
].join('\n');
if (changed && !built.includes('function __firstRead(')) {
  built = built.replace(/^(\/\/# sourceMappingURL=.*)$/m, `${helper}\n$1`);
  if (!built.includes('function __firstRead(')) throw new Error('dist/lib/rx/rxjs.js: no source map comment to put the helper before');
}
if (changed) fs.writeFileSync(BUILT, built);
