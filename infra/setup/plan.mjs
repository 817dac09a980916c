// @ts-check
// The set-up's decisions, from facts to actions (pure: setup.mjs gathers the facts and runs
// the actions). What the set-up cannot install (Node, Go, packages without apt-get or root) is
// a problem, and any problem means no action at all: nothing is left half-installed.
import { debianPackages, goHowTo, goNeeded, nodeHowTo } from './needs.mjs';

/** @typedef {import('./needs.mjs').Purpose} Purpose */

/**
 * @typedef {object} Facts
 * @property {Purpose} purpose
 * @property {string} node                the running Node's version ('20.20.2')
 * @property {string} nodeNeeded          package.json's engines.node ('>=20.19')
 * @property {'missing' | 'stale' | 'current'} nodeModules  stale: older than package-lock.json
 * @property {string} [nodeModulesLink]   where node_modules points, when it is a symlink
 * @property {Record<string, boolean>} commands  each needed package's command: on PATH?
 * @property {boolean} binaries           the control plane of versions.env is built
 * @property {boolean} [knative]          Knative's adapter and webhooks of versions.env are built (test only)
 * @property {boolean} exporter           redis_exporter of versions.env is built (the local pods' exporter sidecar)
 * @property {boolean} [seaweedfs]        SeaweedFS' weed of versions.env is built (the tests' S3 server; test only)
 * @property {string} [go]                `go env GOVERSION` ('go1.26.8'); absent without go
 * @property {boolean} aptGet
 * @property {boolean} root
 * @property {'none' | 'nopasswd' | 'password'} [sudo]  absent when not asked (root, nothing missing)
 * @property {boolean} interactive        a terminal where sudo can ask for a password
 */

/**
 * @typedef {object} Action
 * @property {'npm ci' | 'Debian packages' | 'control plane' | 'Knative' | 'redis_exporter' | 'SeaweedFS'} step
 * @property {string} why
 * @property {string[][]} run            commands, in order
 */

/** @typedef {{ problems: string[], notes: string[], actions: Action[], inPlace: string[] }} Plan */

export const buildScript = 'infra/local/build-binaries.sh';
export const knativeBuildScript = 'infra/local/build-knative.sh';
export const exporterBuildScript = 'infra/local/build-exporter.sh';
export const seaweedBuildScript = 'infra/local/build-seaweedfs.sh';

/** '20.19.1' or 'go1.26' -> [20, 19, 1]; missing parts are 0. @param {string} version */
export function versionParts(version) {
  const parts = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version) ?? [];
  return [1, 2, 3].map((i) => Number(parts[i] ?? 0));
}

