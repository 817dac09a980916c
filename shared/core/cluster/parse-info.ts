// `INFO replication` and `CLUSTER INFO` text (key:value lines) -> typed records.
import type { ClusterInfo, ReplicationInfo } from './topology.ts';

function parseInfoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

export function parseReplicationInfo(text: string): ReplicationInfo {
  const f = parseInfoFields(text);
  const num = (k: string) => Number(f.get(k) ?? 0);
  if (f.get('role') === 'slave') {
    const port = f.get('master_port');
    return {
      role: 'replica',
      offset: f.has('slave_repl_offset') ? num('slave_repl_offset') : num('master_repl_offset'),
      ...(f.has('master_host') ? { masterHost: f.get('master_host') } : {}),
      ...(port ? { masterPort: Number(port) } : {}),
      linkUp: f.get('master_link_status') === 'up',
      syncInProgress: f.get('master_sync_in_progress') === '1',
    };
  }
  return { role: 'master', offset: num('master_repl_offset') };
}

export function parseClusterInfo(text: string): ClusterInfo {
  const f = parseInfoFields(text);
  const num = (k: string) => Number(f.get(k) ?? 0);
  return {
    state: f.get('cluster_state') === 'ok' ? 'ok' : 'fail',
    slotsAssigned: num('cluster_slots_assigned'),
    knownNodes: num('cluster_known_nodes'),
    size: num('cluster_size'),
    currentEpoch: num('cluster_current_epoch'),
    myEpoch: num('cluster_my_epoch'),
  };
}
