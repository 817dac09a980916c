// External access end to end (spec.externalAccess), with the operator as separate processes: a
// cluster client on the host that is given one node port follows MOVED and ASK redirects only
// to announced addresses, through a scale-out with live slot migration, with zero errors; then
// the same through load balancers; and with external access removed the nodes go back to their
// own addresses and the Services go, every key kept. The local kubelet serves node ports and
// load balancers (infra/local/kubelet/service-proxy.ts); pods are not reachable from the host
// by those addresses any other way.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import type { V1Service } from '@kubernetes/client-node';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { ClientLoad, bulkLoad } from '../integration/cluster/client-load.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { isReady, type ClusterView } from './observe.ts';
import { startStackFixture, type StackFixture } from './stack-fixture.ts';

const NAME = 'outside';
const KEYS = 3_000;

/** Every node of the status, masters and replicas. */
const nodesOf = (rc: RedisCluster | undefined) =>
  (rc?.status?.shards ?? []).flatMap((s) => [...(s.master ? [s.master] : []), ...(s.replicas ?? [])]);

/** Ready, with `count` nodes each announcing an address `matches` accepts. */
const readyAnnouncing = (count: number, matches: (address: string) => boolean) => (rc: RedisCluster | undefined) => {
  const nodes = nodesOf(rc);
  return (
    isReady(rc) &&
    !rc?.status?.operation &&
    nodes.length === count &&
    nodes.every((n) => n.externalAddress !== undefined && matches(n.externalAddress))
  );
};

const hostPort = (address: string) => {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
};

