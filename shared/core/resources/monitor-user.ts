// The monitoring user: the exporter sidecar logs in as its own ACL user, whose password the
// operator generates once per cluster and keeps in the operator-owned Secret
// `<name>-monitor`. A password rotation moves the default user only, so the exporter, which
// reads its password once at start, keeps logging in. The Secret also holds the password's
// sha256: the pods' start script writes `user ... #<hash>` into the include file, and the
// reconcile sets the user with the hash, so the password itself goes to the exporter only.
import type { V1Secret } from '@kubernetes/client-node';
import { childLabels, ownerReference, type OwnerCluster } from './meta.ts';
import { PASSWORD_KEY } from './names.ts';

export const MONITOR_USER = 'knredis-monitor';
/** The Secret's key holding the sha256 hex of the password (what Redis' `#<hash>` takes). */
export const MONITOR_HASH_KEY = 'password-sha256';

/**
 * What redis_exporter runs by default on a cluster node, read-only, on no key: PING,
 * CLIENT SETNAME, INFO, CLUSTER INFO, CLUSTER SLOTS (its cluster client's refresh), LATENCY
 * LATEST/HISTOGRAM, SLOWLOG LEN/GET. Not CONFIG GET: it prints requirepass and masterauth, so
 * the exporter runs with REDIS_EXPORTER_CONFIG_COMMAND=- (no redis_config_* metrics).
 */
export const MONITOR_COMMANDS = [
  'ping',
  'client|setname',
  'info',
  'cluster|info',
  'cluster|slots',
  'latency|latest',
  'latency|histogram',
  'slowlog|len',
  'slowlog|get',
] as const;

export function monitorSecretName(cluster: string): string {
  return `${cluster}-monitor`;
}

/** The ACL rules of the user, for ACL SETUSER and for a `user` line: `reset` first, so a set converges. */
export function monitorAclRules(hash: string): string[] {
  return ['reset', 'on', `#${hash}`, 'resetchannels', '-@all', ...MONITOR_COMMANDS.map((c) => `+${c}`)];
}

/** The `user` line of the include file (the hash is checked to be 64 hex digits by the caller). */
export function monitorUserLine(hash: string): string {
  return `user ${MONITOR_USER} ${monitorAclRules(hash).join(' ')}`;
}

export interface MonitorPassword {
  readonly password: string;
  readonly hash: string;
}

export function desiredMonitorSecret(cluster: OwnerCluster, monitor: MonitorPassword): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: monitorSecretName(cluster.metadata.name),
      namespace: cluster.metadata.namespace,
      labels: childLabels(cluster.metadata.name, 'monitor'),
      ownerReferences: [ownerReference(cluster)],
    },
    data: {
      [PASSWORD_KEY]: Buffer.from(monitor.password, 'utf8').toString('base64'),
      [MONITOR_HASH_KEY]: Buffer.from(monitor.hash, 'utf8').toString('base64'),
    },
  };
}

/** The hash a stored monitoring Secret holds, or undefined when there is none (or it is unreadable). */
export function monitorHashOf(secret: V1Secret | undefined): string | undefined {
  const stored = secret?.data?.[MONITOR_HASH_KEY];
  const hash = stored ? Buffer.from(stored, 'base64').toString('utf8') : '';
  return /^[0-9a-f]{64}$/.test(hash) && secret?.data?.[PASSWORD_KEY] ? hash : undefined;
}

/**
 * Whether a node's user, as ACL GETUSER prints it (a flat name/value list; undefined when the
 * user does not exist), is the monitoring user with this hash and exactly these rules.
 */
export function isMonitorUserCurrent(user: readonly unknown[] | undefined, hash: string): boolean {
  if (!user) return false;
  const field = (name: string) => {
    const at = user.indexOf(name);
    return at >= 0 ? user[at + 1] : undefined;
  };
  const flags = field('flags');
  const passwords = field('passwords');
  const commands = String(field('commands') ?? '')
    .split(' ')
    .filter((c) => c !== '')
    .sort();
  const wanted = ['-@all', ...MONITOR_COMMANDS.map((c) => `+${c}`)].sort();
  return (
    Array.isArray(flags) &&
    flags.includes('on') &&
    Array.isArray(passwords) &&
    passwords.length === 1 &&
    passwords[0] === hash &&
    commands.join(' ') === wanted.join(' ') &&
    String(field('keys') ?? '') === '' &&
    String(field('channels') ?? '') === ''
  );
}