/** Is `version` at least `minimum` (both as versionParts reads them)? @param {string} version @param {string} minimum */
export function atLeast(version, minimum) {
  const [a, b] = [versionParts(version), versionParts(minimum)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return /** @type {number} */ (a[i]) > /** @type {number} */ (b[i]);
  return true;
}

/** The Debian packages `purpose` needs. */
export function packagesFor(/** @type {Purpose} */ purpose) {
  return debianPackages.filter((p) => p.for.includes(purpose));
}

/** @param {Facts} facts @returns {Plan} */
export function planSetup(facts) {
  /** @type {Plan} */
  const plan = { problems: [], notes: [], actions: [], inPlace: [] };

  // 1: what only the user can install.
  if (!atLeast(facts.node, facts.nodeNeeded)) {
    plan.problems.push(`Node ${facts.nodeNeeded} is needed, this is ${facts.node}: ${nodeHowTo}.`);
  } else {
    plan.inPlace.push(`Node ${facts.node}`);
  }
  // The Knative e2e runs Knative's own binaries: `npm test` builds them, `npm run dev` does not.
  const knativeMissing = facts.purpose === 'test' && facts.knative === false;
  const seaweedMissing = facts.purpose === 'test' && facts.seaweedfs === false;
  const toBuild = [
    ...(facts.binaries ? [] : ['the control plane (etcd, kube-apiserver, ...)']),
    ...(knativeMissing ? ["Knative's ApiServerSource adapter and webhooks"] : []),
    ...(facts.exporter ? [] : ["redis_exporter (the local pods' exporter sidecar)"]),
    ...(seaweedMissing ? ['SeaweedFS (the S3 server of the backup tests)'] : []),
  ];
  if (toBuild.length > 0 && !(facts.go && atLeast(facts.go, goNeeded))) {
    const have = facts.go ? `this is ${facts.go}` : 'go is not on PATH';
    const what = toBuild.join(' and ');
    plan.problems.push(`Go >= ${goNeeded} is needed once, to build ${what} from source; ${have}: ${goHowTo}.`);
  }

  // 2: node_modules. A linked node_modules belongs to another checkout: npm ci would empty it.
  if (facts.nodeModules === 'current') {
    plan.inPlace.push('node_modules');
  } else if (facts.nodeModulesLink !== undefined) {
    plan.notes.push(
      `node_modules links to ${facts.nodeModulesLink}, which is ${facts.nodeModules === 'missing' ? 'missing' : 'older than package-lock.json'}; a shared directory is not reinstalled here (run npm ci where it lives).`,
    );
  } else {
    const why =
      facts.nodeModules === 'missing' ? 'node_modules is missing' : 'package-lock.json is newer than node_modules';
    plan.actions.push({ step: 'npm ci', why, run: [['npm', 'ci', '--no-audit', '--no-fund']] });
  }

  // 3: Debian packages, with apt-get as root or through sudo.
  const needed = packagesFor(facts.purpose);
  const missing = needed.filter((p) => !facts.commands[p.command]);
  plan.inPlace.push(...needed.filter((p) => facts.commands[p.command]).map((p) => p.command));
  if (missing.length > 0) {
    const names = missing.map((p) => p.name);
    const list = missing.map((p) => `${p.name} (${p.why})`).join('; ');
    const aptRun = (/** @type {string[]} */ prefix) => [
      [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-q'],
      [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', ...names],
    ];
    if (!facts.aptGet) {
      plan.problems.push(`missing: ${list}. This machine has no apt-get: install them with its package manager.`);
    } else if (facts.root) {
      plan.actions.push({ step: 'Debian packages', why: `missing: ${list}`, run: aptRun([]) });
    } else if (facts.sudo === 'nopasswd') {
      plan.actions.push({
        step: 'Debian packages',
        why: `missing: ${list}; through sudo`,
        run: aptRun(['sudo', '-n']),
      });
    } else if (facts.sudo === 'password' && facts.interactive) {
      plan.actions.push({
        step: 'Debian packages',
        why: `missing: ${list}; through sudo (it asks for your password)`,
        run: aptRun(['sudo']),
      });
    } else {
      const why =
        facts.sudo === 'password'
          ? 'sudo needs a password and there is no terminal to ask for it'
          : 'not root, and no sudo';
      plan.problems.push(
        `missing: ${list}. Installing them needs root (${why}): run as root\n    apt-get update && apt-get install -y ${names.join(' ')}`,
      );
    }
  }

  // 4: the control plane, built once per versions.env (waits when another build runs).
  if (facts.binaries) {
    plan.inPlace.push('control plane');
  } else {
    plan.actions.push({
      step: 'control plane',
      why: `not built yet for infra/local/versions.env: go build, once (about 26 minutes on 2 cores), then cached`,
      run: [['bash', buildScript]],
    });
  }

  // 5: Knative's adapter and webhooks (test only), built once per KNATIVE_VERSION.
  if (facts.purpose === 'test') {
    if (facts.knative) {
      plan.inPlace.push('Knative');
    } else {
      plan.actions.push({
        step: 'Knative',
        why: `not built yet for infra/local/versions.env: go build of Knative's ApiServerSource adapter and webhooks, once (about 15 minutes on 2 cores), then cached`,
        run: [['bash', knativeBuildScript]],
      });
    }
  }

  // 6: redis_exporter, which the local kubelet runs for the exporter sidecar's image.
  if (facts.exporter) {
    plan.inPlace.push('redis_exporter');
  } else {
    plan.actions.push({
      step: 'redis_exporter',
      why: `not built yet for infra/local/versions.env: go build of the exporter sidecar's binary, once (about 2 minutes on 2 cores), then cached`,
      run: [['bash', exporterBuildScript]],
    });
  }

  // 7: SeaweedFS (test only), the S3-compatible server the backup tests store into.
  if (facts.purpose === 'test') {
    if (facts.seaweedfs) {
      plan.inPlace.push('SeaweedFS');
    } else {
      plan.actions.push({
        step: 'SeaweedFS',
        why: `not built yet for infra/local/versions.env: go build of SeaweedFS' weed (the tests' S3 server), once (about 12 minutes on 2 cores), then cached`,
        run: [['bash', seaweedBuildScript]],
      });
    }
  }

  if (plan.problems.length > 0) plan.actions = [];
  return plan;
}
