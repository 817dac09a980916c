// Where a backup's files go and what a backup is made of: one snapshot per shard (a master
// serving slots, read from a replica of it whose link is up, else from the master itself), and
// the slot ranges of each, in the form the status and the manifest carry ("0-5460,5462").
import type { Address, Topology } from '../cluster/topology.ts';
import { myselfOf } from '../cluster/topology.ts';
import type { SlotRange } from '../cluster/slots.ts';

/** `<namespace>/<cluster>/<backup>/` under the storage's prefix. */
export function backupDir(namespace: string, cluster: string, backup: string): string {
  return `${namespace}/${cluster}/${backup}/`;
}
export const shardObject = (dir: string, index: number): string => `${dir}shard-${index}.rdb`;
export const manifestObject = (dir: string): string => `${dir}manifest.json`;

export function formatSlots(ranges: readonly SlotRange[]): string {
  return ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(',');
}

/** The ranges of formatSlots' form, or undefined when the text is not one. */
export function parseSlots(text: string): SlotRange[] | undefined {
  const ranges: SlotRange[] = [];
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return undefined;
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    if (end < start || end > 16383) return undefined;
    ranges.push({ start, end });
  }
  return ranges;
}

/** One shard to snapshot: its master's slots, and the node to read it from. */
export interface BackupShard {
  readonly slots: string;
  readonly masterPod: string;
  /** A replica of the master whose link is up, else the master. */
  readonly source: { readonly pod: string; readonly address: Address; readonly role: 'replica' | 'master' };
}

/** Each master serving slots, ordered by its first slot (shard-0 holds slot 0). */
export function backupShards(topology: Topology): BackupShard[] {
  const views = topology.views.map((v) => ({ view: v, me: myselfOf(v) }));
  return views
    .filter(({ me }) => me.role === 'master' && me.slots.length > 0)
    .sort((a, b) => a.me.slots[0]!.start - b.me.slots[0]!.start)
    .map(({ view, me }) => {
      const replica = views.find(
        (r) => r.me.role === 'replica' && r.me.masterId === me.id && r.view.replication.linkUp === true,
      );
      const source = replica
        ? { pod: replica.view.pod, address: replica.view.address, role: 'replica' as const }
        : { pod: view.pod, address: view.address, role: 'master' as const };
      return { slots: formatSlots(me.slots), masterPod: view.pod, source };
    });
}
