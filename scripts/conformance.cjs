#!/usr/bin/env node
// Runs the official MCP conformance suite against the example server and the example client:
// 0.1.16 (revisions up to 2025-11-25) and 0.2.0-alpha.12 (adds 2026-07-28), both pinned.
//
//   node scripts/conformance.cjs [server|client|all]
//
// The suite's CLI needs Node 22; each suite version is installed from the npm registry into .cache/
// (outside the project's own node_modules so that the project keeps running on the Node it was
// installed with), and the Node 22 comes from scripts/test-programs.cjs, as the test suites' programs do. Fails on any FAILURE or WARNING, and on a scenario that
// recorded no checks at all (a pass that tested nothing). Requires a prior `npm run build`.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const programs = require('./test-programs.cjs');
/** The suites, each in its own install folder. */
const SUITES = {
  current: { version: '0.1.16', cache: path.join(ROOT, '.cache', 'conformance') },
  next: { version: '0.2.0-alpha.12', cache: path.join(ROOT, '.cache', 'conformance-next') },
};
/** The Node 22 the suite runs on, found or installed before the first run. */
let node22;
const nodeOf = () => {
  if (node22 !== undefined) return node22;
  node22 = programs.locateNode22();
  if (node22 === undefined) {
    execFileSync(process.execPath, [path.join(__dirname, 'test-programs.cjs')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    node22 = programs.locateNode22();
  }
  if (node22 === undefined) throw new Error(programs.node22Line());
  return node22;
};
const cliOf = (suite) =>
  path.join(suite.cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
/**
 * The server scenarios of the tasks extension (#18). The 2026-07-28 requirement set runs them "not
 * scored"; here they are scored like the others, and each must show that it exercised the feature:
 * at least one SUCCESS check. `tasks-status-notifications` is the exception: the suite itself
 * skips it (one SKIPPED check, pending its rewrite for the listen stream), so it must be exactly that.
 */
const TASK_SCENARIO = /^server-(tasks-[a-z-]+)-\d{4}-/;
const SKIPPED_BY_SUITE = new Set(['tasks-status-notifications']);
const TASK_SCENARIOS_EXPECTED = 10;
/**
 * Scenarios that pass with nothing to show when the feature is absent (every check SKIPPED, or
 * "Not testable"): the skills extension's (SEP-2640). Each must record checks, all of them SUCCESS.
 */
const EVIDENCE_REQUIRED = /(^|-)sep-2640-/;
/** The skills extension's server scenarios; `--requirements` does not run them, so they run one by one. */
const SKILLS_SERVER_SCENARIOS = [
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
  'sep-2640-skills-directory',
];
/**
 * 0.2.0-alpha.12 client runs of the example client: every non-authorization scenario of 2025-11-25
 * and 2026-07-28, each on its own wire, and those of both revisions also forced to 2026-07-28.
 */
const NEXT_CLIENT_SCENARIOS = [
  ['initialize'],
  ['tools_call'],
  ['elicitation-sep1034-client-defaults'],
  ['sse-retry'],
  ['json-schema-2020-12-preservation'],
  ['request-metadata'],
  ['sep-2322-client-request-state'],
  ['http-standard-headers'],
  ['http-custom-headers'],
  ['http-invalid-tool-headers'],
  ['json-schema-ref-no-deref'],
  ['tools_call', '--spec-version', '2026-07-28'],
  ['json-schema-2020-12-preservation', '--spec-version', '2026-07-28'],
  // The skills extension (SEP-2640): no prefetch, and digest, size and frontmatter verification.
  ['sep-2640-client-no-prefetch'],
  ['sep-2640-client-verify-digest'],
  ['sep-2640-client-verify-size'],
  ['sep-2640-client-verify-frontmatter'],
];
const PRELOAD = path.join(__dirname, 'loopback-only.cjs');
const RESULTS = path.join(ROOT, '.cache', 'conformance-results');

function install(suite) {
  const installed = (() => {
    try {
      const pkg = require(
        path.join(suite.cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'),
      );
      return pkg.version === suite.version;
    } catch {
      return false;
    }
  })();
  if (installed) return;
  fs.mkdirSync(suite.cache, { recursive: true });
  fs.writeFileSync(path.join(suite.cache, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`installing @modelcontextprotocol/conformance@${suite.version}\n`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-save',
      '--prefix',
      suite.cache,
      `@modelcontextprotocol/conformance@${suite.version}`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

function runCli(args, suite = SUITES.current, log = undefined) {
  return new Promise((resolve) => {
    // With a log file, the output goes there and is printed only when the run fails.
    const out = log === undefined ? 'inherit' : fs.openSync(log, 'w');
    const child = spawn(nodeOf(suite), ['-r', PRELOAD, cliOf(suite), ...args], {
      cwd: ROOT,
      stdio: ['ignore', out, out],
    });
    child.on('exit', (code) => {
      if (log !== undefined) {
        fs.closeSync(out);
        if (code !== 0) process.stdout.write(fs.readFileSync(log, 'utf8'));
      }
      resolve(code ?? 1);
    });
  });
}

/** Runs `jobs` (functions returning exit codes) `width` at a time; resolves with the first non-zero code, or 0. */
async function pool(jobs, width) {
  let next = 0;
  let code = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) code ||= await jobs[next++]();
    }),
  );
  return code;
}

/** What is wrong with one scenario's checks: failures and warnings, and no evidence where evidence is required. */
function checkProblems(scenario, checks) {
  const found = [];
  if (checks.length === 0) found.push(`${scenario}: no checks were recorded`);
  for (const check of checks) {
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      found.push(`${scenario}: ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
    } else if (
      EVIDENCE_REQUIRED.test(path.basename(scenario)) &&
      (check.status !== 'SUCCESS' || check.details?.untestable)
    ) {
      found.push(`${scenario}: ${check.status} ${check.id} proves nothing: ${check.errorMessage ?? check.description}`);
    }
  }
  return found;
}

/**
 * Reads every checks.json under dir; returns the checks that failed or warned, the scenarios that
 * recorded no check, and those of EVIDENCE_REQUIRED with a check that did not succeed (skipping
 * the scenarios `skip` matches).
 */
function problems(dir, skip = /^$/) {
  const found = [];
  const walk = (d) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) {
        if (!skip.test(name)) walk(p);
      } else if (name === 'checks.json') {
        found.push(...checkProblems(path.relative(dir, d), JSON.parse(fs.readFileSync(p, 'utf8'))));
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/examples/conformance/everything-server.js'), '--http', '0'], {
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

/** One run of the server suite against a fresh example server. */
async function serverRun(name, args, suite, skip) {
  const server = await startServer();
  const dir = path.join(RESULTS, name.replace(/[^a-z0-9.-]+/gi, '-'));
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    const code = await runCli(['server', '--url', server.url, ...args, '-o', dir], suite);
    const found = problems(dir, skip);
    return { name, ok: code === 0 && found.length === 0, found, code };
  } finally {
    server.stop();
  }
}

/** The skills scenarios against one example server, each in its own results folder, all scored. */
async function skillsServerRun(suite) {
  const server = await startServer();
  const dir = path.join(RESULTS, 'server-skills');
  fs.rmSync(dir, { recursive: true, force: true });
  let code = 0;
  try {
    for (const scenario of SKILLS_SERVER_SCENARIOS) {
      code ||= await runCli(
        ['server', '--url', server.url, '--scenario', scenario, '-o', path.join(dir, scenario)],
        suite,
      );
    }
  } finally {
    server.stop();
  }
  const found = problems(dir);
  const ran = SKILLS_SERVER_SCENARIOS.filter((scenario) => fs.existsSync(path.join(dir, scenario)));
  if (ran.length !== SKILLS_SERVER_SCENARIOS.length) found.push(`only ${ran.join(', ')} ran`);
  return {
    name: `server ${suite.version} ${SKILLS_SERVER_SCENARIOS.join(', ')}`,
    ok: code === 0 && found.length === 0,
    found,
    code,
  };
}

async function serverSuite() {
  const next = SUITES.next;
  return [
    await serverRun('server 0.1.16 --suite all', ['--suite', 'all'], SUITES.current),
    await serverRun(`server ${next.version} --requirements 2025-11-25`, ['--requirements', '2025-11-25'], next),
    await serverRun(`server ${next.version} --requirements 2026-07-28`, ['--requirements', '2026-07-28'], next),
    await skillsServerRun(next),
  ].map((result) => (result.name.endsWith('2026-07-28') ? withTaskEvidence(result) : result));
}

/** Adds to a 2026-07-28 run's problems every tasks scenario that did not show it exercised the feature. */
function withTaskEvidence(result) {
  const dir = path.join(RESULTS, result.name.replace(/[^a-z0-9.-]+/gi, '-'));
  const seen = new Map();
  const walk = (d) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (name === 'checks.json') {
        const scenario = TASK_SCENARIO.exec(path.basename(d))?.[1];
        if (scenario !== undefined) seen.set(scenario, JSON.parse(fs.readFileSync(p, 'utf8')));
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  const found = [...result.found];
  if (seen.size < TASK_SCENARIOS_EXPECTED)
    found.push(`only ${seen.size} tasks-* scenarios ran, expected ${TASK_SCENARIOS_EXPECTED}`);
  for (const [scenario, checks] of seen) {
    const statuses = checks.map((check) => check.status);
    if (SKIPPED_BY_SUITE.has(scenario)) {
      if (statuses.join() !== 'SKIPPED')
        found.push(`${scenario}: expected the suite's one SKIPPED check, got ${statuses.join() || 'none'}`);
    } else if (!statuses.includes('SUCCESS')) {
      found.push(`${scenario}: no SUCCESS check, so it did not exercise tasks`);
    }
  }
  return { ...result, ok: result.ok && found.length === result.found.length, found };
}

function runCliCapture(args, suite = SUITES.current) {
  return execFileSync(nodeOf(suite), ['-r', PRELOAD, cliOf(suite), ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** The client scenarios a suite lists (`--suite all`), by name. */
function listClientScenarios(suite) {
  return runCliCapture(['list', '--client'], suite)
    .split('\n')
    .map((line) => /^\s*-\s+(\S+)/.exec(line)?.[1])
    .filter((name) => name !== undefined);
}

async function clientSuite() {
  const dir = path.join(RESULTS, 'client');
  fs.rmSync(dir, { recursive: true, force: true });
  // Every client scenario of 0.1.16 (`--suite all`). The runner appends the server URL to the command.
  const listed = listClientScenarios(SUITES.current);
  const scenarios = listed.filter((name) => !name.startsWith('auth/'));
  const command = `${process.execPath} ${path.join(ROOT, 'dist/examples/conformance/everything-client.js')}`;
  let code = 0;
  for (const scenario of scenarios) {
    code ||= await runCli(['client', '--command', command, '--scenario', scenario, '-o', dir]);
  }
  for (const [scenario, ...wire] of NEXT_CLIENT_SCENARIOS) {
    const out = path.join(dir, 'next', [scenario, ...wire].join('-').replace(/[^a-z0-9.-]+/gi, '-'));
    code ||= await runCli(['client', '--command', command, '--scenario', scenario, ...wire, '-o', out], SUITES.next);
  }
  // The authorization scenarios of both suites, three at a time (each is a few requests to mocks).
  const auth = [
    ...listed.filter((name) => name.startsWith('auth/')).map((name) => [name, SUITES.current]),
    ...listClientScenarios(SUITES.next)
      .filter((name) => name.startsWith('auth/'))
      .map((name) => [name, SUITES.next]),
  ];
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  code ||= await pool(
    auth.map(([scenario, suite]) => () => {
      const tag = `${scenario}@${suite.version}`.replace(/[^a-z0-9.-]+/gi, '-');
      const out = path.join(dir, 'auth', tag);
      return runCli(
        ['client', '--command', command, '--scenario', scenario, '-o', out],
        suite,
        path.join(dir, 'logs', `${tag}.log`),
      );
    }),
    3,
  );
  const found = problems(dir);
  if (scenarios.length === 0) found.push('no client scenarios were listed');
  if (auth.length < 55) found.push(`only ${auth.length} authorization scenarios were listed`);
  const names = [
    ...scenarios,
    ...NEXT_CLIENT_SCENARIOS.map((run) => `${run.join(' ')}@${SUITES.next.version}`),
    `${auth.length} auth/* runs`,
  ];
  return { name: `client (${names.join(', ')})`, ok: code === 0 && found.length === 0, found, code };
}

async function main() {
  const which = process.argv[2] ?? 'all';
  install(SUITES.current);
  install(SUITES.next);
  const results = [];
  if (which === 'server' || which === 'all') results.push(...(await serverSuite()));
  if (which === 'client' || which === 'all') results.push(await clientSuite());
  let ok = true;
  for (const result of results) {
    process.stdout.write(
      `conformance ${result.name}: ${result.ok ? 'passed, no failures or warnings' : `FAILED (exit ${result.code})`}\n`,
    );
    for (const line of result.found) process.stdout.write(`  ${line}\n`);
    ok &&= result.ok;
  }
  process.exit(ok ? 0 : 1);
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}

module.exports = { checkProblems, problems };
