// The StorageClass behind a growing spec.storage.size: by name, or the cluster's default class
// (annotation storageclass.kubernetes.io/is-default-class) when the spec names none.
import { ApiException, StorageV1Api, type KubeConfig, type V1StorageClass } from '@kubernetes/client-node';
import type { StorageClassInfo } from '../../shared/core/api/validate-spec.ts';

const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';

export function storageClassReader(kc: KubeConfig): (name: string) => Promise<StorageClassInfo | undefined> {
  const api = kc.makeApiClient(StorageV1Api);
  const info = (sc: V1StorageClass): StorageClassInfo => ({
    name: sc.metadata?.name ?? '',
    allowVolumeExpansion: sc.allowVolumeExpansion === true,
  });
  return async (name) => {
    if (name === '') {
      const found = (await api.listStorageClass()).items.find(
        (sc) => sc.metadata?.annotations?.[DEFAULT_CLASS] === 'true',
      );
      return found && info(found);
    }
    try {
      return info(await api.readStorageClass({ name }));
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  };
}
