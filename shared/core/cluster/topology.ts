// The observed topology: what each reachable pod's Redis says about the cluster, as plain data.
// Built by shared/io/redis/observe.ts from CLUSTER NODES, CLUSTER INFO and
// INFO replication; read by the pure planner.
import type { AnnouncedAddress } from './desired.ts';
import type { SlotRange } from './slots.ts';

export interface Address {
  readonly ip: string;
  readonly port: number;
}

export const addressKey = (a: Address): string => `${a.ip}:${a.port}`;

/** One line of CLUSTER NODES: what the viewing node believes about one node. */
export interface NodeEntry {
  readonly id: string;
  /** null when the viewer knows no address (flag noaddr, or `:0`). */
  readonly address: Address | null;
  readonly busPort: number;
  readonly hostname?: string;
  readonly flags: readonly string[];
  readonly myself: boolean;
  readonly role: 'master' | 'replica' | 'unknown';
  /** Master id for a replica; null for a master. */
  readonly masterId: string | null;
  /** Set by PFAIL (`fail?`) or FAIL. */
  readonly failing: 'none' | 'pfail' | 'fail';
  readonly handshake: boolean;
  readonly pingSentMs: number;
  readonly pongRecvMs: number;
  readonly configEpoch: number;
  readonly connected: boolean;
  readonly slots: readonly SlotRange[];
  /** Slots this node (as seen by the viewer, meaningful for `myself`) migrates to a node id. */
  readonly migrating: readonly { slot: number; to: string }[];
  readonly importing: readonly { slot: number; from: string }[];
}

export interface ReplicationInfo {
  readonly role: 'master' | 'replica';
  /** master_repl_offset on a master, slave_repl_offset (or master_repl_offset) on a replica. */
  readonly offset: number;
  readonly masterHost?: string;
  readonly masterPort?: number;
  /** master_link_status:up on a replica. */
  readonly linkUp?: boolean;
  readonly syncInProgress?: boolean;
}

export interface ClusterInfo {
  readonly state: 'ok' | 'fail';
  readonly slotsAssigned: number;
  readonly knownNodes: number;
  readonly size: number;
  readonly currentEpoch: number;
  readonly myEpoch: number;
}

/** What one reachable pod said. */
export interface NodeView {
  readonly pod: string;
  /** Where the operator reaches the pod. */
  readonly address: Address;
  /** spec.externalAccess: the address the cluster must know this node by (its pod's announced one). */
  readonly known?: AnnouncedAddress;
  /** What the node announces now (cluster-announce-ip, -port, -bus-port); null: nothing. */
  readonly announcing?: AnnouncedAddress | null;
  /** The node's own id (its `myself` line). */
  readonly id: string;
  readonly entries: readonly NodeEntry[];
  readonly info: ClusterInfo;
  readonly replication: ReplicationInfo;
  readonly keys: number;
  readonly nodeTimeoutMs: number;
  /** min-replicas-to-write: above the spec's value while the restart guard holds (write-guard.ts). */
  readonly minReplicasToWrite?: number;
  /**
   * COUNTKEYSINSLOT for every slot that is open or uncovered somewhere (observe asks), and, on a
   * master, for every slot it holds keys of but does not own (keys a failover left behind).
   */
  readonly keysInSlot: Readonly<Record<number, number>>;
}

export interface UnreachablePod {
  readonly pod: string;
  readonly address: Address;
  readonly reason: string;
}

export interface Topology {
  readonly views: readonly NodeView[];
  readonly unreachable: readonly UnreachablePod[];
  /** ms since epoch when observation finished (from the injected clock). */
  readonly observedAt: number;
}

/** The address the cluster must list a reachable node at: the announced one, else the pod's. */
export const knownAddress = (view: Pick<NodeView, 'address' | 'known'>): Address =>
  view.known ? { ip: view.known.ip, port: view.known.port } : view.address;

export function myselfOf(view: NodeView): NodeEntry {
  const me = view.entries.find((e) => e.myself);
  if (!me) throw new Error(`CLUSTER NODES of ${view.pod} has no myself line`);
  return me;
}
