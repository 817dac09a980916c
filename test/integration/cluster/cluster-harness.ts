// Real redis-server processes in cluster mode for the cluster engine's tests: one loopback IP
// per fake pod (127.X.<suite>.<n>, 127.X this test process' own: ../../support/loopback-prefix.ts),
// fake Kubernetes node and zone names, small node timeout.
// stopAll() kills every process it started and removes every directory, even after failures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopbackPrefix } from '../../support/loopback-prefix.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import type { DesiredCluster, PodPlacement } from '../../../shared/core/cluster/desired.ts';

export interface FakePod {
  placement: PodPlacement;
  server: RedisServer | undefined;
  dir: string;
}

export interface HarnessOptions {
  suite: number;
  password?: string;
  nodeTimeoutMs?: number;
  nodes?: number;
  zones?: number;
  /** Extra redis-server arguments for every pod. */
  args?: string[];
}

export class ClusterHarness {
  readonly pods: FakePod[] = [];
  private nextHost = 1;
  private readonly dirs: string[] = [];
  constructor(readonly options: HarnessOptions) {}

  // bind-source-addr: on loopback the kernel would otherwise send cluster-bus traffic from
  // 127.0.0.1, and peers would record that address for the node.
  private args(ip: string): string[] {
    const a = [
      '--bind-source-addr',
      ip,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(this.options.nodeTimeoutMs ?? 2000),
      '--cluster-require-full-coverage',
      'yes',
      '--repl-diskless-sync-delay',
      '0',
    ];
    if (this.options.password) a.push('--requirepass', this.options.password, '--masterauth', this.options.password);
    return [...a, ...(this.options.args ?? [])];
  }

  nextAddress(): string {
    return `${loopbackPrefix()}.${this.options.suite}.${this.nextHost++}`;
  }

  /** Starts n pods; pod i runs on node-(i % nodes) in zone-(node % zones). */
  async addPods(n: number): Promise<FakePod[]> {
    const added: FakePod[] = [];
    const starts: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const index = this.pods.length;
      const node = index % (this.options.nodes ?? 3);
      const ip = this.nextAddress();
      const dir = await mkdtemp(join(tmpdir(), 'knredis-cluster-'));
      this.dirs.push(dir);
      const pod: FakePod = {
        placement: {
          name: `redis-${index}`,
          address: { ip, port: 6379 },
          nodeName: `node-${node}`,
          zone: `zone-${node % (this.options.zones ?? 3)}`,
        },
        server: undefined,
        dir,
      };
      this.pods.push(pod);
      added.push(pod);
      starts.push(
        startRedis({ host: ip, port: 6379, dir, args: this.args(ip) }).then((s) => {
          pod.server = s;
        }),
      );
    }
    await Promise.all(starts);
    return added;
  }

  /** Restarts a pod's redis-server, on a new IP when asked, keeping its directory unless fresh; `args` for this start only. */
  async restart(pod: FakePod, options: { newIp?: boolean; fresh?: boolean; args?: string[] } = {}): Promise<void> {
    await pod.server?.kill('SIGKILL');
    let dir = pod.dir;
    if (options.fresh) {
      dir = await mkdtemp(join(tmpdir(), 'knredis-cluster-'));
      this.dirs.push(dir);
      pod.dir = dir;
    }
    const ip = options.newIp ? this.nextAddress() : pod.placement.address.ip;
    pod.placement = { ...pod.placement, address: { ip, port: 6379 } };
    pod.server = await startRedis({ host: ip, port: 6379, dir, args: [...this.args(ip), ...(options.args ?? [])] });
  }

  desired(masters: number, replicasPerMaster: number, removing: string[] = []): DesiredCluster {
    return {
      masters,
      replicasPerMaster,
      pods: this.pods.map((p) => ({
        ...p.placement,
        ...(removing.includes(p.placement.name) ? { removing: true } : {}),
      })),
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.pods.map((p) => p.server?.kill('SIGKILL')));
    await Promise.all(this.dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}
