// What the environment holds once the API server answers: the default StorageClass `local`
// (provisioned by the local kubelet), and the kubelet's nodes becoming Ready.
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  StorageV1Api,
  type V1Node,
} from '@kubernetes/client-node';
import { tail } from './readiness.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function adminClient(kubeconfig: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return kc;
}

export const localStorageClass = {
  name: 'local',
  provisioner: 'knredis.local/hostpath',
};

export async function ensureStorageClass(kc: KubeConfig): Promise<void> {
  const api = kc.makeApiClient(StorageV1Api);
  try {
    await api.createStorageClass({
      body: {
        metadata: {
          name: localStorageClass.name,
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: localStorageClass.provisioner,
        volumeBindingMode: 'Immediate',
        reclaimPolicy: 'Delete',
        // The kubelet's provisioner resizes its volumes (provisioner.ts).
        allowVolumeExpansion: true,
      },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
    // An environment made before expansion was allowed.
    await api.patchStorageClass(
      { name: localStorageClass.name, body: { allowVolumeExpansion: true } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Names of the nodes once `count` of them are Ready; throws after timeoutMs with what is missing. */
export async function waitForNodes(
  kc: KubeConfig,
  count: number,
  timeoutMs: number,
  isAlive: () => boolean,
  log: string,
): Promise<string[]> {
  const api = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  let seen: string;
  for (;;) {
    if (!isAlive()) throw new Error(`the kubelet exited while starting; see ${log}, which ends with:\n${tail(log)}`);
    try {
      const nodes = (await api.listNode()).items;
      const ready = nodes.filter(isReady).map((n) => n.metadata?.name ?? '');
      if (ready.length >= count) return ready.sort();
      seen = `${ready.length} Ready of ${nodes.length} registered`;
    } catch (error) {
      seen = (error as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${count} nodes not Ready after ${timeoutMs / 1000}s (${seen}); see ${log}, which ends with:\n${tail(log)}`,
      );
    await sleep(250);
  }
}

/** The controllers run once the service-account controller made `default` in `default`. */
export async function waitForDefaultServiceAccount(kc: KubeConfig, timeoutMs: number, log: string): Promise<void> {
  const api = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await api.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 404 || Date.now() > deadline) {
        throw new Error(
          `the controllers did not create the default ServiceAccount within ${timeoutMs / 1000}s (${(error as Error).message}); see ${log}`,
          { cause: error },
        );
      }
    }
    await sleep(200);
  }
}
