// redis.conf settings a user may not put in spec.config, grouped by the reason given to them.
// The schema turns each group into one CEL rule (schema-config.ts), so the API server refuses
// them with this reason before anything reaches the operator.

export interface ForbiddenConfigGroup {
  /** Exact directive names (lower case; keys are checked in lower case). */
  keys: readonly string[];
  /** Directive name prefixes, e.g. `cluster-announce-`. */
  prefixes: readonly string[];
  reason: string;
}

export const FORBIDDEN_CONFIG: readonly ForbiddenConfigGroup[] = [
  {
    keys: ['cluster-enabled', 'cluster-config-file', 'cluster-port'],
    prefixes: ['cluster-announce-'],
    reason: "the operator runs every node in cluster mode with its own nodes.conf and announces the pod's address",
  },
  {
    keys: [
      'port',
      'bind',
      'bind-source-addr',
      'tls-port',
      'unixsocket',
      'unixsocketperm',
      'daemonize',
      'supervised',
      'pidfile',
      'dir',
      'include',
      'logfile',
    ],
    prefixes: [],
    reason: 'the operator decides where each node listens and where it writes its files',
  },
  {
    keys: ['requirepass', 'masterauth', 'masteruser', 'aclfile', 'user'],
    prefixes: [],
    reason: 'passwords do not belong in the spec: use spec.auth.secretRef',
  },
  {
    keys: [
      'tls-cert-file',
      'tls-key-file',
      'tls-key-file-pass',
      'tls-ca-cert-file',
      'tls-ca-cert-dir',
      'tls-client-cert-file',
      'tls-client-key-file',
      'tls-client-key-file-pass',
      'tls-cluster',
      'tls-replication',
    ],
    prefixes: [],
    reason: 'TLS comes from spec.tls and its Secret',
  },
  {
    keys: ['rename-command'],
    prefixes: [],
    reason: 'the operator needs CLUSTER, CONFIG and the other admin commands under their own names',
  },
  {
    keys: ['replicaof', 'slaveof'],
    prefixes: [],
    reason: 'the operator decides which node replicates which master',
  },
  {
    keys: ['enable-protected-configs', 'enable-debug-command', 'enable-module-command', 'loadmodule'],
    prefixes: [],
    reason: 'it lets any client rewrite protected settings, run DEBUG (which can crash a node) or load code into Redis',
  },
];

/** The forbidden groups a key falls into (empty when the key is allowed). */
export function forbiddenConfigReasons(key: string): string[] {
  const k = key.toLowerCase();
  return FORBIDDEN_CONFIG.filter((g) => g.keys.includes(k) || g.prefixes.some((p) => k.startsWith(p))).map(
    (g) => g.reason,
  );
}

/** Settings the operator applies with CONFIG SET without a restart; others roll the pods. */
export const RISKY_CONFIG_CHANGES: Readonly<Record<string, string>> = {
  'maxmemory-policy': 'changing maxmemory-policy changes which keys Redis evicts when memory is full',
  maxmemory: 'changing maxmemory can make Redis evict keys or refuse writes when the data no longer fits',
  appendonly: 'changing appendonly changes what survives a restart',
  save: 'changing save changes what survives a restart',
};
