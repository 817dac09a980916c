// When the queue's Redis may have lost writes it acknowledged. Redis replicates
// asynchronously: a master can answer OK to an add and fail over (Sentinel, a Redis Cluster)
// before its replica got it, and that write is gone without an error to anyone. What a client
// can see of it is its connection changing master:
// - one Redis or Sentinel: the connection closes (Sentinel kills the clients of the master it
//   demotes) and is 'ready' again later, then on the master the sentinels name now;
// - a Redis Cluster: the connection stays up, but a refresh of the slots names other masters
//   (ioredis refreshes them on the MOVED the failover causes).
// A restart of one Redis looks the same and may lose writes as well (its last fsync).
import { Cluster } from 'ioredis';
import type { QueueClient } from './connection.ts';

/** Calls `changed` each time the client may be on another master than before; returns a stop. */
export function onMasterChange(client: QueueClient, changed: () => void): () => void {
  return client instanceof Cluster ? onSlotMasters(client, changed) : onReconnect(client, changed);
}

/** A 'ready' that follows a lost connection; the first 'ready' is the start, not a change. */
function onReconnect(client: QueueClient, changed: () => void): () => void {
  let wasReady = client.status === 'ready';
  let lost = false;
  const ready = () => {
    if (lost) changed();
    wasReady = true;
    lost = false;
  };
  const close = () => {
    lost ||= wasReady;
  };
  client.on('ready', ready).on('close', close);
  return () => client.off('ready', ready).off('close', close);
}

/** A refresh of the slots whose masters differ from the last one's. */
function onSlotMasters(cluster: Cluster, changed: () => void): () => void {
  let masters: string | undefined;
  const refresh = () => {
    const now = [...new Set(cluster.slots.map((nodes) => nodes?.[0]))].sort().join(',');
    if (masters !== undefined && now !== masters) changed();
    masters = now;
  };
  cluster.on('refresh', refresh);
  return () => cluster.off('refresh', refresh);
}
