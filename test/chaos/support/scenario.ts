// One chaos scenario, run the same way by the test and the bench: a RedisCluster of its own
// in its own namespace, Ready; the acked writer running against it; the fault (or planned
// operation) and its healing; then Ready with the asked shape, every acknowledged write read
// back, and the workers' logs checked for overlapping runs of the cluster's key.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { ClusterView, fullShape } from '../../e2e/observe.ts';
import { checkAckLog } from './ack-log.ts';
import { AckedWriter } from './acked-writer.ts';
import { workerLogs, type ChaosStack } from './chaos-stack.ts';
import { overlappingRuns } from './run-overlap.ts';

export interface Shape {
  readonly masters: number;
  readonly replicas: number;
}

export interface ScenarioContext extends ChaosStack {
  readonly namespace: string;
  readonly view: ClusterView;
  readonly password: string;
  kubectl(...args: string[]): Promise<string>;
  /** Merge-patches the RedisCluster's spec. */
  patch(spec: object): Promise<void>;
  /** The fault starts now (by default: when act starts). Writes acknowledged before must survive. */
  faultStarts(): void;
  /** Waits until a slot is open (migrating) between two masters; names the pods at both ends. */
  midMigration(): Promise<{ source: string; target: string }>;
  /** SETs n keys (key = value) straight away and logs them as acknowledged writes. */
  preload(keys: string[]): Promise<void>;
  /** Runs a Redis command on one pod. */
  onPod<T>(pod: string, fn: (redis: Redis) => Promise<T>): Promise<T>;
}

export interface Scenario {
  readonly name: string;
  readonly spec: object;
  /** A planned operation (scale, roll, planned failover): no acknowledged write may be lost at all. */
  readonly planned: boolean;
  readonly shape: Shape;
  /** Before the cluster is created (node labels...); returns what undoes it. */
  readonly setup?: (shared: ChaosStack) => Promise<() => Promise<void>>;
  /** Before the clock starts (a preload). */
  readonly prepare?: (ctx: ScenarioContext) => Promise<void>;
  /** The fault or operation, and its healing; the cluster must then reach `shape`. */
  readonly act: (ctx: ScenarioContext) => Promise<void>;
  /** More checks once Ready (placement, that the scenario did what it says). */
  readonly verify?: (ctx: ScenarioContext, rc: RedisCluster | undefined) => Promise<void>;
}

export interface ScenarioResult {
  readonly name: string;
  readonly ready: boolean;
  readonly secondsToReady: number | null;
  readonly lostAcked: number;
  readonly lostAckedWithWait: number;
  readonly lostBeforeFault: number;
  readonly acked: number;
  readonly clientErrors: number;
  readonly overlappingRuns: number;
  /** The scenario's own check of the Ready cluster passed (or it has none). */
  readonly verified: boolean;
  /** The client wrote again once the cluster was Ready (a client that stopped proves nothing). */
  readonly writesAfterReady: boolean;
  /** Why the client process ended before it was stopped, if it did. */
  readonly writerDied?: string;
  /** What went wrong, for people: the first error, lost keys, overlaps. */
  readonly notes: string[];
}

const CLUSTER = 'c';
/** A bound, not an expectation: these small clusters settle in well under a minute when all is
 * well; a scenario the operator cannot finish fails after this instead of holding the suite. */
export const SETTLE_WITHIN_MS = 240_000;
const WRITES_PER_SECOND = 50;

