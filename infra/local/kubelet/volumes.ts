// Pod volumes as host directories under <state>/pods/<uid>/volumes: configMap and secret
// (files from keys or items, rewritten when the object changes), emptyDir (removed with the
// pod) and persistentVolumeClaim (the bound PV's hostPath, which outlives the pod).
import { chmod, chown, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import type { V1Container, V1Pod, V1Volume } from '@kubernetes/client-node';
import { isNotFound, type KubeClients } from './kube.ts';
import type { ObjectSource } from './object-cache.ts';
import type { PathMapping } from './path-map.ts';

export type VolumesResult =
  { ok: true; hostDirs: Map<string, string> } | { ok: false; reason: string; message: string };

/**
 * Makes every volume of the pod exist on the host; refreshes configMap and secret files from
 * `objects`; `known` claims are not looked up again.
 */
export async function prepareVolumes(
  clients: KubeClients,
  objects: ObjectSource,
  pod: V1Pod,
  podDir: string,
  known?: ReadonlyMap<string, string>,
): Promise<VolumesResult> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const hostDirs = new Map<string, string>();
  for (const volume of pod.spec?.volumes ?? []) {
    const dir = join(podDir, 'volumes', volume.name);
    if (volume.emptyDir) {
      await mkdir(dir, { recursive: true });
    } else if (volume.configMap || volume.secret || volume.projected || volume.downwardAPI) {
      const files = await projectedFiles(clients, objects, pod, volume, dir);
      if (typeof files === 'string') {
        return {
          ok: false,
          reason: 'ContainerCreating',
          message: `MountVolume.SetUp failed for volume "${volume.name}": ${files} not found`,
        };
      }
      await writeFiles(
        dir,
        files,
        volume.configMap?.defaultMode ?? volume.secret?.defaultMode ?? volume.projected?.defaultMode ?? 0o644,
      );
    } else if (volume.persistentVolumeClaim) {
      // A bound claim keeps its volume: look it up once.
      const resolved = known?.get(volume.name);
      if (resolved) {
        hostDirs.set(volume.name, resolved);
        continue;
      }
      const found = await claimDir(clients, namespace, volume.persistentVolumeClaim.claimName);
      if (typeof found !== 'string')
        return { ok: false, reason: 'ContainerCreating', message: `volume "${volume.name}": ${found.message}` };
      await mkdir(found, { recursive: true });
      hostDirs.set(volume.name, found);
      continue;
    } else if (volume.hostPath) {
      hostDirs.set(volume.name, volume.hostPath.path);
      continue;
    } else {
      return {
        ok: false,
        reason: 'CreateContainerConfigError',
        message: `volume "${volume.name}": only configMap, secret, projected, downwardAPI, emptyDir, persistentVolumeClaim and hostPath volumes are supported locally`,
      };
    }
    hostDirs.set(volume.name, dir);
  }
  return { ok: true, hostDirs };
}

/** The container's volumeMounts as path mappings (subPath included). */
export function mountMappings(container: V1Container, hostDirs: ReadonlyMap<string, string>): PathMapping[] {
  return (container.volumeMounts ?? []).flatMap((m) => {
    const dir = hostDirs.get(m.name);
    if (dir === undefined) return [];
    return [
      { mountPath: m.mountPath, hostPath: m.subPath ? join(dir, normalize(m.subPath).replace(/^(\.\.\/)+/, '')) : dir },
    ];
  });
}

export async function removePodDir(podDir: string): Promise<void> {
  await rm(podDir, { recursive: true, force: true });
}

type Files = Map<string, { content: Buffer; mode?: number; owner?: number }>;

type Items = { key: string; path: string; mode?: number }[] | undefined;

