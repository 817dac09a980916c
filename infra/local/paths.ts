// Where the local environment keeps things: the binary cache (by version, shared by every
// environment) and one directory per environment. Both live outside the repository.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const localDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(localDir, '..', '..');

export function cacheDir(): string {
  return process.env.KNREDIS_CACHE || join(homedir(), '.cache', 'knredis');
}

export function envsDir(): string {
  return join(cacheDir(), 'envs');
}

export function envDir(name: string): string {
  return join(envsDir(), name);
}

export interface Versions {
  kube: string;
  etcd: string;
}

/** A setting of versions.env (KUBE_VERSION, ...). */
export function versionOf(key: string): string {
  const text = readFileSync(join(localDir, 'versions.env'), 'utf8');
  const value = new RegExp(`^${key}=(\\S+)`, 'm').exec(text)?.[1];
  if (!value) throw new Error(`infra/local/versions.env has no ${key}`);
  return value;
}

/** KUBE_VERSION and ETCD_VERSION of versions.env, the cache key of the binaries. */
export function versions(): Versions {
  return { kube: versionOf('KUBE_VERSION'), etcd: versionOf('ETCD_VERSION') };
}

export function binDir(v: Versions = versions()): string {
  return join(cacheDir(), `k8s-${v.kube}-etcd-${v.etcd}`, 'bin');
}

/** CoreDNS as build-coredns.sh leaves it (COREDNS_VERSION of versions.env). */
export function corednsBinary(): string {
  return join(cacheDir(), `coredns-${versionOf('COREDNS_VERSION')}`, 'bin', 'coredns');
}

/** redis_exporter as build-exporter.sh leaves it (REDIS_EXPORTER_VERSION of versions.env). */
export function exporterBinary(): string {
  return join(cacheDir(), `redis-exporter-${versionOf('REDIS_EXPORTER_VERSION')}`, 'bin', 'redis_exporter');
}

/** SeaweedFS' weed as build-seaweedfs.sh leaves it (SEAWEEDFS_VERSION of versions.env). */
export function seaweedBinary(): string {
  return join(cacheDir(), `seaweedfs-${versionOf('SEAWEEDFS_VERSION')}`, 'bin', 'weed');
}

export const binaries = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'] as const;

/** The contract with infra/local/kubelet: started only when this file exists. */
export const kubeletMain = join(localDir, 'kubelet', 'main.ts');

export function validateName(name: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,40}$/.test(name))
    throw new Error(`invalid environment name '${name}': use a-z, 0-9 and '-' (at most 41 characters)`);
  return name;
}
