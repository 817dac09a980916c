// Kubernetes Events about a RedisCluster, aggregated like client-go's recorder: one Event
// object per (reason, message), its count bumped on repeats. Messages come from steps and typed
// errors, which never carry a password.
import { hashOf } from '../../shared/core/resources/meta.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';

export interface Recorder {
  normal(reason: string, message: string): Promise<void>;
  warning(reason: string, message: string): Promise<void>;
}

/** What an Event is about: a RedisCluster, or one of its backups. */
export type InvolvedObject = Pick<RedisCluster, 'metadata'> & { readonly apiVersion: string; readonly kind: string };

export function recorder(
  kube: KubeClient,
  cluster: InvolvedObject,
  log: Logger,
  clock: () => number = Date.now,
  /** The run's signal; none for the error policy, which reports a run the signal stopped. */
  signal?: AbortSignal,
): Recorder {
  const { name = '', namespace = '', uid = '' } = cluster.metadata;
  const emit = async (type: 'Normal' | 'Warning', reason: string, message: string) => {
    const now = new Date(clock()).toISOString();
    const text = message.slice(0, 1024);
    try {
      await kube.event(
        {
          name: `${name}.${hashOf({ uid, type, reason, text })}`,
          namespace,
          body: {
            involvedObject: { apiVersion: cluster.apiVersion, kind: cluster.kind, name, namespace, uid },
            type,
            reason,
            message: text,
            count: 1,
            firstTimestamp: now,
            lastTimestamp: now,
            source: { component: 'knredis' },
            reportingComponent: 'knredis',
            reportingInstance: 'knredis',
          },
        },
        signal,
      );
    } catch (error) {
      // An Event is a courtesy; failing to record one never fails the reconcile.
      log.warn({ err: (error as Error).message, reason }, 'could not record event');
    }
  };
  return {
    normal: (reason, message) => emit('Normal', reason, message),
    warning: (reason, message) => emit('Warning', reason, message),
  };
}
