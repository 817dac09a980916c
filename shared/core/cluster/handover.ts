// Which replica a planned (DEFAULT) failover promotes, for rolling restarts and scale-in alike:
// one with a synced link (one still syncing cannot catch up in the failover's pause), that its
// master lists as its own (a master ignores a manual failover request from a node it does not
// yet know as its replica, right after a previous failover), the most up to date first.
import { myselfOf, type NodeView } from './topology.ts';

export function handoverReplica(
  views: readonly NodeView[],
  master: NodeView,
  accept: (replica: NodeView) => boolean = () => true,
): NodeView | undefined {
  const known = (id: string) => master.entries.some((e) => e.id === id && e.masterId === master.id);
  return views
    .filter(
      (v) =>
        myselfOf(v).masterId === master.id &&
        v.replication.role === 'replica' &&
        accept(v) &&
        v.replication.linkUp &&
        !v.replication.syncInProgress &&
        known(v.id),
    )
    .sort((a, b) => b.replication.offset - a.replication.offset)[0];
}
