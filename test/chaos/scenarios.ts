// The chaos scenarios of the safety issue, in its order, as data run by test/chaos/chaos.test.ts
// (which asserts) and `npm run bench -- chaos` (which tabulates). Small clusters and modest key
// counts keep the whole suite within minutes; fault durations are the only fixed times.
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { restartComponent } from '../../infra/local/restart.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { fullShape } from '../e2e/observe.ts';
import { keySlot } from '../../shared/core/cluster/slots.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { SETTLE_WITHIN_MS, type Scenario, type ScenarioContext } from './support/scenario.ts';
import { workerLogs } from './support/chaos-stack.ts';
import { open, stat } from 'node:fs/promises';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const base = { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' } };
/** Keys enough that a migration takes a while (a fault lands in its middle). */
const preloadKeys = Array.from({ length: 20_000 }, (_, i) => `pre:${i}`);
/** Longer than cluster-node-timeout (5 s) plus an election: the majority fails over. */
const PARTITION_MS = 20_000;
const QUEUE_OUTAGE_MS = 15_000;

async function shardsOf(ctx: ScenarioContext): Promise<NonNullable<NonNullable<RedisCluster['status']>['shards']>> {
  return (await ctx.view.get())?.status?.shards ?? [];
}

/** Scales to 4 masters and runs `fault` once a slot is open between two masters. */
function midScaleOut(
  fault: (ctx: ScenarioContext, ends: { source: string; target: string }) => Promise<void>,
): Scenario['act'] {
  return async (ctx) => {
    await ctx.patch({ masters: 4 });
    const ends = await ctx.midMigration();
    ctx.faultStarts();
    await fault(ctx, ends);
  };
}

/** Node -> zone labels, to put back after a scenario that changed them. */
async function zonesOfNodes(env: LocalEnvironment): Promise<Map<string, string>> {
  const core = env.kubeConfig().makeApiClient(CoreV1Api);
  const nodes = await core.listNode();
  return new Map(
    nodes.items.map((n) => [n.metadata?.name ?? '', n.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '']),
  );
}

async function labelZones(env: LocalEnvironment, zones: Map<string, string>): Promise<void> {
  for (const [node, zone] of zones)
    await env.kubectl(['label', 'node', node, `topology.kubernetes.io/zone=${zone}`, '--overwrite']);
}

/** The text a file has gained since `offset`. */
async function readFrom(path: string, offset: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await file.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}

/** Waits until `count` pods run and none is one of `before` (a roll went through every pod). */
async function everyPodReplaced(ctx: ScenarioContext, before: Set<string>, count: number): Promise<void> {
  await ctx.env.waitFor(
    async () => {
      const pods = await ctx.view.pods();
      return pods.length === count && pods.every((p) => !before.has(p.uid) && !p.terminating);
    },
    { what: 'every pod rolled', timeout: SETTLE_WITHIN_MS, interval: 500 },
  );
}

/** Hash tags whose slots lie spread over the slot space, one per 1/8th. */
const bigTags = Array.from({ length: 8 }, (_, i) => {
  for (let n = 0; ; n++) {
    const tag = `big${i}-${n}`;
    if (Math.floor(keySlot(tag) / 2048) === i) return tag;
  }
});
/** More keys in one slot than the mover lists per slot and round (32). */
const KEYS_PER_BIG_SLOT = 1_000;

async function slotOwners(ctx: ScenarioContext, slots: number[]): Promise<string[]> {
  const master = (await shardsOf(ctx))[0]?.master?.pod ?? '';
  const ranges = await ctx.onPod(
    master,
    async (r) => (await r.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][],
  );
  return slots.map((s) => ranges.find(([from, to]) => s >= from && s <= to)?.[2]?.[2] ?? 'none');
}

export const scenarios: Scenario[] = [
  {
    // The operator (and the client) see one master; the other five pods fail it over.
    name: 'partition-operator-with-minority',
    spec: base,
    planned: false,
    shape: { masters: 3, replicas: 1 },
    async act(ctx) {
      const pods = (await ctx.view.pods()).map((p) => p.name);
      const isolated = (await shardsOf(ctx))[0]?.master?.pod ?? '';
      const minority = ['127.0.0.1', `${ctx.namespace}/${isolated}`];
      const majority = pods.filter((p) => p !== isolated).map((p) => `${ctx.namespace}/${p}`);
      await ctx.env.kubelet.partition([minority, majority]);
      try {
        await sleep(PARTITION_MS);
      } finally {
        await ctx.env.kubelet.heal();
      }
    },
  },
  {
    name: 'source-master-killed-mid-migration',
    spec: base,
    planned: false,
    shape: { masters: 4, replicas: 1 },
    prepare: (ctx) => ctx.preload(preloadKeys),
    act: midScaleOut((ctx, { source }) => ctx.env.kubelet.crashPod(ctx.namespace, source)),
  },
  {
    name: 'target-master-killed-mid-migration',
    spec: base,
    planned: false,
    shape: { masters: 4, replicas: 1 },
    prepare: (ctx) => ctx.preload(preloadKeys),
    act: midScaleOut((ctx, { target }) => ctx.env.kubelet.crashPod(ctx.namespace, target)),
  },
  {
    // Redis is untouched: the scale-out is a planned operation and loses nothing.
    name: 'queue-redis-stopped-15s-mid-migration',
    spec: base,
    planned: true,
    shape: { masters: 4, replicas: 1 },
    prepare: (ctx) => ctx.preload(preloadKeys),
    act: midScaleOut(async (ctx) => {
      const pid = ctx.stack.pids()['queue-redis'];
      if (!pid) throw new Error('the queue Redis is not running');
      process.kill(pid, 'SIGSTOP');
      try {
        await sleep(QUEUE_OUTAGE_MS);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    }),
  },
  {
    // A version roll fails each master over to its replica before restarting it.
    name: 'worker-killed-mid-failover',
    spec: base,
    planned: true,
    shape: { masters: 3, replicas: 1 },
    async act(ctx) {
      const before = new Set((await ctx.view.pods()).map((p) => p.uid));
      const logs = workerLogs(ctx.stack);
      const sizes = await Promise.all(logs.map(async (f) => (await stat(f)).size));
      await ctx.patch({ version: '7.2' });
      const worker = await ctx.env.waitFor(
        async () => {
          const texts = await Promise.all(logs.map((f, i) => readFrom(f, sizes[i] ?? 0)));
          const at = texts.findIndex((t) =>
            t.split('\n').some((l) => l.includes('"step":"failover"') && l.includes(ctx.namespace)),
          );
          return at >= 0 ? { index: at } : undefined;
        },
        { what: 'a planned failover under way', timeout: SETTLE_WITHIN_MS, interval: 20 },
      );
      await ctx.stack.stopWorker(worker.index, 'SIGKILL');
      await ctx.stack.startWorker(worker.index);
      await everyPodReplaced(ctx, before, 6);
    },
  },
  {
    name: 'apiserver-restarted-mid-scale',
    spec: base,
    planned: true,
    shape: { masters: 4, replicas: 1 },
    prepare: (ctx) => ctx.preload(preloadKeys),
    act: midScaleOut(async (ctx) => {
      await restartComponent(ctx.env.name, 'kube-apiserver');
    }),
  },
  {
    // Its kubelet cut off from the API server, the node goes NotReady; Redis never stops.
    name: 'node-stops-reporting',
    spec: base,
    planned: true,
    shape: { masters: 3, replicas: 1 },
    async act(ctx) {
      const master = (await shardsOf(ctx))[0]?.master?.pod ?? '';
      const node = (await ctx.view.pods()).find((p) => p.name === master)?.node ?? '';
      const core = ctx.env.kubeConfig().makeApiClient(CoreV1Api);
      await ctx.env.kubelet.stopReporting(node);
      try {
        await ctx.env.waitFor(
          async () =>
            (await core.readNode({ name: node })).status?.conditions?.some(
              (c) => c.type === 'Ready' && c.status !== 'True',
            ),
          { what: `${node} NotReady`, timeout: 60_000 },
        );
        await sleep(PARTITION_MS);
      } finally {
        await ctx.env.kubelet.restoreNode(node);
      }
    },
  },
  {
    // Three nodes in zone-a, one in zone-b; then a scale-out places a fourth shard.
    name: 'uneven-zones',
    spec: base,
    planned: true,
    shape: { masters: 4, replicas: 1 },
    async setup({ env }) {
      const original = await zonesOfNodes(env);
      const nodes = [...original.keys()].sort();
      await labelZones(env, new Map(nodes.map((n, i) => [n, i < nodes.length - 1 ? 'zone-a' : 'zone-b'])));
      return () => labelZones(env, original);
    },
    async act(ctx) {
      await ctx.patch({ masters: 4 });
    },
    async verify(ctx, rc) {
      const pods = new Map((await ctx.view.pods()).map((p) => [p.name, p.node]));
      const zoneOf = await zonesOfNodes(ctx.env);
      const shards = (rc?.status?.shards ?? []).map((shard) => {
        const members = [shard.master?.pod ?? '', ...(shard.replicas ?? []).map((r) => r.pod)];
        const nodes = members.map((m) => pods.get(m) ?? '');
        return { members, nodes, zones: new Set(nodes.map((n) => zoneOf.get(n))) };
      });
      for (const { members, nodes } of shards)
        expect(new Set(nodes).size, `shard ${members.join(', ')} on nodes ${nodes.join(', ')}`).to.equal(
          members.length,
        );
      // The scheduler places the pods (the operator only prefers spreading them); the engine
      // picks the roles: as many shards span both zones as zone-b's pods allow.
      const inZoneB = [...pods.values()].filter((n) => zoneOf.get(n) === 'zone-b').length;
      const spanning = shards.filter((s) => s.zones.size > 1).length;
      const layout = shards.map((s) => `${s.members.join('+')}: ${[...s.zones].join('/')}`).join('; ');
      expect(spanning, `${inZoneB} pod(s) in zone-b; ${layout}`).to.equal(Math.min(shards.length, inZoneB));
    },
  },
  {
    name: 'roll-then-scale-in',
    spec: { ...base, masters: 4 },
    planned: true,
    shape: { masters: 3, replicas: 0 },
    async act(ctx) {
      const before = new Set((await ctx.view.pods()).map((p) => p.uid));
      await ctx.patch({ version: '7.2' });
      await everyPodReplaced(ctx, before, 8);
      // As a user would: the API refuses a scale-in until the roll has settled.
      await ctx.view.until('Ready with 4x1 after the roll', fullShape(4, 1), SETTLE_WITHIN_MS);
      await ctx.patch({ masters: 3 });
      await ctx.view.until(
        'Ready with 3x1',
        (rc) =>
          rc?.status?.shards?.length === 3 &&
          rc.status.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === rc.metadata.generation,
          ) === true,
        SETTLE_WITHIN_MS,
      );
      await ctx.patch({ replicasPerMaster: 0 });
    },
  },
  {
    name: 'slot-with-more-keys-than-a-round',
    spec: base,
    planned: true,
    shape: { masters: 4, replicas: 1 },
    async prepare(ctx) {
      await ctx.preload(bigTags.flatMap((tag) => Array.from({ length: KEYS_PER_BIG_SLOT }, (_, i) => `{${tag}}:${i}`)));
    },
    async act(ctx) {
      const slots = bigTags.map((t) => keySlot(t));
      const owners = await slotOwners(ctx, slots);
      await ctx.patch({ masters: 4 });
      await ctx.view.until(
        '4 shards',
        (rc) => rc?.status?.shards?.length === 4 && !rc.status.operation,
        SETTLE_WITHIN_MS,
      );
      const after = await slotOwners(ctx, slots);
      expect(
        after.filter((o, i) => o !== owners[i]),
        'a big slot moved',
      ).to.not.deep.equal([]);
    },
  },
];
