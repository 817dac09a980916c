#!/usr/bin/env node
// @ts-check
// The set-up `npm run dev` and `npm test` run first (predev, pretest): brings the machine to
// what the command needs (npm ci, Debian packages, the control plane), saying what and why and
// how long each step took. Plain Node without dependencies: it runs before node_modules exists.
//
// Usage: node infra/setup/setup.mjs dev|test [--dry-run]
// Exit 1 with what to do when something cannot be installed here (Node, Go, packages without
// root); then nothing is run.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagesFor, planSetup } from './plan.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const started = performance.now();
/** '0.04s', '41.2s', '26m 30s' */
function elapsed(from = started) {
  const s = (performance.now() - from) / 1000;
  return s < 10 ? `${s.toFixed(2)}s` : s < 120 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
}
const say = (/** @type {string} */ line) => console.error(`setup: ${line}`);

/** Is `command` an executable on PATH (or in the sbin directories, where iptables lives)? */
function onPath(/** @type {string} */ command) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'].filter(Boolean);
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const mtime = (/** @type {string} */ path) => (existsSync(path) ? statSync(path).mtimeMs : undefined);

function nodeModulesState() {
  const dir = join(repo, 'node_modules');
  const link = existsSync(dir) && lstatSync(dir).isSymbolicLink() ? readlinkSync(dir) : undefined;
  if (!existsSync(dir)) return { nodeModules: /** @type {const} */ ('missing'), nodeModulesLink: link };
  // npm writes node_modules/.package-lock.json at the end of each install: absent = unfinished.
  const installed = mtime(join(dir, '.package-lock.json'));
  const lock = mtime(join(repo, 'package-lock.json')) ?? 0;
  return {
    nodeModules:
      installed !== undefined && installed >= lock ? /** @type {const} */ ('current') : /** @type {const} */ ('stale'),
    nodeModulesLink: link,
  };
}

const cache = process.env.KNREDIS_CACHE || join(homedir(), '.cache', 'knredis');

/** A setting of infra/local/versions.env (as infra/local/paths.ts reads it). */
function versionOf(/** @type {string} */ key) {
  const env = readFileSync(join(repo, 'infra/local/versions.env'), 'utf8');
  return new RegExp(`^${key}=(\\S+)`, 'm').exec(env)?.[1];
}

/** The cache build-binaries.sh fills (infra/local/paths.ts reads the same place). */
function binariesBuilt() {
  const bin = join(cache, `k8s-${versionOf('KUBE_VERSION')}-etcd-${versionOf('ETCD_VERSION')}`, 'bin');
  return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'].every((b) =>
    existsSync(join(bin, b)),
  );
}

/** Knative's adapter, webhooks and config folders, where build-knative.sh puts them. */
function knativeBuilt() {
  const dir = join(cache, `knative-${versionOf('KNATIVE_VERSION')}`);
  return [
    'bin/apiserver_receive_adapter',
    'bin/eventing-webhook',
    'bin/serving-webhook',
    'config/eventing',
    'config/serving',
  ].every((p) => existsSync(join(dir, p)));
}

/** redis_exporter, where build-exporter.sh puts it (infra/local/paths.ts reads the same place). */
function exporterBuilt() {
  return existsSync(join(cache, `redis-exporter-${versionOf('REDIS_EXPORTER_VERSION')}`, 'bin', 'redis_exporter'));
}

/** SeaweedFS' weed, where build-seaweedfs.sh puts it (infra/local/paths.ts reads the same place). */
function seaweedBuilt() {
  return existsSync(join(cache, `seaweedfs-${versionOf('SEAWEEDFS_VERSION')}`, 'bin', 'weed'));
}

/** The facts planSetup decides on; the slow ones (go, sudo) only when they matter. */
function gatherFacts(/** @type {import('./needs.mjs').Purpose} */ purpose) {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const commands = Object.fromEntries(packagesFor(purpose).map((p) => [p.command, onPath(p.command)]));
  const missing = Object.values(commands).some((present) => !present);
  const binaries = binariesBuilt();
  const knative = purpose === 'test' ? knativeBuilt() : undefined;
  const exporter = exporterBuilt();
  const seaweedfs = purpose === 'test' ? seaweedBuilt() : undefined;
  const root = process.getuid?.() === 0;
  /** @type {import('./plan.mjs').Facts} */
  const facts = {
    purpose,
    node: process.versions.node,
    nodeNeeded: pkg.engines.node,
    ...nodeModulesState(),
    commands,
    binaries,
    ...(knative === undefined ? {} : { knative }),
    exporter,
    ...(seaweedfs === undefined ? {} : { seaweedfs }),
    aptGet: missing && onPath('apt-get'),
    root,
    interactive: Boolean(process.stdin.isTTY),
  };
  if (!binaries || knative === false || !exporter || seaweedfs === false) {
    const go = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
    if (go.status === 0) facts.go = go.stdout.trim();
  }
  if (missing && !root) {
    facts.sudo = !onPath('sudo')
      ? 'none'
      : spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0
        ? 'nopasswd'
        : 'password';
  }
  return facts;
}

