// The engine with announced addresses (the ground of spec.externalAccess): every node sits
// behind a TCP forwarder on another address and other ports, as behind a NodePort Service, and
// must be known to its peers and clients only by that address, then by its own again.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import type { AnnouncedAddress, DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { parseClusterNodes } from '../../../shared/core/cluster/parse-cluster-nodes.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { loopbackPrefix } from '../../support/loopback-prefix.ts';
import { waitFor } from '../../support/wait-for.ts';

const SUITE = 43;

const sockets = new Set<Socket>();

/** Forwards ip:<any free port> to `to`; what kube-proxy does for a node port. */
async function forwarder(ip: string, to: { ip: string; port: number }): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    const upstream = connect(to.port, to.ip);
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, ip, resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the forwarder has no port');
  return { server, port: address.port };
}

/**
 * Every node's CLUSTER NODES as ip:port@bus, once no MEET is under way: a MEET to an address a
 * node is still known elsewhere by shows as a handshake entry until the PONG names the node and
 * its known entry takes the address, which gossip may finish after the plan has converged.
 */
async function settledViews(pool: NodePool, pods: readonly { name: string; address: { ip: string; port: number } }[]) {
  return waitFor(
    async () => {
      const views = new Map<string, string[]>();
      for (const pod of pods) {
        const entries = parseClusterNodes(String(await command(pool, pod.address, 'test', ['CLUSTER', 'NODES'])));
        if (entries.some((e) => e.handshake)) return undefined;
        views.set(pod.name, entries.map((e) => `${e.address?.ip}:${e.address?.port}@${e.busPort}`).sort());
      }
      return views;
    },
    { what: 'every node’s handshakes to end' },
  );
}

describe('cluster engine: announced addresses (external access)', function () {
  this.timeout(120_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  let client: Cluster | undefined;
  const servers: Server[] = [];
  afterEach(async () => {
    client?.disconnect();
    await pool?.close();
    await harness?.stopAll();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers.length = 0;
  });

  it('forms a 3x1 cluster known only by its announced addresses, serves a client there, and goes back to the pods’ own', async () => {
    harness = new ClusterHarness({ suite: SUITE, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    // The "node" every pod is reached through, as a NodePort Service gives.
    const nodeIp = `${loopbackPrefix()}.${SUITE}.200`;
    const announced = new Map<string, AnnouncedAddress>();
    for (const pod of harness.pods) {
      const { ip } = pod.placement.address;
      const redis = await forwarder(nodeIp, { ip, port: 6379 });
      const bus = await forwarder(nodeIp, { ip, port: 16379 });
      servers.push(redis.server, bus.server);
      announced.set(pod.placement.name, { ip: nodeIp, port: redis.port, busPort: bus.port });
    }
    const plain = harness.desired(3, 1);
    const external: DesiredCluster = {
      ...plain,
      pods: plain.pods.map((p) => ({ ...p, announced: announced.get(p.name) ?? null })),
    };
    const kinds = new Set<string>();
    await converge(pool, external, { onPlan: (p) => p.steps.forEach((s) => kinds.add(s.kind)) });
    expect([...kinds]).to.include('announce');
    await expectHealthy(pool, plain);
    const wanted = [...announced.values()].map((a) => `${a.ip}:${a.port}@${a.busPort}`).sort();
    // 1: every node lists every node (itself too) at its announced address and bus port
    const views = await settledViews(pool, plain.pods);
    for (const pod of plain.pods) {
      expect(views.get(pod.name), pod.name).to.deep.equal(wanted);
      const entries = parseClusterNodes(String(await command(pool, pod.address, 'test', ['CLUSTER', 'NODES'])));
      expect(
        entries.every((e) => e.connected || e.myself),
        pod.name,
      ).to.equal(true);
    }
    // 2: replicas replicate through the announced addresses
    for (const pod of plain.pods) {
      const info = String(await command(pool, pod.address, 'test', ['INFO', 'replication']));
      if (!/role:slave/.test(info)) continue;
      expect(info).to.include(`master_host:${nodeIp}`);
      expect(info).to.include('master_link_status:up');
    }
    // 3: a cluster client given one announced address finds every node there, and only there
    const seed = announced.get('redis-0') as AnnouncedAddress;
    client = new Cluster([{ host: seed.ip, port: seed.port }], { enableOfflineQueue: true });
    for (let i = 0; i < 300; i++) await client.set(`k${i}`, String(i));
    for (let i = 0; i < 300; i += 37) expect(await client.get(`k${i}`)).to.equal(String(i));
    const reached = client.nodes('all').map((n) => `${n.options.host}:${n.options.port}`);
    expect(reached.length).to.be.at.least(3);
    expect(
      reached.every((a) => a.startsWith(`${nodeIp}:`)),
      reached.join(' '),
    ).to.equal(true);
    // what any client is told: CLUSTER SLOTS names masters and replicas at announced addresses only
    // (a replica is listed once its first sync is done)
    const endpoints = await waitFor(
      async () => {
        const slots = (await client?.cluster('SLOTS')) ?? [];
        const all = slots.flatMap(([, , ...nodes]) => nodes.map(([ip, port]) => `${ip}:${port}`));
        return new Set(all).size === 6 ? all : undefined;
      },
      { what: 'CLUSTER SLOTS to list 3 masters and 3 replicas' },
    );
    expect(
      endpoints.every((a) => a.startsWith(`${nodeIp}:`)),
      endpoints.join(' '),
    ).to.equal(true);
    client.disconnect();
    client = undefined;
    // 4: without announced addresses the nodes go back to their own, all keys still there
    kinds.clear();
    await converge(pool, plain, { onPlan: (p) => p.steps.forEach((s) => kinds.add(s.kind)) });
    expect([...kinds]).to.include('announce');
    await expectHealthy(pool, plain);
    const own = plain.pods.map((p) => `${p.address.ip}:6379@16379`).sort();
    const ownViews = await settledViews(pool, plain.pods);
    for (const pod of plain.pods) expect(ownViews.get(pod.name), pod.name).to.deep.equal(own);
    let keys = 0;
    for (const pod of plain.pods) keys += Number(await command(pool, pod.address, 'test', ['DBSIZE']));
    expect(keys).to.equal(300 * 2); // each key on its master and its replica
  });
});
