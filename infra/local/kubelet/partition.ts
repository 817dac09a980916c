// Network partitions between groups of loopback addresses, as iptables rules on INPUT (every
// packet between pods crosses lo). Each redis-server sends from its own pod IP
// (--bind-source-addr, process-plan.ts), so dropping A->B and B->A cuts exactly the pair A-B on
// every port: client and cluster bus alike. 127.0.0.1 stands for everything on the host that
// does not bind its sockets (the operator's processes, test clients, probes).
//
// Pods as containers (--runtime container) talk across their environment's bridge, whose frames
// the host's FORWARD chain sees (br_netfilter, bridge-nf-call-iptables), and with the host at
// the bridge's gateway (INPUT one way, OUTPUT the other): there the same rules go into all three
// chains, and the gateway's address stands for the host.
//
// Every rule carries the comment `knredis-<env>`; heal, the kubelet's stop and the
// environment's stop delete the rules by that tag from every chain, so none outlives the
// environment.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const partitionTag = (env: string) => `knredis-${env}`;

/** The DROP rules that cut every pair of addresses across groups, both ways (pure). */
export function partitionRules(groups: readonly (readonly string[])[], tag: string): string[][] {
  const rules: string[][] = [];
  const drop = (from: string, to: string) => [
    '-s',
    `${from}/32`,
    '-d',
    `${to}/32`,
    '-m',
    'comment',
    '--comment',
    tag,
    '-j',
    'DROP',
  ];
  groups.forEach((group, i) => {
    for (const other of groups.slice(i + 1)) {
      for (const a of group) for (const b of other) if (a !== b) rules.push(drop(a, b), drop(b, a));
    }
  });
  return rules;
}

/** The chains a partition's rules go into: INPUT for loopback, all three across a bridge. */
export type Chains = readonly ('INPUT' | 'FORWARD' | 'OUTPUT')[];
const ALL_CHAINS: Chains = ['INPUT', 'FORWARD', 'OUTPUT'];

/** Inserts the rules into each chain; on a failure, removes what it inserted and rethrows. */
export async function cut(
  groups: readonly (readonly string[])[],
  tag: string,
  chains: Chains = ['INPUT'],
): Promise<number> {
  const rules = partitionRules(groups, tag);
  try {
    for (const chain of chains) for (const rule of rules) await run('iptables', ['-w', '-I', chain, ...rule]);
  } catch (error) {
    await heal(tag);
    throw new Error(`iptables failed (the kubelet runs as root to make partitions): ${(error as Error).message}`, {
      cause: error,
    });
  }
  return rules.length * chains.length;
}

/** Deletes every rule that carries the tag, from every chain a partition uses; resolves how many. */
export async function heal(tag: string): Promise<number> {
  let healed = 0;
  for (const chain of ALL_CHAINS) {
    let listed: string;
    try {
      listed = (await run('iptables', ['-w', '-S', chain])).stdout;
    } catch {
      return healed; // no iptables, or not allowed: then no rule of ours can exist either
    }
    const ours = taggedRules(listed, tag, chain);
    for (const rule of ours) await run('iptables', ['-w', '-D', chain, ...rule]).catch(() => {});
    healed += ours.length;
  }
  return healed;
}

/** The rules of `iptables -S <chain>` output that carry the tag, as argument lists for -D (pure). */
export function taggedRules(listed: string, tag: string, chain = 'INPUT'): string[][] {
  const prefix = `-A ${chain} `;
  return listed
    .split('\n')
    .filter((line) => line.startsWith(prefix) && line.split(' ').includes(tag))
    .map((line) =>
      line
        .slice(prefix.length)
        .split(' ')
        .map((word) => word.replace(/^"(.*)"$/, '$1')),
    );
}

/** heal() for process 'exit' handlers, which cannot wait. */
export function healSync(tag: string): void {
  for (const chain of ALL_CHAINS) {
    try {
      const listed = execFileSync('iptables', ['-w', '-S', chain], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      for (const rule of taggedRules(listed, tag, chain)) {
        try {
          execFileSync('iptables', ['-w', '-D', chain, ...rule], { stdio: 'ignore' });
        } catch {
          /* gone already */
        }
      }
    } catch {
      return; /* no iptables: no rules */
    }
  }
}
