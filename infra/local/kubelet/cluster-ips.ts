// ClusterIPs of an environment whose pods are containers, as addresses of the host: each one a
// /32 on `lo`, so that a pod's packets to it (routed to the host by the pod's default route, the
// network's gateway) and the host's own are delivered locally, where service-proxy.ts listens.
// The range is the environment's own (containerServiceCidr, 172.16.X.0/24 for its 127.X), so
// environments on one machine never share an address; a kubelet starting, and `local:down`,
// remove what an earlier one left.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The first three octets of the range, `172.16.X`. */
export function clusterIpPrefix(serviceCidr: string): string {
  const match = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(serviceCidr);
  if (!match?.[1]) throw new Error(`an environment's Service range is a /24, got "${serviceCidr}"`);
  return match[1];
}

/** The `kubernetes` Service's ClusterIP: the API server gives it the range's first address. */
export function apiServiceIp(serviceCidr: string): string {
  return `${clusterIpPrefix(serviceCidr)}.1`;
}

/** The addresses of `ip -o -4 addr show dev lo` under the prefix (pure). */
export function addressesUnder(listed: string, prefix: string): string[] {
  return [...listed.matchAll(/\binet (\d+\.\d+\.\d+\.\d+)\/32\b/g)]
    .map((m) => m[1] ?? '')
    .filter((ip) => ip.startsWith(`${prefix}.`));
}

export async function addClusterIp(ip: string): Promise<void> {
  try {
    await run('ip', ['addr', 'add', `${ip}/32`, 'dev', 'lo']);
  } catch (error) {
    if (!/File exists/.test((error as { stderr?: string }).stderr ?? '')) throw error;
  }
}

export async function removeClusterIp(ip: string): Promise<void> {
  await run('ip', ['addr', 'del', `${ip}/32`, 'dev', 'lo']).catch(() => {
    /* gone already */
  });
}

/** Removes every address of the range from `lo`. */
export async function removeClusterIps(prefix: string): Promise<void> {
  const { stdout } = await run('ip', ['-o', '-4', 'addr', 'show', 'dev', 'lo']);
  for (const ip of addressesUnder(stdout, prefix)) await removeClusterIp(ip);
}
