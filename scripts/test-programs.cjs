#!/usr/bin/env node
// Finds or provides every program outside npm that the test suites use, before they run
// (`npm test` calls it as its `pretest` step, after the build):
//
//   node scripts/test-programs.cjs            find each program; install the missing ones where it can
//   node scripts/test-programs.cjs --check    find only; install nothing
//
// - As root on Debian or Ubuntu, a missing Debian package is installed with apt-get (one update, one
//   install for all of them). RXMCP_TEST_PROGRAMS_INSTALL=0 forbids any install.
// - Node 22 (for the conformance suite) comes from the npm registry, as a package that ships the
//   binary, into .cache/node22; a `node` of 22 or later already on PATH is used as it is.
// - Elsewhere each missing program is named on one line with how to install it. The answer is kept
//   in .cache/test-programs.json, where spec/support/programs.ts reads it: a suite that needs a
//   missing program fails with that line instead of `spawn … ENOENT`.
//
// The exit code is 0 whatever is missing: the suites that need nothing from outside still run.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CACHE = process.env.RXMCP_TEST_PROGRAMS_CACHE ?? path.join(ROOT, '.cache');
const MANIFEST = path.join(CACHE, 'test-programs.json');
const NODE22_MAJOR = 22;

/**
 * The programs, each with the suites that use it, its Debian package, and the line that says how to
 * install it elsewhere.
 */
const PROGRAMS = [
  {
    name: 'redis-server',
    usedBy: 'the cluster suites (spec/cluster, spec/security)',
    debian: 'redis-server',
    elsewhere: 'brew install redis (macOS), or a Redis 7 build on PATH',
  },
  {
    name: 'redis-cli',
    usedBy: 'the Redis Cluster suites',
    debian: 'redis-tools',
    elsewhere: 'brew install redis (macOS), or a Redis 7 build on PATH',
  },
  {
    name: 'redis-sentinel',
    usedBy: 'the Sentinel failover suites',
    debian: 'redis-sentinel',
    elsewhere: 'brew install redis (macOS; redis-sentinel comes with it), or a Redis 7 build on PATH',
  },
  {
    name: 'chromium',
    usedBy: 'the browser suites (spec/browser)',
    debian: 'chromium',
    env: 'CHROMIUM_PATH',
    also: ['chromium-browser', 'google-chrome', 'google-chrome-stable'],
    elsewhere: 'install Chromium or Chrome and set CHROMIUM_PATH to its binary',
  },
  {
    name: 'promtool',
    usedBy: 'the /metrics suites',
    debian: 'prometheus',
    elsewhere: 'brew install prometheus (macOS), or a Prometheus release on PATH',
  },
  {
    name: 'prometheus',
    usedBy: 'the /metrics scrape suites',
    debian: 'prometheus',
    elsewhere: 'brew install prometheus (macOS), or a Prometheus release on PATH',
  },
];

/** The npm package that ships a Node 22 binary for this platform, when there is one. */
function node22Package() {
  const platforms = { linux: 'linux', darwin: 'darwin' };
  const arches = { x64: 'x64', arm64: 'arm64' };
  const platform = platforms[process.platform];
  const arch = arches[process.arch];
  return platform && arch ? `node-${platform}-${arch}` : undefined;
}

const node22Binary = (pkg) => path.join(CACHE, 'node22', 'node_modules', pkg, 'bin', 'node');

/** The full path of an executable `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Where `program` is: its environment variable, then its names on PATH; undefined when nowhere. */
function locate(program) {
  const fromEnv = program.env === undefined ? undefined : process.env[program.env];
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : undefined;
  for (const name of [program.name, ...(program.also ?? [])]) {
    const found = onPath(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The major version of the Node binary at `file`, or 0 when it cannot be run. */
function majorOf(file) {
  try {
    const version = execFileSync(file, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return Number(/^v(\d+)/.exec(version.trim())?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** A Node of 22 or later: on PATH, else the one installed into the cache; undefined when neither. */
function locateNode22() {
  const onPathNode = onPath('node');
  if (onPathNode !== undefined && majorOf(onPathNode) >= NODE22_MAJOR) return onPathNode;
  const pkg = node22Package();
  if (pkg !== undefined && fs.existsSync(node22Binary(pkg))) return node22Binary(pkg);
  return undefined;
}

const mayInstall = () => !process.argv.includes('--check') && process.env.RXMCP_TEST_PROGRAMS_INSTALL !== '0';
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = () => fs.existsSync('/etc/debian_version') && onPath('apt-get') !== undefined;

/** The line that says how to install `program` on this machine. */
function installLine(program) {
  const apt = `apt-get install -y ${program.debian}`;
  const how = hasApt() ? `${isRoot() ? '' : 'sudo '}${apt}` : `${program.elsewhere} (Debian or Ubuntu: ${apt})`;
  return `${program.name} is not installed; ${program.usedBy} need it. Install it: ${how}`;
}

function node22Line() {
  const pkg = node22Package();
  const how =
    pkg === undefined
      ? 'put a Node 22 or later first on PATH'
      : `npm install --prefix .cache/node22 ${pkg}@${NODE22_MAJOR}, or put a Node 22 or later first on PATH`;
  return `node22 is not installed; the conformance suite (npm run test:conformance) needs it. Install it: ${how}`;
}

function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { stdio: ['ignore', 'inherit', 'inherit'], env };
  process.stderr.write(`installing with apt-get: ${packages.join(' ')}\n`);
  try {
    execFileSync('apt-get', ['update'], options);
    execFileSync('apt-get', ['install', '-y', ...packages], options);
  } catch (error) {
    process.stderr.write(`apt-get failed: ${error.message}\n`);
  }
}

function npmInstallNode22() {
  const pkg = node22Package();
  if (pkg === undefined) return;
  const prefix = path.join(CACHE, 'node22');
  fs.mkdirSync(prefix, { recursive: true });
  fs.writeFileSync(path.join(prefix, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`installing ${pkg}@${NODE22_MAJOR} (the conformance suite's Node)\n`);
  try {
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', prefix, `${pkg}@${NODE22_MAJOR}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  } catch (error) {
    process.stderr.write(`npm install of ${pkg} failed: ${error.message}\n`);
  }
}

/** Finds every program, installs what is missing where it may, and returns the manifest. */
function provide() {
  let missing = PROGRAMS.filter((program) => locate(program) === undefined);
  if (missing.length > 0 && mayInstall() && isRoot() && hasApt()) {
    aptInstall([...new Set(missing.map((program) => program.debian))]);
    missing = missing.filter((program) => locate(program) === undefined);
  }
  if (locateNode22() === undefined && mayInstall()) npmInstallNode22();
  const manifest = {};
  for (const program of PROGRAMS) {
    const found = locate(program);
    manifest[program.name] = found !== undefined ? { path: found } : { missing: installLine(program) };
  }
  const node22 = locateNode22();
  manifest.node22 = node22 !== undefined ? { path: node22 } : { missing: node22Line() };
  return manifest;
}

function main() {
  const manifest = provide();
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  const missing = Object.values(manifest).filter((entry) => entry.missing !== undefined);
  for (const entry of missing) process.stderr.write(`${entry.missing}\n`);
  if (missing.length === 0) process.stderr.write('every program the test suites use is here\n');
}

if (require.main === module) main();

module.exports = { PROGRAMS, MANIFEST, locateNode22, node22Line };
