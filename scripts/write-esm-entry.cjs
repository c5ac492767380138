// Writes the ES module facades over the CommonJS build: dist/esm/index.mjs for the package root
// and dist/esm/<role>.mjs for each subpath entry (rxmcp/server, rxmcp/client, ...), so that
// `import` and `require` of rxmcp share one module instance (no dual-package hazard). Each facade
// has its own declarations (<role>.d.mts), so that TypeScript sees the ES module that `import`
// loads: the named exports, and a default export that is the CommonJS module's exports object.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const ENTRIES = require('./package-entries.cjs');

/** Writes `text` to `file` unless it holds it already: a build with nothing new leaves dist/ as it is. */
function writeIfChanged(file, text) {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return;
  fs.writeFileSync(file, text);
}

fs.mkdirSync(path.join(root, 'dist/esm'), { recursive: true });
for (const [name, source] of Object.entries(ENTRIES)) {
  const api = require(path.join(root, `dist/${source}.js`));
  const names = Object.keys(api).filter((n) => n !== 'default' && n !== '__esModule');
  const lines = [
    `import api from '../${source}.js';`,
    ...names.map((n) => `export const ${n} = api.${n};`),
    'export default api;',
    '',
  ];
  const types = [
    `import * as api from '../${source}.js';`,
    `export * from '../${source}.js';`,
    'export default api;',
    '',
  ];
  writeIfChanged(path.join(root, `dist/esm/${name}.mjs`), lines.join('\n'));
  writeIfChanged(path.join(root, `dist/esm/${name}.d.mts`), types.join('\n'));
}
