// The chaos suite's client: an ioredis Cluster in a process of its own, writing unique keys at
// a steady rate on two lanes: plain SETs, and SETs followed by WAIT 1 on the same connection.
// Every acknowledged write is appended to a log file the moment its reply arrives (one write(2)
// per line, so a SIGKILL of either process loses no line):
//   <ms> P <key>        SET acknowledged (WAIT, when sent, reached no replica)
//   <ms> W <key>        SET acknowledged and WAIT 1 answered >= 1
//   <ms> E <message>    a command failed (a client error)
// The value of each key is the key itself, so a read shows whether that write is there.
// Run as a script, this file is the child; imported, it gives the parent's handle.
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Cluster } from 'ioredis';

export interface WriterSpec {
  readonly seeds: { ip: string; port: number }[];
  readonly password?: string;
  /** The acknowledged-write log (appended). */
  readonly log: string;
  readonly prefix: string;
  /** Writes per second on each lane. */
  readonly ratePerLane: number;
}

type ToChild = { type: 'seeds'; seeds: { ip: string; port: number }[] } | { type: 'stop' };
type FromChild = { type: 'ready' } | { type: 'stopped' };

const self = fileURLToPath(import.meta.url);
/** A command that gets no reply within this is an error, not a hang (a partition drops packets). */
const commandTimeoutMs = 3_000;
const waitTimeoutMs = 1_000;

/** Parent side. */
export class AckedWriter {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private stopping = false;
  /** How the child ended, when it did before stop() asked it to. */
  private died: string | undefined;

  private constructor(readonly spec: WriterSpec) {
    this.child = fork(self, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        if (!this.stopping) this.died = signal ? `signal ${signal}` : `exit code ${code}`;
        resolve();
      }),
    );
    this.child.on('error', () => {
      /* a send to an exited child */
    });
  }

  static async start(spec: WriterSpec): Promise<AckedWriter> {
    const writer = new AckedWriter(spec);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the acked writer found no cluster within 60 s')), 60_000);
    });
    try {
      await Promise.race([writer.next('ready'), late]);
    } catch (error) {
      writer.kill();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return writer;
  }

  /** New seeds (the live pods' addresses): ioredis reconnects to its seeds once it lost every node. */
  seeds(seeds: { ip: string; port: number }[]): void {
    if (this.child.connected) this.child.send({ type: 'seeds', seeds } satisfies ToChild);
  }

  /**
   * Stops writing; resolves once the child has exited (every line is in the log by then), with
   * how it ended if it had died before: its log then stops early, and the run proves little.
   */
  async stop(): Promise<string | undefined> {
    this.stopping = true;
    if (this.child.connected) {
      this.child.send({ type: 'stop' } satisfies ToChild);
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, commandTimeoutMs * 3))]);
    }
    this.kill();
    await this.exited;
    return this.died;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private next(type: FromChild['type']): Promise<void> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: FromChild) => {
        if (m.type === type) {
          this.child.off('message', onMessage);
          resolve();
        }
      };
      this.child.on('message', onMessage);
      void this.exited.then(() => reject(new Error(`the acked writer exited before it was ${type}`)));
    });
  }
}

/** Child side. */
async function runChild(spec: WriterSpec): Promise<void> {
  const fd = openSync(spec.log, 'a');
  const line = (kind: 'P' | 'W' | 'E', text: string) =>
    writeSync(fd, `${Date.now()} ${kind} ${text.replace(/\s+/g, ' ')}\n`);
  const cluster = new Cluster(
    spec.seeds.map((s) => ({ host: s.ip, port: s.port })),
    {
      redisOptions: {
        ...(spec.password ? { password: spec.password } : {}),
        commandTimeout: commandTimeoutMs,
        maxRetriesPerRequest: 2,
        connectTimeout: 2_000,
      },
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      slotsRefreshTimeout: 2_000,
    },
  );
  cluster.on('error', () => {
    /* each failed command is logged */
  });
  // A command promise ioredis rejects where no caller awaits it (a pipeline's member when its
  // connection closes) is a failed command too: logged as one, never the client's end.
  process.on('unhandledRejection', (error) => line('E', `unawaited: ${(error as Error)?.message ?? String(error)}`));
  let stopping = false;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const lane = async (name: 'p' | 'w') => {
    const interval = 1000 / spec.ratePerLane;
    for (let n = 0; !stopping; n++) {
      const started = Date.now();
      const key = `${spec.prefix}:${name}:${n}`;
      try {
        if (name === 'p') {
          await cluster.set(key, key);
          line('P', key);
        } else {
          const replied = await setAndWait(cluster, key);
          line(replied >= 1 ? 'W' : 'P', key);
        }
      } catch (error) {
        line('E', `${key} ${(error as Error).message}`);
      }
      await sleep(Math.max(0, interval - (Date.now() - started)));
    }
  };
  process.on('disconnect', () => {
    stopping = true;
  });
  process.on('message', (m: ToChild) => {
    if (m.type === 'seeds')
      Reflect.set(
        cluster,
        'startupNodes',
        m.seeds.map((s) => ({ host: s.ip, port: s.port })),
      );
    else stopping = true;
  });
  await new Promise<void>((resolve) => cluster.once('ready', () => resolve()));
  process.send?.({ type: 'ready' } satisfies FromChild);
  await Promise.all([lane('p'), lane('w')]);
  closeSync(fd);
  cluster.disconnect();
  process.exit(0);
}

/** SET and WAIT 1 in one pipeline, on the key's master's connection. ioredis does not follow a
 * redirect of a pipeline whose other command (WAIT) succeeded, so this does, as an application
 * would: the SET of a redirected pipeline did not run. Resolves how many replicas WAIT counted. */
async function setAndWait(cluster: Cluster, key: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const replies = (await cluster.pipeline().set(key, key).wait(1, waitTimeoutMs).exec()) ?? [];
    const error = replies.find(([e]) => e)?.[0];
    if (!error) return Number(replies[1]?.[1]);
    if (attempt >= 3 || !/^(MOVED|ASK|TRYAGAIN) /.test(error.message)) throw error;
    await new Promise((r) => setTimeout(r, 100 * attempt));
  }
}

if (process.argv[1] === self) await runChild(JSON.parse(process.argv[2] ?? '{}') as WriterSpec);
