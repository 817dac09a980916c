// The Argo CD health check (infra/argocd/health.lua) run in Lua 5.1, the language of Argo CD's
// interpreter, on RedisClusters whose status comes from the reconciler's own computeStatus.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../../../infra/local/paths.ts';
import type { RedisCluster, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import { pausedStatus } from '../../../shared/core/reconcile/status.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { aTopology, pods, threeByOne } from '../../unit/cluster/builders.ts';
import { aPlan, aStatus, T0, wasReady } from '../../unit/reconcile/builders.ts';

const healthLua = join(repoRoot, 'infra/argocd/health.lua');

/** A JSON value as a Lua table constructor (Argo CD hands the script the object so). */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const bytes = [...Buffer.from(value, 'utf8')];
    return (
      '"' +
      bytes.map((b) => (b >= 32 && b < 127 && b !== 34 && b !== 92 ? String.fromCharCode(b) : `\\${b}`)).join('') +
      '"'
    );
  }
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const fields = Object.entries(value as Record<string, unknown>).map(([k, v]) => `[${toLua(k)}] = ${toLua(v)}`);
  return `{${fields.join(', ')}}`;
}

function health(cluster: Partial<RedisCluster>): { status: string; message: string } {
  const script = `obj = ${toLua(cluster)}\nlocal hs = dofile(${toLua(healthLua)})\nio.write(hs.status, "\\n", hs.message or "")`;
  const [status = '', message = ''] = execFileSync('lua5.1', ['-'], { input: script, encoding: 'utf8' }).split('\n');
  return { status, message };
}

const statusOf = aStatus;

const aCluster = (status: RedisClusterStatus | undefined, more: Partial<RedisCluster> = {}): Partial<RedisCluster> => ({
  apiVersion: 'cache.redis.io/v1beta1',
  kind: 'RedisCluster',
  metadata: { name: 'redis', namespace: 'default', generation: 3 },
  spec: { masters: 3, replicasPerMaster: 1 },
  ...(status ? { status } : {}),
  ...more,
});

describe('infra/argocd: the health check', () => {
  before(() => requireCommand('lua5.1', 'npm test installs Debian package lua5.1'));

  it('is the Lua merged into argocd-cm by the patch', () => {
    const patch = parse(readFileSync(join(repoRoot, 'infra/argocd/argocd-cm-patch.yaml'), 'utf8')) as {
      data: Record<string, string>;
    };
    expect(patch.data['resource.customizations.health.cache.redis.io_RedisCluster']).to.equal(
      readFileSync(healthLua, 'utf8'),
    );
  });

  const rows: [string, Partial<RedisCluster>, string, RegExp][] = [
    ['a new object the operator has not seen', aCluster(undefined), 'Progressing', /observe generation 3/],
    [
      'a cluster still forming',
      aCluster(
        statusOf({
          previous: undefined,
          topology: undefined,
          plan: undefined,
          activity: { type: 'Create', message: 'waiting for pods: 2/6 ready' },
        }),
      ),
      'Progressing',
      /waiting for pods: 2\/6 ready/,
    ],
    ['a converged cluster', aCluster(statusOf()), 'Healthy', /all 6 nodes ready, 16384 slots covered/],
    [
      'a scale-out migrating slots',
      aCluster(statusOf({ plan: aPlan({ phase: 'migrating', message: 'moving slots: 1000 of 4096' }) })),
      'Progressing',
      /moving slots/,
    ],
    [
      'a cluster that lost a shard',
      aCluster(
        statusOf({
          topology: aTopology(
            pods(6),
            threeByOne.filter((n) => n.pod !== 2 && n.pod !== 4),
          ),
          plan: aPlan({
            problems: [{ code: 'ShardDown', message: 'shard 2 has no master and no replica to promote' }],
          }),
        }),
      ),
      'Degraded',
      /shard 2 has no master/,
    ],
    [
      'a spec newer than the status',
      aCluster(statusOf(), { metadata: { name: 'redis', namespace: 'default', generation: 4 } }),
      'Progressing',
      /observe generation 4/,
    ],
    [
      'a paused cluster',
      aCluster(pausedStatus(wasReady, 3, T0), { spec: { masters: 3, replicasPerMaster: 1, paused: true } }),
      'Suspended',
      /paused/,
    ],
    [
      'a cluster being deleted',
      aCluster(statusOf(), {
        metadata: { name: 'redis', namespace: 'default', generation: 3, deletionTimestamp: T0 },
      }),
      'Progressing',
      /Deleting/,
    ],
  ];
  for (const [what, cluster, status, message] of rows) {
    it(`says ${status} for ${what}`, () => {
      const hs = health(cluster);
      expect(hs.status, JSON.stringify(cluster.status?.conditions)).to.equal(status);
      expect(hs.message).to.match(message);
    });
  }

  it('carries any text of a message through intact', () => {
    const status = statusOf({ error: 'quote " backslash \\ newline\nunicode é' });
    expect(health(aCluster(status)).message).to.contain('quote " backslash \\');
  });
});
