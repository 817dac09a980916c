// Where the restore sits in a pass: after the engine and the rest of the Kubernetes side, over
// the plan's status and outcome. A cluster without spec.restore is left as planned; one whose
// restore completed only carries status.restore; otherwise Ready waits for the restore, which
// runs one step a pass once the engine reports the cluster formed and settled.
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { engineReady, withRestore } from '../../shared/core/backup/restore-status.ts';
import { noted, requeueAfter, REQUEUE_AFTER_STEPS_MS, REQUEUE_USER_ACTION_MS } from '../../shared/core/outcome.ts';
import type { KubePlan } from '../../shared/core/reconcile/plan-kube.ts';
import type { ObservedPod } from '../../shared/core/reconcile/observed.ts';
import { CLIENT_PORT } from '../../shared/core/resources/names.ts';
import type { BackupClient } from '../../shared/io/kube/backup-client.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import type { Recorder } from './events.ts';
import { runRestorePass } from './restore-pass.ts';
import type { TlsAccess } from './tls.ts';

export interface RestoreStepInput {
  readonly kube: KubeClient;
  readonly backups: BackupClient;
  readonly cluster: RedisCluster;
  readonly pods: readonly ObservedPod[];
  readonly password: string;
  readonly tls?: TlsAccess;
  readonly events: Recorder;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly now: number;
}

export async function withRestoreStep(plan: KubePlan, input: RestoreStepInput): Promise<KubePlan> {
  const { cluster } = input;
  const backupName = cluster.spec.restore?.backupName;
  if (!backupName || !plan.status) return plan;
  const now = new Date(input.now).toISOString();
  const previous = cluster.status?.restore;
  if (previous?.phase === 'Completed') return { ...plan, status: withRestore(plan.status, previous, now) };
  if (!engineReady(plan.status)) {
    const waiting = previous ?? { backupName, phase: 'Running' as const, message: 'waiting for the cluster to form' };
    return { ...plan, status: withRestore(plan.status, waiting, now) };
  }
  const seed = input.pods.find((p) => p.ready && p.ip);
  const pool = new NodePool({
    auth: { password: input.password },
    ...(input.tls ? { tls: input.tls.connection } : {}),
  });
  try {
    const restore = await runRestorePass({
      kube: input.kube,
      backups: input.backups,
      cluster,
      pool,
      seed: { ip: seed?.ip ?? '', port: CLIENT_PORT },
      events: input.events,
      log: input.log,
      signal: input.signal,
    });
    const status = withRestore(plan.status, restore, now);
    const summary = `restore ${restore.phase}: ${restore.message ?? ''}`;
    if (restore.phase === 'Completed') return { ...plan, status, outcome: noted(plan.outcome, { summary }) };
    const wait = restore.phase === 'Failed' ? REQUEUE_USER_ACTION_MS : REQUEUE_AFTER_STEPS_MS;
    return { ...plan, status, outcome: noted(requeueAfter(wait), { summary }) };
  } finally {
    await pool.close();
  }
}
