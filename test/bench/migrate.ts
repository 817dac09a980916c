// `npm run bench -- migrate [--keys N] [--value-bytes N] [--runners knredis,redis-cli,redis-cli-1000] [--knredis-only]
//   [--workers N] [--baseline-s N] [--batch-keys N] [--migrate-depth N] [--chunk-slots N] [--parallel-moves N]
//   [--parallel-key-bytes N] [--busy-percent N]`:
// the same data (default 1,000,000 keys) moved from 3 to 6 masters by knredis' rebalance and by
// `redis-cli --cluster rebalance --cluster-use-empty-masters` (default pipeline, then
// --cluster-pipeline 1000), each on a fresh cluster of real redis-server processes. An ioredis
// Cluster client runs in a process of its own: first alone (baseline), then during the
// migration; per phase its ops/s, errors and command latency p50/p99/max. The migrator knobs
// override knredis' defaults, to try settings.
import { spawn } from 'node:child_process';
import type { BenchResult } from './table.ts';
import { ClientLoadProcess, type PhaseReport } from './client-load-process.ts';
import { ClusterHarness } from '../integration/cluster/cluster-harness.ts';
import { bulkLoad } from '../integration/cluster/client-load.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { converge } from '../support/converge.ts';
import type { MigrateOptions } from '../../shared/io/redis/migrate-slots.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { requireCommand } from '../support/prerequisites.ts';

type Runner = 'knredis' | 'redis-cli' | 'redis-cli --cluster-pipeline 1000';

interface Settings {
  keys: number;
  valueBytes: number;
  workers: number;
  baselineMs: number;
  migrate: MigrateOptions;
}

interface Run {
  ms: number;
  baseline: PhaseReport;
  during: PhaseReport;
  lost: number;
  lostSamples: string[];
}

async function runOnce(runner: Runner, suite: number, s: Settings): Promise<Run> {
  const harness = new ClusterHarness({ suite, nodes: 3, zones: 1, nodeTimeoutMs: 5000 });
  const pool = new NodePool();
  let load: ClientLoadProcess | undefined;
  try {
    await harness.addPods(3);
    await converge(pool, harness.desired(3, 0));
    await harness.addPods(3);
    const desired = harness.desired(6, 0);
    // Join the empty masters, stop before any slot moves.
    await converge(pool, desired, { until: (p) => p.steps.some((step) => step.kind === 'migrate') });
    await bulkLoad(await observe(desired.pods, pool), 'bench', s.keys, undefined, undefined, s.valueBytes);
    load = await ClientLoadProcess.start({
      seeds: [harness.pods[0]!.placement.address],
      prefix: 'bench',
      keys: s.keys,
      workers: s.workers,
      valueBytes: s.valueBytes,
    });
    await sleep(1000); // connected, slots map loaded
    load.phase('baseline');
    await sleep(s.baselineMs);
    load.phase('migration');
    const started = performance.now();
    if (runner === 'knredis') {
      await converge(pool, desired, { deadlineMs: 1_800_000, migrate: s.migrate });
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
    const [baseline, during] = (await load.stop()) as [PhaseReport, PhaseReport];
    const verified = await load.verify();
    return { ms, baseline, during, lost: verified.lost, lostSamples: verified.samples };
  } finally {
    load?.kill();
    await pool.close();
    await harness.stopAll();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function flag(args: string[], name: string): number | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const n = Number(args[at + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer, got ${args[at + 1]}`);
  return n;
}

function percent(args: string[], name: string): number | undefined {
  const n = flag(args, name);
  return n === undefined ? undefined : n / 100;
}

const clientCells = (p: PhaseReport) => [Math.round(p.ops / (p.ms / 1000)), p.p50Ms, p.p99Ms, p.maxMs, p.errors];

export default async function migrate(args: string[]): Promise<BenchResult> {
  requireCommand('redis-cli');
  const knobs = {
    batchKeys: flag(args, '--batch-keys'),
    migrateDepth: flag(args, '--migrate-depth'),
    chunkSlots: flag(args, '--chunk-slots'),
    parallelMoves: flag(args, '--parallel-moves'),
    parallelKeyBytes: flag(args, '--parallel-key-bytes'),
    busyShare: percent(args, '--busy-percent'),
  };
  const s: Settings = {
    keys: flag(args, '--keys') ?? 1_000_000,
    valueBytes: flag(args, '--value-bytes') ?? 0,
    workers: flag(args, '--workers') ?? 2,
    baselineMs: (flag(args, '--baseline-s') ?? 5) * 1000,
    migrate: Object.fromEntries(Object.entries(knobs).filter(([, v]) => v !== undefined)),
  };
  const names: Record<string, Runner> = {
    knredis: 'knredis',
    'redis-cli': 'redis-cli',
    'redis-cli-1000': 'redis-cli --cluster-pipeline 1000',
  };
  const list = args.includes('--knredis-only')
    ? 'knredis'
    : args.includes('--runners')
      ? args[args.indexOf('--runners') + 1]
      : Object.keys(names).join(',');
  const runners = (list ?? '').split(',').map((n) => {
    const runner = names[n];
    if (!runner) throw new Error(`--runners takes a comma-separated list of: ${Object.keys(names).join(', ')}`);
    return runner;
  });
  const results: Record<string, Run> = {};
  for (const [i, runner] of runners.entries()) results[runner] = await runOnce(runner, 60 + i, s);
  const mine = results[runners[0]!]!;
  const knobText =
    Object.entries(s.migrate)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ') || 'defaults';
  return {
    tables: [
      {
        title: `3 -> 6 masters, ${s.keys} keys${s.valueBytes ? ` of ${s.valueBytes} bytes` : ''}; knredis: ${knobText}; ioredis Cluster client in its own process (${s.workers} workers), latency per command; shared 2-core machine`,
        columns: [
          'rebalance by',
          'elapsed s',
          'keys/s',
          `time vs ${runners[0]!}`,
          'client ops/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'client errors',
          'keys lost/stale',
        ],
        rows: [
          [`client alone (before ${runners[0]!} run)`, '', '', '', ...clientCells(mine.baseline), ''],
          ...runners.map((r) => {
            const x = results[r]!;
            return [
              r,
              x.ms / 1000,
              Math.round(s.keys / (x.ms / 1000)),
              x.ms / mine.ms,
              ...clientCells(x.during),
              x.lost,
            ];
          }),
        ],
      },
      {
        title: 'client alone on each fresh cluster, just before its migration (machine noise)',
        columns: ['cluster of', 'client ops/s', 'p50 ms', 'p99 ms', 'max ms', 'client errors'],
        rows: runners.map((r) => [r, ...clientCells(results[r]!.baseline)]),
      },
    ],
    summary: {
      keys: s.keys,
      valueBytes: s.valueBytes,
      knobs: s.migrate,
      ...Object.fromEntries(
        runners.map((r) => {
          const x = results[r]!;
          const phase = (p: PhaseReport) => ({
            opsPerSecond: Math.round(p.ops / (p.ms / 1000)),
            p50Ms: p.p50Ms,
            p99Ms: p.p99Ms,
            maxMs: p.maxMs,
            errors: p.errors,
            errorSamples: p.samples,
          });
          return [
            r,
            {
              elapsedMs: Math.round(x.ms),
              keysPerSecond: Math.round(s.keys / (x.ms / 1000)),
              baseline: phase(x.baseline),
              migration: phase(x.during),
              lost: x.lost,
              lostSamples: x.lostSamples,
            },
          ];
        }),
      ),
    },
  };
}