export async function runScenario(shared: ChaosStack, scenario: Scenario): Promise<ScenarioResult> {
  const { env } = shared;
  const namespace = `chaos-${scenario.name}-${process.pid}`.slice(0, 63);
  const view = new ClusterView(env, namespace, CLUSTER);
  const kubectl = (...args: string[]) => env.kubectl([...args, '-n', namespace]);
  const notes: string[] = [];
  const logDir = join(shared.dir, 'acked');
  await mkdir(logDir, { recursive: true });
  const ackLog = join(logDir, `${scenario.name}.log`);
  let writer: AckedWriter | undefined;
  let follow: NodeJS.Timeout | undefined;
  let faultAt = Number.POSITIVE_INFINITY;
  let ready = false;
  let writesAfterReady = false;
  let verified = false;
  let writerDied: string | undefined;
  let secondsToReady: number | null = null;
  let report = { lostAcked: 0, lostAckedWithWait: 0, lostBeforeFault: 0, acked: 0, clientErrors: 0 };

  let teardown: (() => Promise<void>) | undefined;
  try {
    teardown = await scenario.setup?.(shared);
    // 1: the cluster, Ready.
    await env.kubectl(['create', 'namespace', namespace]);
    const manifest = {
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: CLUSTER, namespace },
      spec: scenario.spec,
    };
    await env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    const spec = scenario.spec as { masters?: number; replicasPerMaster?: number };
    await view.until(
      'Ready before the fault',
      fullShape(spec.masters ?? 3, spec.replicasPerMaster ?? 1),
      SETTLE_WITHIN_MS,
    );
    const password = await view.password();
    const seeds = async () =>
      (await view.pods()).filter((p) => p.ip && !p.terminating).map((p) => ({ ip: p.ip, port: 6379 }));
    const ctx: ScenarioContext = {
      ...shared,
      namespace,
      view,
      password,
      kubectl,
      patch: async (s) => {
        await kubectl('patch', 'rediscluster', CLUSTER, '--type=merge', '-p', JSON.stringify({ spec: s }));
      },
      faultStarts: () => {
        faultAt = Date.now();
      },
      midMigration: () => midMigration(view, password),
      preload: async (keys) => preload(keys, await seeds(), password, ackLog),
      onPod: async (pod, fn) => withNode((await view.pods()).find((p) => p.name === pod)?.ip ?? '', password, fn),
    };
    await scenario.prepare?.(ctx);
    // 2: the writer, following the live pods as a client seeded by a Service would.
    writer = await AckedWriter.start({
      seeds: await seeds(),
      password,
      log: ackLog,
      prefix: 'chaos',
      ratePerLane: WRITES_PER_SECOND,
    });
    follow = setInterval(() => {
      void seeds().then(
        (s) => {
          if (s.length > 0) writer?.seeds(s);
        },
        () => {},
      );
    }, 1_000);
    await env.waitFor(async () => (await countLines(ackLog)) >= WRITES_PER_SECOND, {
      what: 'the writer writing',
      timeout: 60_000,
    });
    // 3: the fault, then Ready with the asked shape.
    const started = Date.now();
    faultAt = started;
    await scenario.act(ctx);
    const rc = await view.until(
      `Ready with ${scenario.shape.masters}x${scenario.shape.replicas}`,
      fullShape(scenario.shape.masters, scenario.shape.replicas),
      SETTLE_WITHIN_MS,
    );
    secondsToReady = (Date.now() - started) / 1000;
    ready = true;
    await scenario.verify?.(ctx, rc);
    verified = true;
    // A few writes after Ready: the client works again.
    const lines = await countLines(ackLog);
    await env.waitFor(async () => (await countLines(ackLog)) >= lines + WRITES_PER_SECOND, {
      what: 'writes after Ready',
      timeout: 60_000,
    });
    writesAfterReady = true;
  } catch (error) {
    notes.push((error as Error).message);
  } finally {
    clearInterval(follow);
    writerDied = await writer?.stop();
    if (writerDied) notes.push(`the client process died before it was stopped: ${writerDied}`);
    await env.kubelet.heal().catch(() => undefined);
  }
  // 4: every acknowledged write, and the run log.
  try {
    const pods = await view.pods();
    const loss = await checkAckLog(
      ackLog,
      pods.filter((p) => p.ip).map((p) => ({ ip: p.ip, port: 6379 })),
      await view.password(),
      faultAt,
    );
    report = loss;
    if (loss.lostAcked + loss.lostAckedWithWait + loss.clientErrors > 0) notes.push(...loss.samples);
  } catch (error) {
    notes.push(`checking the writes failed: ${(error as Error).message}`);
  }
  const overlaps = await overlappingRuns(workerLogs(shared.stack), `${namespace}/${CLUSTER}`).catch(() => []);
  const overlapping = overlaps.length;
  for (const [a, b] of overlaps.slice(0, 3))
    notes.push(`runs ${a.id} (pid ${a.pid}) and ${b.id} (pid ${b.pid}) of one key overlapped`);
  await cleanUp(shared, namespace, view);
  await teardown?.().catch((error: Error) => notes.push(`undoing the set-up failed: ${error.message}`));
  return {
    name: scenario.name,
    ready,
    secondsToReady,
    ...pick(report),
    overlappingRuns: overlapping,
    verified,
    writesAfterReady,
    ...(writerDied ? { writerDied } : {}),
    notes,
  };
}

