// How the Redis container starts without its password on any command line: the Secret's key is
// mounted as a file, and a small shell step turns it into `requirepass`/`masterauth` lines in a
// file on a scratch volume that redis-server `include`s. The password is written hex-escaped
// ("\xHH" in a quoted redis.conf string), so every byte survives: quotes, spaces, newlines.
import { AUTH_FILE, AUTH_PATH, CLIENT_PORT, CONFIG_FILE, CONFIG_PATH, DATA_PATH, RUN_PATH } from './names.ts';

export const AUTH_CONF = `${RUN_PATH}/auth.conf`;

/** Paths and addresses are arguments, not file content (the local kubelet maps argument paths). */
export function redisServerArgs(): string[] {
  return [
    `${CONFIG_PATH}/${CONFIG_FILE}`,
    '--include',
    AUTH_CONF,
    '--port',
    String(CLIENT_PORT),
    '--dir',
    DATA_PATH,
    '--cluster-config-file',
    `${DATA_PATH}/nodes.conf`,
    '--cluster-announce-ip',
    '"$POD_IP"',
  ];
}

/** The container's `sh -c` script: write the auth settings (owner-only), then become redis-server. */
export function redisStartScript(): string {
  return [
    'set -e',
    'umask 077',
    `pw=$(od -An -v -tx1 ${AUTH_PATH}/${AUTH_FILE} | tr -d ' \\n' | sed 's/../\\\\x&/g')`,
    `printf 'requirepass "%s"\\nmasterauth "%s"\\n' "$pw" "$pw" > ${AUTH_CONF}`,
    `exec redis-server ${redisServerArgs().join(' ')}`,
  ].join('\n');
}
