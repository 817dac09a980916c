// The benchmarks' background client in a process of its own, so neither the migrator nor the
// client slows the other's event loop and the client's latencies are what an application would
// see. The parent starts it, marks phases ("baseline", "migration"), then stops it: per phase,
// ops, errors and latency percentiles of every command (redirects and retries included).
// Run as a script, this file is the child; imported, it gives the parent's handle.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ClientLoad } from '../integration/cluster/client-load.ts';
import { LatencyHistogram, type LatencySummary } from './latency-histogram.ts';

export interface LoadSpec {
  readonly seeds: { ip: string; port: number }[];
  readonly prefix: string;
  readonly keys: number;
  readonly workers: number;
  /** Size of every value (bulkLoad's too); 0: short values. */
  readonly valueBytes?: number;
}

export interface PhaseReport extends LatencySummary {
  readonly name: string;
  readonly ms: number;
  readonly ops: number;
  readonly errors: number;
  readonly samples: string[];
}

type ToChild = { type: 'phase'; name: string } | { type: 'stop' } | { type: 'verify' };
type FromChild =
  { type: 'ready' } | { type: 'report'; phases: PhaseReport[] } | { type: 'verified'; lost: number; samples: string[] };

const self = fileURLToPath(import.meta.url);

/** Parent side: the child process and its messages. */
export class ClientLoadProcess {
  private readonly child: ChildProcess;
  private readonly inbox: FromChild[] = [];
  private waiting: (() => void) | undefined;
  private exited = false;

  private constructor(spec: LoadSpec) {
    this.child = fork(self, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: FromChild) => {
      this.inbox.push(m);
      this.waiting?.();
    });
    this.child.once('exit', () => {
      this.exited = true;
      this.waiting?.();
    });
    this.child.on('error', () => {
      /* a send to an exited child: receive() reports the exit */
    });
  }

  static async start(spec: LoadSpec): Promise<ClientLoadProcess> {
    const p = new ClientLoadProcess(spec);
    await p.receive('ready');
    return p;
  }

  /** Ends the current phase and starts the next one. */
  phase(name: string): void {
    this.send({ type: 'phase', name });
  }

  async stop(): Promise<PhaseReport[]> {
    this.send({ type: 'stop' });
    return (await this.receive('report')).phases;
  }

  /** How many keys do not hold the last value written (missing or stale); the child exits after. */
  async verify(): Promise<{ lost: number; samples: string[] }> {
    this.send({ type: 'verify' });
    const { lost, samples } = await this.receive('verified');
    return { lost, samples };
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private send(message: ToChild): void {
    if (!this.exited)
      this.child.send(message, () => {
        /* see 'error' */
      });
  }

  private async receive<T extends FromChild['type']>(type: T): Promise<Extract<FromChild, { type: T }>> {
    for (;;) {
      const at = this.inbox.findIndex((m) => m.type === type);
      if (at >= 0) return this.inbox.splice(at, 1)[0] as Extract<FromChild, { type: T }>;
      if (this.exited) throw new Error(`client load process exited before sending ${type}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = undefined;
    }
  }
}

/** Child side: runs the load and answers the parent. */
async function runChild(spec: LoadSpec): Promise<void> {
  const phases: PhaseReport[] = [];
  let current = { name: 'warm-up', started: performance.now(), histogram: new LatencyHistogram(), ops: 0, errors: 0 };
  const load = new ClientLoad(spec.seeds, spec.prefix, spec.keys, undefined, (ms) =>
    current.histogram.record(ms),
  ).padValuesTo(spec.valueBytes ?? 0);
  const close = () => {
    const now = load.counts();
    phases.push({
      name: current.name,
      ms: performance.now() - current.started,
      ops: now.ops - current.ops,
      errors: now.errors - current.errors,
      samples: now.samples,
      ...current.histogram.summary(),
    });
    return now;
  };
  const reply = (m: FromChild) => process.send?.(m);
  process.on('disconnect', () => process.exit(1));
  process.on('message', (m: ToChild) => {
    void (async () => {
      if (m.type === 'phase') {
        const now = close();
        current = {
          name: m.name,
          started: performance.now(),
          histogram: new LatencyHistogram(),
          ops: now.ops,
          errors: now.errors,
        };
      } else if (m.type === 'stop') {
        await load.stop();
        close();
        reply({ type: 'report', phases: phases.filter((p) => p.name !== 'warm-up') });
      } else {
        const wrong = await load.verify();
        await load.close();
        reply({ type: 'verified', lost: wrong.length, samples: wrong.slice(0, 5) });
        process.disconnect();
      }
    })().catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
  load.start(spec.workers);
  reply({ type: 'ready' });
}

if (process.argv[1] === self) await runChild(JSON.parse(process.argv[2] ?? '{}') as LoadSpec);