/** Runs argv with its output indented; a line every minute while it is silent (a build is). */
function run(/** @type {string[]} */ argv) {
  const from = performance.now();
  let lastOutput = from;
  const [command = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repo, stdio: ['inherit', 'pipe', 'pipe'] });
    const relay = (/** @type {Buffer} */ chunk) => {
      lastOutput = performance.now();
      for (const line of chunk.toString().split('\n').filter(Boolean)) console.error(`    ${line}`);
    };
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    const beat = setInterval(() => {
      if (performance.now() - lastOutput >= 60_000) {
        lastOutput = performance.now();
        say(`  ... still running (${elapsed(from)}): ${argv.join(' ')}`);
      }
    }, 5_000);
    child.once('error', (error) => {
      clearInterval(beat);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearInterval(beat);
      if (code === 0) resolve(undefined);
      else reject(new Error(`${argv.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

async function main() {
  const [given = '', flag] = process.argv.slice(2);
  /** @type {Record<import('./needs.mjs').Purpose, string>} */
  const commands = { dev: 'npm run dev', test: 'npm test', 'in-cluster': 'npm run dev -- --in-cluster' };
  if (!Object.hasOwn(commands, given) || (flag !== undefined && flag !== '--dry-run')) {
    console.error('usage: node infra/setup/setup.mjs dev|test|in-cluster [--dry-run]');
    return 2;
  }
  const purpose = /** @type {import('./needs.mjs').Purpose} */ (given);
  const plan = planSetup(gatherFacts(purpose));
  if (plan.actions.length > 0 && flag === undefined && !process.env.KNREDIS_SETUP_LOCKED && onPath('flock')) {
    // One set-up at a time per machine (npm run dev and npm test started together on a fresh
    // clone): this one runs again under the lock, and so finds what the other installed.
    mkdirSync(cache, { recursive: true });
    const again = (/** @type {string[]} */ wait) =>
      spawnSync(
        'flock',
        [...wait, '-E', '75', join(cache, 'setup.lock'), process.execPath, fileURLToPath(import.meta.url), purpose],
        { stdio: 'inherit', env: { ...process.env, KNREDIS_SETUP_LOCKED: '1' } },
      ).status;
    const code = again(['-n']);
    if (code !== 75) return code ?? 1;
    say('another set-up is running on this machine; waiting for it');
    return again([]) ?? 1;
  }
  for (const note of plan.notes) say(`note: ${note}`);
  if (plan.problems.length > 0) {
    say(`${commands[purpose]} needs what this set-up cannot install; nothing was changed:`);
    for (const problem of plan.problems) console.error(`  - ${problem}`);
    return 1;
  }
  say(`in place: ${plan.inPlace.join(', ')} (${elapsed()})`);
  for (const action of plan.actions) {
    say(`${action.step}: ${action.why}`);
    const from = performance.now();
    for (const argv of action.run) {
      say(`  $ ${argv.join(' ')}`);
      if (flag !== '--dry-run') await run(argv);
    }
    if (flag !== '--dry-run') say(`${action.step}: done in ${elapsed(from)}`);
  }
  if (plan.actions.length === 0 || flag === '--dry-run') return 0;
  // What was installed is checked again: a package that gave no command is a failure here.
  const after = planSetup(gatherFacts(purpose));
  if (after.actions.length > 0 || after.problems.length > 0) {
    say(
      `still missing after the set-up: ${[...after.actions.map((a) => `${a.step} (${a.why})`), ...after.problems].join('; ')}`,
    );
    return 1;
  }
  say(`ready in ${elapsed()}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (/** @type {Error} */ error) => {
    say(`${error.message}; stopped there (what finished stays, nothing half-done counts as installed)`);
    process.exit(1);
  },
);