describe('knredis end to end: external access (functions as separate processes, on the local Kubernetes)', function () {
  this.timeout(900_000);
  let fixture: StackFixture | undefined;
  let env: LocalEnvironment;
  let ns: string;
  let view: ClusterView;
  let load: ClientLoad | undefined;
  let password: string;
  const clients: Cluster[] = [];
  /** What the load last wrote to each key: the later checks expect exactly that. */
  const written = new Map<string, string>();
  /** A client seeded with one address, that expects every key as the load left it. */
  const checker = (seed: { host: string; port: number }) => {
    const check = new ClientLoad([{ ip: seed.host, port: seed.port }], 'x', KEYS, password);
    for (const [k, v] of written) check.last.set(k, v);
    return check;
  };

  const patch = (body: unknown, type = 'merge') =>
    env.kubectl(['patch', 'rediscluster', NAME, '-n', ns, '--type', type, '-p', JSON.stringify(body)]);
  const externalServices = async () =>
    (
      JSON.parse(
        await env.kubectl(['get', 'services', '-n', ns, '-l', 'app.kubernetes.io/component=external', '-o', 'json']),
      ) as { items: V1Service[] }
    ).items;
  /** What a client given `seed` is told: every endpoint of CLUSTER SLOTS, once all `count` nodes are listed. */
  const endpointsSeenFrom = async (seed: string, count: number) => {
    const client = new Cluster([hostPort(seed)], { redisOptions: { password } });
    clients.push(client);
    return env.waitFor(
      async () => {
        const slots = await client.cluster('SLOTS');
        const all = slots.flatMap(([, , ...nodes]) => nodes.map(([ip, port]) => `${ip}:${port}`));
        return new Set(all).size === count ? [...new Set(all)] : undefined;
      },
      { what: `CLUSTER SLOTS through ${seed} to list ${count} nodes` },
    );
  };

  before(async () => {
    fixture = await startStackFixture('external', NAME);
    ({ env, ns, view } = fixture);
  });
  after(async function () {
    this.timeout(240_000);
    await load?.stop();
    await load?.close();
    for (const c of clients) c.disconnect();
    await fixture?.stop();
  });

  it('forms a cluster known by node ports, and a host client seeded with one of them reaches every node only there', async () => {
    await fixture!.create({ externalAccess: { type: 'NodePort' } });
    const nodes = await env.kubelet.nodes();
    const nodeAddresses = new Set(nodes.map((n) => n.address));
    const rc = await view.until('Ready, every node announcing a node port', (r) =>
      readyAnnouncing(6, (a) => nodeAddresses.has(hostPort(a).host))(r),
    );
    // each node announces its own pod's Service: its node's address and its node port
    const services = new Map((await externalServices()).map((s) => [s.metadata?.name, s]));
    expect([...services.keys()].sort()).to.deep.equal([0, 1, 2, 3, 4, 5].map((i) => `${NAME}-${i}-external`));
    const podNode = new Map((await view.pods()).map((p) => [p.name, p.node]));
    const addressOfNode = new Map(nodes.map((n) => [n.name, n.address]));
    for (const node of nodesOf(rc)) {
      const service = services.get(`${node.pod}-external`);
      expect(service?.spec?.type).to.equal('NodePort');
      const nodePort = service?.spec?.ports?.find((p) => p.name === 'redis')?.nodePort;
      expect(node.externalAddress, node.pod).to.equal(`${addressOfNode.get(podNode.get(node.pod) ?? '')}:${nodePort}`);
    }

    password = await view.password();
    const pool = new NodePool({ auth: { password } });
    try {
      const pods = (await view.pods()).map((p) => ({
        name: p.name,
        address: { ip: p.ip, port: 6379 },
        nodeName: p.node,
      }));
      await bulkLoad(await observe(pods, pool), 'x', KEYS, password);
    } finally {
      await pool.close();
    }
    const announced = nodesOf(rc).map((n) => n.externalAddress as string);
    const endpoints = await endpointsSeenFrom(announced[0] as string, 6);
    expect(endpoints.sort()).to.deep.equal([...announced].sort());
    const seed = hostPort(announced[0] as string);
    load = new ClientLoad([{ ip: seed.host, port: seed.port }], 'x', KEYS, password);
    load.start(4);
    await env.waitFor(() => (load?.counts().ops ?? 0) > 500 || undefined, {
      what: '500 operations through node ports',
    });
    const reached = load.cluster.nodes('all').map((n) => `${n.options.host}:${n.options.port}`);
    expect(reached.length).to.be.at.least(3);
    expect(
      reached.every((a) => announced.includes(a)),
      reached.join(' '),
    ).to.equal(true);
  });

  it('scales out 3 -> 4 masters under that client: redirects lead to node ports, zero errors, every key kept', async () => {
    const nodeAddresses = new Set((await env.kubelet.nodes()).map((n) => n.address));
    await patch({ spec: { masters: 4 } });
    const rc = await view.until('Ready with 8 nodes announcing node ports', (r) =>
      readyAnnouncing(8, (a) => nodeAddresses.has(hostPort(a).host))(r),
    );
    expect(rc?.status?.shards).to.have.length(4);
    const report = await load!.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(500);
    expect(await load!.verify()).to.deep.equal([]);
    for (const [k, v] of load!.last) written.set(k, v);
    const announced = nodesOf(rc).map((n) => n.externalAddress as string);
    const reached = load!.cluster.nodes('all').map((n) => `${n.options.host}:${n.options.port}`);
    expect(
      reached.every((a) => announced.includes(a)),
      reached.join(' '),
    ).to.equal(true);
  });

  it('moves to load balancers when the type changes, and a client seeded with one reaches every node there', async () => {
    await load?.close();
    load = undefined;
    await patch({ spec: { externalAccess: { type: 'LoadBalancer' } } });
    const balancers = `${env.podIpPrefix}.255.`;
    const rc = await view.until('Ready, every node announcing a load balancer', (r) =>
      readyAnnouncing(8, (a) => a.startsWith(balancers) && a.endsWith(':6379'))(r),
    );
    const announced = nodesOf(rc).map((n) => n.externalAddress as string);
    expect(new Set(announced).size).to.equal(8);
    for (const s of await externalServices()) {
      expect(s.spec?.type).to.equal('LoadBalancer');
      expect(s.status?.loadBalancer?.ingress?.[0]?.ip).to.match(new RegExp(`^${balancers.replace(/\./g, '\\.')}`));
    }
    expect((await endpointsSeenFrom(announced[0] as string, 8)).sort()).to.deep.equal([...announced].sort());
    const check = checker(hostPort(announced[0] as string));
    try {
      expect(await check.verify()).to.deep.equal([]);
    } finally {
      await check.close();
    }
  });

  it('goes back to the pods’ own addresses when external access is removed, then deletes the Services', async () => {
    await patch([{ op: 'remove', path: '/spec/externalAccess' }], 'json');
    await view.until(
      'Ready, no node announcing',
      (r) =>
        isReady(r) && !r?.status?.operation && nodesOf(r).length === 8 && nodesOf(r).every((n) => !n.externalAddress),
    );
    await env.waitFor(async () => (await externalServices()).length === 0 || undefined, {
      what: 'the external Services to go',
    });
    const pods = await view.pods();
    const check = checker({ host: pods[0]?.ip ?? '', port: 6379 });
    try {
      expect(await check.verify()).to.deep.equal([]);
      const slots = await check.cluster.cluster('SLOTS');
      const ips = new Set(pods.map((p) => p.ip));
      expect(slots.flatMap(([, , ...nodes]) => nodes.map(([ip]) => String(ip))).every((ip) => ips.has(ip))).to.equal(
        true,
      );
    } finally {
      await check.close();
    }
  });
});
