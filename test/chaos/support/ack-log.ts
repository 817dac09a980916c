// Reads the acked writer's log and checks every acknowledged write against the cluster: what a
// client was told is stored must be readable afterwards. Writes acknowledged before the fault
// are counted apart: those must survive any fault.
import { readFile } from 'node:fs/promises';
import { Cluster } from 'ioredis';

export interface AckedWrite {
  readonly at: number;
  readonly key: string;
  readonly waited: boolean;
}

export interface AckLog {
  readonly writes: AckedWrite[];
  readonly errors: number;
  readonly errorSamples: string[];
}

export interface LossReport {
  readonly acked: number;
  readonly ackedWithWait: number;
  /** Plain writes (no WAIT, or WAIT reached no replica) acknowledged and then missing. */
  readonly lostAcked: number;
  /** Writes whose WAIT 1 answered >= 1, missing. */
  readonly lostAckedWithWait: number;
  /** Of the lost ones, those acknowledged before the fault started. */
  readonly lostBeforeFault: number;
  readonly clientErrors: number;
  readonly samples: string[];
}

export function parseAckLog(text: string): AckLog {
  const writes: AckedWrite[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  for (const line of text.split('\n')) {
    const [at = '', kind = '', ...rest] = line.split(' ');
    if (kind === 'P' || kind === 'W') writes.push({ at: Number(at), key: rest.join(' '), waited: kind === 'W' });
    else if (kind === 'E') {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(rest.join(' '));
    }
  }
  return { writes, errors, errorSamples };
}

/** Which writes are lost, given the set of keys read back with their own value (pure). */
export function losses(log: AckLog, present: ReadonlySet<string>, faultAt: number): LossReport {
  const lost = log.writes.filter((w) => !present.has(w.key));
  return {
    acked: log.writes.filter((w) => !w.waited).length,
    ackedWithWait: log.writes.filter((w) => w.waited).length,
    lostAcked: lost.filter((w) => !w.waited).length,
    lostAckedWithWait: lost.filter((w) => w.waited).length,
    lostBeforeFault: lost.filter((w) => w.at < faultAt).length,
    clientErrors: log.errors,
    samples: [
      ...lost.slice(0, 5).map((w) => `lost ${w.waited ? 'W' : 'P'} ${w.key} acked at ${new Date(w.at).toISOString()}`),
      ...log.errorSamples,
    ],
  };
}

/** Reads every logged key back from the cluster; a key counts as present when it holds its own name. */
export async function checkAckLog(
  path: string,
  seeds: { ip: string; port: number }[],
  password: string | undefined,
  faultAt: number,
): Promise<LossReport> {
  const log = parseAckLog(await readFile(path, 'utf8'));
  const cluster = new Cluster(
    seeds.map((s) => ({ host: s.ip, port: s.port })),
    {
      enableAutoPipelining: true,
      redisOptions: { ...(password ? { password } : {}), commandTimeout: 10_000 },
    },
  );
  cluster.on('error', () => {});
  const present = new Set<string>();
  try {
    for (let i = 0; i < log.writes.length; i += 1000) {
      const batch = log.writes.slice(i, i + 1000);
      const values = await Promise.all(batch.map((w) => cluster.get(w.key)));
      batch.forEach((w, j) => {
        if (values[j] === w.key) present.add(w.key);
      });
    }
  } finally {
    cluster.disconnect();
  }
  return losses(log, present, faultAt);
}
