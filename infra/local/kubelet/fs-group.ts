// A pod's fsGroup on its volumes, for the container runtime, as a kubelet applies it: every file
// and directory of the pod's volumes (but hostPath) gets the group, group read and write, and
// directories the setgid bit, so that what the containers write keeps the group. With
// fsGroupChangePolicy OnRootMismatch a volume whose root already has the group and the bit is
// left alone (a large PVC is not walked at every start). The process runtime needs none of
// this: its processes run as the kubelet's user.
import { chown, chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';

const SETGID = 0o2000;

export async function applyFsGroup(pod: V1Pod, hostDirs: ReadonlyMap<string, string>): Promise<void> {
  const context = pod.spec?.securityContext;
  const group = context?.fsGroup;
  if (group === undefined) return;
  const onMismatchOnly = context?.fsGroupChangePolicy === 'OnRootMismatch';
  for (const volume of pod.spec?.volumes ?? []) {
    const dir = hostDirs.get(volume.name);
    if (dir === undefined || volume.hostPath) continue;
    if (onMismatchOnly) {
      const root = await lstat(dir);
      if (root.gid === group && (root.mode & SETGID) !== 0) continue;
    }
    await walk(dir, group);
  }
}

async function walk(path: string, group: number): Promise<void> {
  const stat = await lstat(path);
  if (stat.isSymbolicLink()) return;
  await chown(path, stat.uid, group);
  if (stat.isDirectory()) {
    await chmod(path, (stat.mode & 0o7777) | SETGID | 0o070);
    for (const entry of await readdir(path)) await walk(join(path, entry), group);
  } else {
    await chmod(path, (stat.mode & 0o7777) | 0o060);
  }
}
