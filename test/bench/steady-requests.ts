// What one reconcile of a steady cluster costs the API server, from its audit log: the running
// worker (User-Agent knredis-reconcile) is made to reconcile `name` `passes` times by an
// annotation on the RedisCluster (an update event, no change to reconcile), one pass at a time.
// A pass is counted by its GET of the RedisCluster (a resync in the window counts too).
import { RECONCILE_USER_AGENT } from '../../functions/reconcile/index.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { isRead, isWatch, type AuditedRequest, type AuditLog } from './audit-log.ts';

export interface SteadyRequests {
  readonly passes: number;
  /** Per pass. */
  readonly reads: number;
  readonly writes: number;
  /** `verb resource` -> per pass (watches: started in the window, not per pass). */
  readonly byKind: Map<string, number>;
}

const byWorker = (r: AuditedRequest) => r.userAgent.startsWith(RECONCILE_USER_AGENT);
const isPass = (r: AuditedRequest) => byWorker(r) && r.verb === 'get' && r.resource === 'redisclusters';

export async function steadyRequests(
  env: LocalEnvironment,
  audit: AuditLog,
  namespace: string,
  name: string,
  passes: number,
): Promise<SteadyRequests> {
  const from = await audit.quiet(byWorker, 3000, 180_000);
  for (let i = 0; i < passes; i++) {
    const before = await audit.size();
    await env.kubectl([
      'annotate',
      'rediscluster',
      name,
      '-n',
      namespace,
      `bench.knredis.io/steady=${i}`,
      '--overwrite',
    ]);
    await env.waitFor(async () => (await audit.since(before)).some(isPass) || undefined, {
      what: `a reconcile of ${name} after annotation ${i}`,
      timeout: 60_000,
    });
    await audit.quiet(byWorker, 1500, 120_000);
  }
  const requests = (await audit.since(from)).filter(byWorker);
  const seen = requests.filter(isPass).length;
  if (seen === 0) throw new Error('no reconcile seen in the audit log');
  const byKind = new Map<string, number>();
  for (const r of requests) byKind.set(`${r.verb} ${r.resource}`, (byKind.get(`${r.verb} ${r.resource}`) ?? 0) + 1);
  const perPass = (n: number) => Math.round((n / seen) * 100) / 100;
  return {
    passes: seen,
    reads: perPass(requests.filter((r) => isRead(r) && !isWatch(r)).length),
    writes: perPass(requests.filter((r) => !isRead(r)).length),
    byKind: new Map([...byKind].map(([k, n]) => [k, k.startsWith('watch ') ? n : perPass(n)])),
  };
}
