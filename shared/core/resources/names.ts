// Names of the objects the operator creates for a RedisCluster. Every child is named from the
// cluster's name, so a child can always be traced back to its owner, even without labels.
export const CLIENT_PORT = 6379;
export const BUS_PORT = 16379;
export const REDIS_CONTAINER = 'redis';
export const DATA_VOLUME = 'data';
export const CONFIG_VOLUME = 'config';
export const DATA_PATH = '/data';
export const CONFIG_PATH = '/etc/redis';
export const CONFIG_FILE = 'redis.conf';
export const PASSWORD_KEY = 'password';
/** The Secret's password key mounted as a file: no password in an argument or redis.conf. */
export const AUTH_VOLUME = 'auth';
export const AUTH_PATH = '/etc/redis-auth';
export const AUTH_FILE = 'password';
/** spec.tls: the kubernetes.io/tls Secret's files (tls.crt, tls.key, ca.crt), read-only. */
export const TLS_VOLUME = 'tls';
export const TLS_PATH = '/etc/redis-tls';
export const TLS_CERT_FILE = `${TLS_PATH}/tls.crt`;
export const TLS_KEY_FILE = `${TLS_PATH}/tls.key`;
export const TLS_CA_FILE = `${TLS_PATH}/ca.crt`;
/** With spec.tls the client port speaks TLS; spec.tls.plaintext keeps plaintext here. */
export const PLAINTEXT_PORT = 6380;
/** Writable scratch (the root filesystem is read-only): the auth settings generated at start. */
export const RUN_VOLUME = 'run';
export const RUN_PATH = '/run/redis';
/** The redis user of the official image: the pods run as it, never as root. */
export const REDIS_UID = 999;
/** The finalizer that lets the operator clean up before the RedisCluster goes. */
export const FINALIZER = 'cache.redis.io/finalizer';
/** The field manager of every server-side apply. */
export const FIELD_MANAGER = 'knredis';

export interface ChildNames {
  /** The one StatefulSet; its pods are `<name>-<ordinal>`. */
  readonly statefulSet: string;
  readonly configMap: string;
  /** The auth Secret the operator generates when spec.auth.secretRef is absent. */
  readonly generatedSecret: string;
  /** Headless: stable per-pod DNS names, and the StatefulSet's serviceName. */
  readonly headlessService: string;
  /** What clients connect to. */
  readonly clientService: string;
  readonly podDisruptionBudget: string;
  readonly networkPolicy: string;
}

export function childNames(cluster: string): ChildNames {
  return {
    statefulSet: cluster,
    configMap: `${cluster}-config`,
    generatedSecret: `${cluster}-auth`,
    headlessService: `${cluster}-nodes`,
    clientService: cluster,
    podDisruptionBudget: cluster,
    networkPolicy: cluster,
  };
}

/** The ordinal of a StatefulSet pod from its name (`<sts>-<n>`), or undefined. */
export function ordinalOf(statefulSet: string, pod: string): number | undefined {
  if (!pod.startsWith(`${statefulSet}-`)) return undefined;
  const rest = pod.slice(statefulSet.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

/**
 * The ordinal of a claim the StatefulSet created from one of its claim templates
 * (`<template>-<sts>-<n>`, any n: claims kept from a larger former size count too), or undefined.
 */
export function claimOrdinal(templates: readonly string[], statefulSet: string, claim: string): number | undefined {
  for (const template of templates) {
    const ordinal = ordinalOf(`${template}-${statefulSet}`, claim);
    if (ordinal !== undefined) return ordinal;
  }
  return undefined;
}
