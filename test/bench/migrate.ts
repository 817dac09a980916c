// `npm run bench -- migrate [--keys N] [--knredis-only]`: the same data (default 1,000,000 keys) moved from 3 to
// 6 masters by knredis' rebalance and by `redis-cli --cluster rebalance --cluster-use-empty-masters`
// (default pipeline, then --cluster-pipeline 1000), each on a fresh cluster of real redis-server
// processes with an ioredis Cluster client reading and writing in the background.
import { spawn } from 'node:child_process';
import type { BenchResult } from './table.ts';
import { ClusterHarness } from '../integration/cluster/cluster-harness.ts';
import { bulkLoad, ClientLoad } from '../integration/cluster/client-load.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { converge } from '../../shared/io/redis/converge.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { requireCommand } from '../support/prerequisites.ts';

type Runner = 'knredis' | 'redis-cli' | 'redis-cli --cluster-pipeline 1000';

async function runOnce(runner: Runner, suite: number, keys: number): Promise<{ ms: number; errors: number; ops: number; lost: number }> {
  const harness = new ClusterHarness({ suite, nodes: 3, zones: 1, nodeTimeoutMs: 5000 });
  const pool = new NodePool();
  let load: ClientLoad | undefined;
  try {
    await harness.addPods(3);
    await converge(pool, harness.desired(3, 0));
    await harness.addPods(3);
    const desired = harness.desired(6, 0);
    // Join the empty masters, stop before any slot moves.
    await converge(pool, desired, { until: (p) => p.steps.some((s) => s.kind === 'migrate') });
    await bulkLoad(await observe(desired.pods, pool), 'bench', keys);
    load = new ClientLoad([harness.pods[0]!.placement.address], 'bench', keys);
    load.start(2);
    const started = performance.now();
    if (runner === 'knredis') {
      await converge(pool, desired, { deadlineMs: 1_800_000 });
    } else {
      const a = harness.pods[0]!.placement.address;
      const args = ['--cluster', 'rebalance', `${a.ip}:${a.port}`, '--cluster-use-empty-masters', '--cluster-yes'];
      if (runner !== 'redis-cli') args.push('--cluster-pipeline', '1000');
      await new Promise<void>((resolve, reject) => {
        const child = spawn('redis-cli', args, { stdio: 'ignore' });
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redis-cli exited with ${code}`))));
      });
    }
    const ms = performance.now() - started;
    const report = await load.stop();
    const lost = (await load.verify()).length;
    return { ms, errors: report.errors, ops: report.ops, lost };
  } finally {
    await load?.close();
    await pool.close();
    await harness.stopAll();
  }
}

export default async function migrate(args: string[]): Promise<BenchResult> {
  requireCommand('redis-cli');
  const at = args.indexOf('--keys');
  const keys = at >= 0 ? Number(args[at + 1]) : 1_000_000;
  if (!Number.isInteger(keys) || keys < 1) throw new Error(`--keys needs a positive integer, got ${args[at + 1]}`);
  const runners: Runner[] = args.includes('--knredis-only') ? ['knredis'] : ['knredis', 'redis-cli', 'redis-cli --cluster-pipeline 1000'];
  const results: Record<string, { ms: number; errors: number; ops: number; lost: number }> = {};
  for (const [i, runner] of runners.entries()) results[runner] = await runOnce(runner, 60 + i, keys);
  const mine = results.knredis!;
  const rows = runners.map((r) => {
    const x = results[r]!;
    return [r, x.ms / 1000, Math.round(keys / (x.ms / 1000)), x.ms / mine.ms, x.ops, x.errors, x.lost];
  });
  return {
    tables: [{
      title: `3 -> 6 masters, ${keys} keys, background ioredis Cluster client (2 writers/readers); noisy shared 2-core machine`,
      columns: ['rebalance by', 'elapsed s', 'keys/s', 'time vs knredis', 'client ops', 'client errors', 'keys lost/stale'],
      rows,
    }],
    summary: Object.fromEntries(runners.map((r) => [r, { elapsedMs: Math.round(results[r]!.ms), keysPerSecond: Math.round(keys / (results[r]!.ms / 1000)), clientErrors: results[r]!.errors, lost: results[r]!.lost }])),
  };
}
