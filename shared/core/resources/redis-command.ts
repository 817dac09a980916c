// How the Redis container starts without its password on any command line: the Secret's key is
// mounted as a file, and a small shell step turns it into `requirepass`/`masterauth` lines in a
// file on a scratch volume that redis-server `include`s. The password is written hex-escaped
// ("\xHH" in a quoted redis.conf string), so every byte survives: quotes, spaces, newlines.
// The monitoring user (monitor-user.ts) comes from its password's hash in MONITOR_HASH_ENV.
//
// The restart guard: a master that comes back (a crash, its node lost) may have been replaced
// by its replica meanwhile, and until gossip tells it so, it serves its old slots and its
// acknowledged writes are then thrown away when it turns replica. Redis holds such a node for
// only 2 s; on a busy node it was measured to take writes for 5 s. So a node whose nodes.conf
// says it was a master with slots and a replica starts with min-replicas-to-write 1: it takes
// no write until a replica follows it (a real master's own replica reconnects; a replaced one
// has none). The operator lifts the guard once the cluster agrees on the node's role
// (core/cluster/write-guard.ts). A min-replicas-to-write of the user's, 1 or more, already guards.
import type { TlsSpec } from '../api/v1beta1.ts';
import {
  AUTH_FILE,
  AUTH_PATH,
  CLIENT_PORT,
  CONFIG_FILE,
  CONFIG_PATH,
  DATA_PATH,
  PLAINTEXT_PORT,
  RUN_PATH,
  TLS_CA_FILE,
  TLS_CERT_FILE,
  TLS_KEY_FILE,
} from './names.ts';
import { monitorUserLine } from './monitor-user.ts';

export const AUTH_CONF = `${RUN_PATH}/auth.conf`;
/** Written at each start: `min-replicas-to-write 1` under the restart guard, else empty. */
export const GUARD_CONF = `${RUN_PATH}/restart-guard.conf`;
/** The guard's value; the operator sets the spec's own (0 by default) once it is safe. */
export const GUARD_MIN_REPLICAS = 1;
/** The redis container's variable holding the monitoring password's sha256 (from its Secret). */
export const MONITOR_HASH_ENV = 'MONITOR_PASSWORD_SHA256';

/** Paths and addresses are arguments, not file content (the local kubelet maps argument paths). */
export function redisServerArgs(tls?: TlsSpec): string[] {
  return [
    `${CONFIG_PATH}/${CONFIG_FILE}`,
    '--include',
    AUTH_CONF,
    '--include',
    GUARD_CONF,
    ...listenArgs(tls),
    '--dir',
    DATA_PATH,
    '--cluster-config-file',
    `${DATA_PATH}/nodes.conf`,
    '--cluster-announce-ip',
    '"$POD_IP"',
  ];
}

/**
 * Where a node listens. With TLS the client port speaks TLS, so the address the engine and
 * CLUSTER NODES use stays ip:6379 and the bus stays 16379 (tls-port + 10000).
 */
function listenArgs(tls: TlsSpec | undefined): string[] {
  if (!tls) return ['--port', String(CLIENT_PORT)];
  return [
    '--port',
    tls.plaintext ? String(PLAINTEXT_PORT) : '0',
    '--tls-port',
    String(CLIENT_PORT),
    '--tls-cert-file',
    TLS_CERT_FILE,
    '--tls-key-file',
    TLS_KEY_FILE,
    '--tls-ca-cert-file',
    TLS_CA_FILE,
    '--tls-cluster',
    'yes',
    '--tls-replication',
    'yes',
  ];
}

/** redis-cli's TLS options for a node of this spec (none without TLS). */
export function redisCliTlsArgs(tls: TlsSpec | undefined): string {
  return tls ? ` --tls --cacert ${TLS_CA_FILE}` : '';
}

/** The container's `sh -c` script: write the auth settings (owner-only), then become redis-server. */
export function redisStartScript(tls?: TlsSpec): string {
  return [
    'set -e',
    'umask 077',
    `pw=$(od -An -v -tx1 ${AUTH_PATH}/${AUTH_FILE} | tr -d ' \\n' | sed 's/../\\\\x&/g')`,
    `printf 'requirepass "%s"\\nmasterauth "%s"\\n' "$pw" "$pw" > ${AUTH_CONF}`,
    // Only hex digits reach the file, and only a whole sha256: no line can be slipped in.
    `mh=$(printf %s "$${MONITOR_HASH_ENV}" | tr -cd 0-9a-f)`,
    `if [ \${#mh} -eq 64 ]; then printf '%s\\n' "${monitorUserLine('$mh')}" >> ${AUTH_CONF}; fi`,
    ...restartGuardLines(),
    `exec redis-server ${redisServerArgs(tls).join(' ')}`,
  ].join('\n');
}

/**
 * The restart guard's shell lines (see the header): nodes.conf's `myself` line is a master with
 * slots (fields past the 8th) and another line names it as its master; redis.conf sets no
 * min-replicas-to-write of 1 or more.
 */
function restartGuardLines(): string[] {
  const nodes = `${DATA_PATH}/nodes.conf`;
  return [
    `: > ${GUARD_CONF}`,
    `me=$(awk '$3 ~ /myself/ && $3 ~ /master/ && NF > 8 { print $1 }' ${nodes} 2>/dev/null || true)`,
    `if [ -n "$me" ] && awk -v me="$me" '$4 == me { found = 1 } END { exit !found }' ${nodes}; then`,
    `  own=$(awk 'tolower($1) == "min-replicas-to-write" { print $2 }' ${CONFIG_PATH}/${CONFIG_FILE} 2>/dev/null || true)`,
    `  case "$own" in ''|0) printf 'min-replicas-to-write ${GUARD_MIN_REPLICAS}\\n' > ${GUARD_CONF} ;; esac`,
    'fi',
  ];
}
