// Registers the local nodes and keeps them alive: a Lease renewal in kube-node-lease every
// heartbeat, a Node status (Ready, heartbeat times) every few heartbeats. A failed node stops
// both, so the node-lifecycle controller marks it NotReady after its grace period.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { describe, isConflict, isNotFound, strategicMerge, type KubeClients } from './kube.ts';
import { leaseObject, microTime, nodeLabels, nodeObject, nodeStatus, type LocalNode } from './node-spec.ts';
import { iso } from './status.ts';

export interface NodeAgentOptions {
  readonly heartbeatMs: number;
  /** Node status is written every this many heartbeats (and at once after a restore). */
  readonly statusEvery: number;
  readonly controlPort: number;
}

interface NodeState {
  node: LocalNode;
  uid?: string;
  lease?: V1Lease;
  failed: boolean;
  beats: number;
  readySince: string;
}

export class NodeAgent {
  private readonly states: NodeState[];
  private timer: NodeJS.Timeout | undefined;
  private beating = false;

  constructor(
    private readonly clients: KubeClients,
    private readonly log: Logger,
    nodes: readonly LocalNode[],
    private readonly options: NodeAgentOptions,
  ) {
    this.states = nodes.map((node) => ({ node, failed: false, beats: 0, readySince: iso(Date.now()) }));
  }

  /** Creates (or updates) every Node and Lease; resolves when all are registered. */
  async register(): Promise<void> {
    for (const s of this.states) {
      const now = iso(Date.now());
      let node: V1Node;
      try {
        node = await this.clients.core.createNode({ body: nodeObject(s.node, now, this.options.controlPort) });
      } catch (err) {
        if (!isConflict(err)) throw err;
        node = await this.clients.core.patchNode(
          { name: s.node.name, body: { metadata: { labels: nodeLabels(s.node) } } },
          strategicMerge,
        );
      }
      s.uid = node.metadata?.uid;
      await this.writeStatus(s);
      await this.renewLease(s);
    }
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  fail(name: string): boolean {
    const s = this.find(name);
    if (s) s.failed = true;
    return s !== undefined;
  }

  async restore(name: string): Promise<boolean> {
    const s = this.find(name);
    if (!s) return false;
    s.failed = false;
    s.readySince = iso(Date.now());
    await this.renewLease(s).catch((err) => this.log.warn({ node: name, err: describe(err) }, 'lease renewal failed'));
    await this.writeStatus(s).catch((err) => this.log.warn({ node: name, err: describe(err) }, 'node status failed'));
    return true;
  }

  has(name: string): boolean {
    return this.find(name) !== undefined;
  }

  private find(name: string): NodeState | undefined {
    return this.states.find((s) => s.node.name === name);
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      await Promise.all(
        this.states
          .filter((s) => !s.failed)
          .map(async (s) => {
            try {
              await this.renewLease(s);
              if (++s.beats % this.options.statusEvery === 0) await this.writeStatus(s);
            } catch (err) {
              this.log.warn({ node: s.node.name, err: describe(err) }, 'heartbeat failed');
            }
          }),
      );
    } finally {
      this.beating = false;
    }
  }

  private async writeStatus(s: NodeState): Promise<void> {
    const status = nodeStatus(s.node, iso(Date.now()), s.readySince, this.options.controlPort);
    try {
      await this.clients.core.patchNodeStatus({ name: s.node.name, body: { status } }, strategicMerge);
    } catch (err) {
      // The Node was deleted under us (an admin, or a test): register it again.
      if (!isNotFound(err)) throw err;
      const node = await this.clients.core.createNode({
        body: nodeObject(s.node, iso(Date.now()), this.options.controlPort),
      });
      s.uid = node.metadata?.uid;
      s.lease = undefined;
    }
  }

  private async renewLease(s: NodeState): Promise<void> {
    const namespace = 'kube-node-lease';
    const body = leaseObject(s.node, s.uid, microTime(Date.now()), 40);
    if (s.lease?.metadata?.resourceVersion) {
      try {
        s.lease = await this.clients.coordination.replaceNamespacedLease({
          name: s.node.name,
          namespace,
          body: { ...body, metadata: { ...body.metadata, resourceVersion: s.lease.metadata.resourceVersion } },
        });
        return;
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
    }
    try {
      s.lease = await this.clients.coordination.createNamespacedLease({ namespace, body });
    } catch (err) {
      if (!isConflict(err)) throw err;
      const current = await this.clients.coordination.readNamespacedLease({ name: s.node.name, namespace });
      s.lease = await this.clients.coordination.replaceNamespacedLease({
        name: s.node.name,
        namespace,
        body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } },
      });
    }
  }
}
