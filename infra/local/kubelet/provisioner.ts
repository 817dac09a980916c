// A tiny dynamic provisioner for StorageClasses whose provisioner is knredis.local/hostpath:
// a pending claim gets a PersistentVolume (a hostPath under <state>/volumes, claimRef set) for
// the PV controller to bind; a Released volume with reclaimPolicy Delete is wiped and deleted.
// It is also the volumes' resizer (what external-resizer does for a CSI driver): a bound claim
// asking more than its capacity gets it, on the PV and in the claim's status (a directory has
// no size to grow).
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1StorageClass } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { describe, inform, isConflict, isNotFound, mergePatch, type KubeClients } from './kube.ts';

export const provisionerName = 'knredis.local/hostpath';

export function volumeFor(
  claim: V1PersistentVolumeClaim,
  storageClass: V1StorageClass,
  path: string,
): V1PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: `pvc-${claim.metadata?.uid}`,
      annotations: { 'pv.kubernetes.io/provisioned-by': provisionerName },
    },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
      accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
      storageClassName: storageClass.metadata?.name ?? '',
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      hostPath: { path, type: 'DirectoryOrCreate' },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata?.namespace ?? '',
        name: claim.metadata?.name ?? '',
        uid: claim.metadata?.uid ?? '',
      },
    },
  };
}

export class Provisioner {
  private readonly volumesDir: string;
  private readonly informers: { stop(): Promise<void> }[] = [];
  private readonly classes = new Map<string, V1StorageClass | null>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly clients: KubeClients,
    private readonly log: Logger,
    stateDir: string,
  ) {
    this.volumesDir = resolve(stateDir, 'volumes');
  }

  async start(): Promise<void> {
    const { clients, log } = this;
    const claims = inform<V1PersistentVolumeClaim>(
      clients,
      log,
      '/api/v1/persistentvolumeclaims',
      () => clients.core.listPersistentVolumeClaimForAllNamespaces(),
      (kind, c) => {
        if (kind !== 'delete') void this.onClaim(c);
      },
    );
    const volumes = inform<V1PersistentVolume>(
      clients,
      log,
      '/api/v1/persistentvolumes',
      () => clients.core.listPersistentVolume(),
      (kind, v) => {
        if (kind !== 'delete') void this.onVolume(v);
      },
    );
    this.informers.push(claims, volumes);
    await Promise.all([claims.started, volumes.started]);
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  private async onClaim(claim: V1PersistentVolumeClaim): Promise<void> {
    if (claim.spec?.volumeName && claim.status?.phase === 'Bound') return this.resize(claim);
    const key = `claim/${claim.metadata?.uid}`;
    if (
      claim.spec?.volumeName ||
      claim.status?.phase !== 'Pending' ||
      claim.metadata?.deletionTimestamp ||
      this.busy.has(key)
    )
      return;
    const storageClass = await this.storageClass(claim.spec?.storageClassName ?? '');
    if (storageClass?.provisioner !== provisionerName) return;
    const annotations = claim.metadata?.annotations ?? {};
    if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !annotations['volume.kubernetes.io/selected-node'])
      return;
    this.busy.add(key);
    try {
      const path = join(this.volumesDir, `pvc-${claim.metadata?.uid}`);
      await mkdir(path, { recursive: true });
      await this.clients.core.createPersistentVolume({ body: volumeFor(claim, storageClass, path) });
      this.log.info({ claim: `${claim.metadata?.namespace}/${claim.metadata?.name}`, path }, 'volume provisioned');
    } catch (err) {
      if (!isConflict(err)) this.log.warn({ err: describe(err) }, 'provisioning failed');
    } finally {
      this.busy.delete(key);
    }
  }

  private async resize(claim: V1PersistentVolumeClaim): Promise<void> {
    const wanted = claim.spec?.resources?.requests?.storage;
    const key = `resize/${claim.metadata?.uid}`;
    if (!wanted || wanted === claim.status?.capacity?.storage || this.busy.has(key)) return;
    const storageClass = await this.storageClass(claim.spec?.storageClassName ?? '');
    if (storageClass?.provisioner !== provisionerName || !storageClass.allowVolumeExpansion) return;
    const name = claim.metadata?.name ?? '';
    const namespace = claim.metadata?.namespace ?? '';
    this.busy.add(key);
    try {
      const capacity = { storage: wanted };
      await this.clients.core.patchPersistentVolume(
        { name: claim.spec?.volumeName ?? '', body: { spec: { capacity } } },
        mergePatch,
      );
      await this.clients.core.patchNamespacedPersistentVolumeClaimStatus(
        {
          name,
          namespace,
          body: {
            status: { capacity, allocatedResources: capacity, allocatedResourceStatuses: null, conditions: null },
          },
        },
        mergePatch,
      );
      this.log.info({ claim: `${namespace}/${name}`, size: wanted }, 'volume resized');
    } catch (err) {
      if (!isNotFound(err)) this.log.warn({ err: describe(err) }, 'resizing failed');
    } finally {
      this.busy.delete(key);
    }
  }

  private async onVolume(pv: V1PersistentVolume): Promise<void> {
    const name = pv.metadata?.name ?? '';
    if (pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'] !== provisionerName) return;
    if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete' || this.busy.has(name))
      return;
    this.busy.add(name);
    try {
      const path = resolve(pv.spec?.hostPath?.path ?? '');
      // Only ever remove what this provisioner created.
      if (path.startsWith(`${this.volumesDir}/`)) await rm(path, { recursive: true, force: true });
      await this.clients.core.deletePersistentVolume({ name });
      this.log.info({ volume: name }, 'released volume deleted');
    } catch (err) {
      if (!isNotFound(err)) this.log.warn({ volume: name, err: describe(err) }, 'deleting a released volume failed');
    } finally {
      this.busy.delete(name);
    }
  }

  private async storageClass(name: string): Promise<V1StorageClass | null> {
    if (!name) return null;
    const cached = this.classes.get(name);
    if (cached) return cached;
    try {
      const sc = await this.clients.storage.readStorageClass({ name });
      this.classes.set(name, sc);
      return sc;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }
}