function pick(r: {
  lostAcked: number;
  lostAckedWithWait: number;
  lostBeforeFault: number;
  acked: number;
  clientErrors: number;
}) {
  return {
    lostAcked: r.lostAcked,
    lostAckedWithWait: r.lostAckedWithWait,
    lostBeforeFault: r.lostBeforeFault,
    acked: r.acked,
    clientErrors: r.clientErrors,
  };
}

async function countLines(path: string): Promise<number> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n').length - 1;
}

/** The RedisCluster goes while the operator runs (its finalizer), then the namespace. */
async function cleanUp(shared: ChaosStack, namespace: string, view: ClusterView): Promise<void> {
  await shared.env.kubectl(['delete', 'rediscluster', CLUSTER, '-n', namespace, '--wait=false']).catch(() => {});
  await view.until('deleted', (rc) => rc === undefined, 120_000).catch(() => {});
  await shared.env.kubectl(['delete', 'namespace', namespace, '--wait=false']).catch(() => {});
}

async function withNode<T>(ip: string, password: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  if (!ip) throw new Error('the pod has no address yet');
  const redis = new Redis({
    host: ip,
    port: 6379,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2_000,
    commandTimeout: 5_000,
  });
  redis.on('error', () => {
    /* the command's own rejection says it */
  });
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Polls every pod's CLUSTER NODES until one holds a slot migrating and one importing. */
async function midMigration(view: ClusterView, password: string): Promise<{ source: string; target: string }> {
  return view.env.waitFor(
    async () => {
      const pods = await view.pods();
      const ends = await Promise.all(
        pods.map(async (p) => {
          const myself = await withNode(
            p.ip,
            password,
            async (r) =>
              String(await r.call('CLUSTER', 'NODES'))
                .split('\n')
                .find((l) => l.includes('myself')) ?? '',
          ).catch(() => '');
          return { pod: p.name, migrating: /\[\d+->-/.test(myself), importing: /\[\d+-<-/.test(myself) };
        }),
      );
      const source = ends.find((e) => e.migrating)?.pod;
      const target = ends.find((e) => e.importing)?.pod;
      return source && target ? { source, target } : undefined;
    },
    { what: 'a slot migrating between two masters', timeout: 300_000, interval: 20 },
  );
}

/** SETs every key to its own name, then logs them all as acknowledged. */
async function preload(
  keys: string[],
  seeds: { ip: string; port: number }[],
  password: string,
  log: string,
): Promise<void> {
  const cluster = new Cluster(
    seeds.map((s) => ({ host: s.ip, port: s.port })),
    { enableAutoPipelining: true, redisOptions: { password } },
  );
  cluster.on('error', () => {});
  try {
    for (let i = 0; i < keys.length; i += 2_000) {
      const batch = keys.slice(i, i + 2_000);
      await Promise.all(batch.map((k) => cluster.set(k, k)));
      await appendFile(log, batch.map((k) => `${Date.now()} P ${k}\n`).join(''));
    }
  } finally {
    cluster.disconnect();
  }
}
