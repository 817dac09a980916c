// CLUSTER NODES text -> NodeEntry[] (the format of Redis 7.0: id addr flags master ping-sent
// pong-recv config-epoch link-state slot...). Slots like `[93->-id]` / `[93-<-id]` are open
// (migrating / importing) slots, written only on the node's own line.
import type { NodeEntry } from './topology.ts';
import type { SlotRange } from './slots.ts';

class ClusterNodesParseError extends Error {
  override readonly name = 'ClusterNodesParseError';
}

export function parseClusterNodes(text: string): NodeEntry[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .map(parseLine);
}

function parseLine(line: string): NodeEntry {
  const fields = line.split(' ');
  if (fields.length < 8)
    throw new ClusterNodesParseError(`CLUSTER NODES line has ${fields.length} fields, need 8: ${line.slice(0, 80)}`);
  const [id = '', addr = '', flagText = '', master = '-', pingSent = '0', pongRecv = '0', epoch = '0', link = ''] =
    fields;
  const flags = flagText.split(',');
  const { address, busPort, hostname } = parseAddress(addr, flags.includes('noaddr'));
  const slots: SlotRange[] = [];
  const migrating: { slot: number; to: string }[] = [];
  const importing: { slot: number; from: string }[] = [];
  for (const token of fields.slice(8)) {
    if (token.startsWith('[')) {
      const body = token.slice(1, -1);
      const out = body.indexOf('->-');
      const inn = body.indexOf('-<-');
      if (out > 0) migrating.push({ slot: Number(body.slice(0, out)), to: body.slice(out + 3) });
      else if (inn > 0) importing.push({ slot: Number(body.slice(0, inn)), from: body.slice(inn + 3) });
      else throw new ClusterNodesParseError(`bad open slot ${token}`);
      continue;
    }
    const dash = token.indexOf('-');
    const start = Number(dash > 0 ? token.slice(0, dash) : token);
    const end = Number(dash > 0 ? token.slice(dash + 1) : token);
    if (!Number.isInteger(start) || !Number.isInteger(end) || end < start)
      throw new ClusterNodesParseError(`bad slot range ${token}`);
    slots.push({ start, end });
  }
  const role = flags.includes('master') ? 'master' : flags.includes('slave') ? 'replica' : 'unknown';
  return {
    id,
    address,
    busPort,
    ...(hostname ? { hostname } : {}),
    flags,
    myself: flags.includes('myself'),
    role,
    masterId: master === '-' ? null : master,
    failing: flags.includes('fail') ? 'fail' : flags.includes('fail?') ? 'pfail' : 'none',
    handshake: flags.includes('handshake'),
    pingSentMs: Number(pingSent),
    pongRecvMs: Number(pongRecv),
    configEpoch: Number(epoch),
    connected: link === 'connected',
    slots,
    migrating,
    importing,
  };
}

function parseAddress(addr: string, noaddr: boolean): Pick<NodeEntry, 'address' | 'busPort' | 'hostname'> {
  // ip:port@cport[,hostname]; IPv6 ips contain ':' so split at the last one.
  const [endpoint = '', hostname] = addr.split(',');
  const at = endpoint.indexOf('@');
  const hostPort = at >= 0 ? endpoint.slice(0, at) : endpoint;
  const busPort = at >= 0 ? Number(endpoint.slice(at + 1)) : 0;
  const colon = hostPort.lastIndexOf(':');
  const ip = hostPort.slice(0, colon);
  const port = Number(hostPort.slice(colon + 1));
  const address = noaddr || ip === '' || !port ? null : { ip, port };
  return { address, busPort, ...(hostname ? { hostname } : {}) };
}