/** Files of a configMap, secret, downwardAPI or projected volume; a string names what is missing. */
async function projectedFiles(
  clients: KubeClients,
  objects: ObjectSource,
  pod: V1Pod,
  volume: V1Volume,
  dir: string,
): Promise<Files | string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const files: Files = new Map();
  const sources = volume.projected?.sources ?? [
    {
      ...(volume.configMap ? { configMap: volume.configMap } : {}),
      ...(volume.secret ? { secret: { ...volume.secret, name: volume.secret.secretName } } : {}),
      ...(volume.downwardAPI ? { downwardAPI: volume.downwardAPI } : {}),
    },
  ];
  for (const source of sources) {
    if (source.configMap || source.secret) {
      const isSecret = source.secret !== undefined;
      const ref = (source.configMap ?? source.secret)!;
      const data = isSecret
        ? objects.secretData(namespace, ref.name ?? '')
        : objects.configMapData(namespace, ref.name ?? '');
      const missing = `${isSecret ? 'secret' : 'configmap'} "${ref.name}"`;
      if (data === undefined) {
        if (ref.optional) continue;
        return missing;
      }
      const selected = selectItems(data, ref.items);
      if (selected === undefined) {
        if (ref.optional) continue;
        return `a key of ${missing}`;
      }
      for (const [path, file] of selected) files.set(path, file);
    }
    for (const item of source.downwardAPI?.items ?? []) {
      const field = item.fieldRef?.fieldPath ?? '';
      const value =
        field === 'metadata.labels'
          ? pairs(pod.metadata?.labels)
          : field === 'metadata.annotations'
            ? pairs(pod.metadata?.annotations)
            : field === 'metadata.name'
              ? pod.metadata?.name
              : field === 'metadata.namespace'
                ? namespace
                : field === 'metadata.uid'
                  ? pod.metadata?.uid
                  : '';
      files.set(item.path, { content: Buffer.from(value ?? '', 'utf8') });
    }
    if (source.serviceAccountToken) {
      // A token for the pod's service account, requested once (not rotated locally).
      const path = source.serviceAccountToken.path;
      const existing = await readFile(join(dir, path)).catch(() => undefined);
      const { audience, expirationSeconds } = source.serviceAccountToken;
      const token = existing ?? (await requestToken(clients, pod, audience, expirationSeconds));
      // As a kubelet writes it: the volume's mode, unless the pod has one user for all its
      // containers (the file is then that user's, 0600) or an fsGroup (0600, then the group's).
      const fsUser = podFsUser(pod);
      const owned = fsUser !== undefined || pod.spec?.securityContext?.fsGroup !== undefined;
      files.set(path, {
        content: token,
        ...(owned ? { mode: 0o600 } : {}),
        ...(fsUser !== undefined ? { owner: fsUser } : {}),
      });
    }
  }
  return files;
}

/** Every key as a file, or only `items` (undefined when an item's key is missing). */
function selectItems(data: Record<string, Buffer>, items: Items): Files | undefined {
  const files: Files = new Map();
  if (!items || items.length === 0) {
    for (const [key, content] of Object.entries(data)) files.set(key, { content });
    return files;
  }
  for (const item of items) {
    const content = data[item.key];
    if (content === undefined) return undefined;
    files.set(item.path, { content, ...(item.mode !== undefined ? { mode: item.mode } : {}) });
  }
  return files;
}

function pairs(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
}

/** A token bound to the pod, for the audience the projection names (the API server's when none). */
async function requestToken(
  clients: KubeClients,
  pod: V1Pod,
  audience: string | undefined,
  expirationSeconds: number | undefined,
): Promise<Buffer> {
  try {
    const review = await clients.core.createNamespacedServiceAccountToken({
      name: pod.spec?.serviceAccountName ?? 'default',
      namespace: pod.metadata?.namespace ?? 'default',
      body: {
        spec: {
          audiences: audience ? [audience] : [],
          expirationSeconds: expirationSeconds ?? 3600,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid },
        },
      },
    });
    return Buffer.from(review.status?.token ?? '', 'utf8');
  } catch {
    return Buffer.alloc(0);
  }
}

/** The user all the pod's containers run as, when they agree on one (a kubelet's fsUser). */
export function podFsUser(pod: V1Pod): number | undefined {
  const podUser = pod.spec?.securityContext?.runAsUser;
  const users = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map(
    (c) => c.securityContext?.runAsUser ?? podUser,
  );
  const [first] = users;
  return first !== undefined && users.every((u) => u === first) ? first : undefined;
}

/** Writes files whose content changed (write + rename, so readers never see half a file). */
async function writeFiles(dir: string, files: Files, defaultMode: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, file] of files) {
    const target = join(dir, normalize(path).replace(/^(\.\.\/)+/, ''));
    const current = await readFile(target).catch(() => undefined);
    if (current?.equals(file.content)) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(`${target}.tmp`, file.content);
    await chmod(`${target}.tmp`, file.mode ?? defaultMode);
    if (file.owner !== undefined) await chown(`${target}.tmp`, file.owner, -1);
    await rename(`${target}.tmp`, target);
  }
}

/** The host directory of a bound claim, or why the pod has to wait. */
async function claimDir(
  clients: KubeClients,
  namespace: string,
  claimName: string,
): Promise<string | { message: string }> {
  let claim;
  try {
    claim = await clients.core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace });
  } catch (err) {
    if (isNotFound(err)) return { message: `persistentvolumeclaim "${claimName}" not found` };
    throw err;
  }
  const pvName = claim.spec?.volumeName;
  if (!pvName || claim.status?.phase !== 'Bound')
    return { message: `persistentvolumeclaim "${claimName}" is not bound yet` };
  const pv = await clients.core.readPersistentVolume({ name: pvName });
  const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
  if (!path) return { message: `persistentvolume "${pvName}" has no hostPath or local path` };
  return path;
}
