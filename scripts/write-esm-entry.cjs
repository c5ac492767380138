// Writes dist/esm/index.mjs: an ES module facade over the CommonJS build, so `import` and
// `require` of rxmcp share one module instance (no dual-package hazard).
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const api = require(path.join(root, 'dist/lib/index.js'));
const names = Object.keys(api).filter((n) => n !== 'default' && n !== '__esModule');
const lines = [
  "import api from '../lib/index.js';",
  ...names.map((n) => `export const ${n} = api.${n};`),
  '',
];
fs.mkdirSync(path.join(root, 'dist/esm'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist/esm/index.mjs'), lines.join('\n'));
fs.writeFileSync(
  path.join(root, 'dist/esm/index.d.mts'),
  "export * from '../lib/index.js';\n",
);
