// @ts-check
// What `npm run dev` and `npm test` need on the machine, in one place: a package added here is
// installed by both commands' set-up. Plain JavaScript: it runs before node_modules exists.

/** @typedef {'dev' | 'test' | 'in-cluster'} Purpose  in-cluster: `npm run dev -- --in-cluster` (dev.ts runs it) */

/**
 * A Debian package, found on the machine by the command it provides.
 * @typedef {object} DebianPackage
 * @property {string} name      the Debian package
 * @property {string} command   what it provides; the package counts as present when this is on PATH
 * @property {string} why
 * @property {Purpose[]} for    which of the two commands need it
 */

/** @type {DebianPackage[]} */
export const debianPackages = [
  {
    name: 'redis-server',
    command: 'redis-server',
    why: 'the local pods and the queue run real redis-server processes',
    for: ['dev', 'test', 'in-cluster'],
  },
  {
    name: 'redis-tools',
    command: 'redis-cli',
    why: 'redis-cli: the commands npm run dev prints, the migration benchmark',
    for: ['dev', 'test', 'in-cluster'],
  },
  {
    name: 'openssl',
    command: 'openssl',
    why: 'certificates of the local control plane and the webhooks',
    for: ['dev', 'test', 'in-cluster'],
  },
  { name: 'chromium', command: 'chromium', why: 'the dashboard is tested in a real browser', for: ['test'] },
  { name: 'iptables', command: 'iptables', why: 'the chaos tests cut traffic on the loopback device', for: ['test'] },
  {
    name: 'lua5.1',
    command: 'lua5.1',
    why: "the Argo CD health check (infra/argocd) is tested in Lua 5.1, the language of Argo CD's interpreter",
    for: ['test'],
  },
  {
    name: 'prometheus',
    command: 'promtool',
    why: "the alerts of infra/monitoring are tested by Prometheus' own rule engine (promtool test rules)",
    for: ['test'],
  },
  {
    name: 'podman',
    command: 'podman',
    why: 'the knredis image is built (npm run image) and run as a container in the tests',
    for: ['test', 'in-cluster'],
  },
  {
    name: 'runc',
    command: 'runc',
    why: "podman's runtime for the image's containers (crun fails on cgroup-v1 hosts)",
    for: ['test', 'in-cluster'],
  },
  {
    name: 'mmdebstrap',
    command: 'mmdebstrap',
    why: "the image's base (node:20-bookworm-slim) is built from Debian's packages: no image registry is reached",
    for: ['test', 'in-cluster'],
  },
];

/** Go builds the control plane (infra/local/build-binaries.sh); only needed until it is cached. */
export const goNeeded = '1.26';

export const nodeHowTo = 'install it from https://nodejs.org/en/download (or `nvm install 20`)';
export const goHowTo = 'install it from https://go.dev/dl/ and put its bin directory on PATH';
