// RedisClusterBackup objects through the API server: the backups of a namespace, their status
// (guarded by the resourceVersion read, as the cluster's), and the schedule's creates and
// retention's deletes. Each call stops with the run's signal.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RedisClusterBackup, RedisClusterBackupStatus } from '../../core/api/backup-v1beta1.ts';
import { BACKUP_PLURAL, GROUP, V1BETA1 } from '../../core/api/group.ts';
import { unlessNotFound } from './errors.ts';
import { abortable } from './kube-client.ts';

const where = (namespace: string) => ({ group: GROUP, version: V1BETA1, namespace, plural: BACKUP_PLURAL });

export class BackupClient {
  private readonly custom: CustomObjectsApi;
  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async list(namespace: string, signal?: AbortSignal): Promise<RedisClusterBackup[]> {
    const list = (await this.custom.listNamespacedCustomObject(where(namespace), abortable(signal))) as {
      items?: RedisClusterBackup[];
    };
    return list.items ?? [];
  }

  async get(namespace: string, name: string, signal?: AbortSignal): Promise<RedisClusterBackup | undefined> {
    return (await unlessNotFound(
      this.custom.getNamespacedCustomObject({ ...where(namespace), name }, abortable(signal)),
    )) as RedisClusterBackup | undefined;
  }

  async replaceStatus(
    backup: RedisClusterBackup,
    status: RedisClusterBackupStatus,
    signal?: AbortSignal,
  ): Promise<RedisClusterBackup> {
    const { namespace = '', name = '' } = backup.metadata;
    return (await this.custom.replaceNamespacedCustomObjectStatus(
      { ...where(namespace), name, body: { ...backup, status } },
      abortable(signal),
    )) as RedisClusterBackup;
  }

  async create(backup: RedisClusterBackup, signal?: AbortSignal): Promise<void> {
    await this.custom.createNamespacedCustomObject(
      { ...where(backup.metadata.namespace ?? ''), body: backup },
      abortable(signal),
    );
  }

  async delete(namespace: string, name: string, signal?: AbortSignal): Promise<void> {
    await unlessNotFound(this.custom.deleteNamespacedCustomObject({ ...where(namespace), name }, abortable(signal)));
  }
}
