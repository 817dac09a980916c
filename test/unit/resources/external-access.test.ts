import { expect } from 'chai';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { desiredChildren } from '../../../functions/reconcile/children.ts';
import { toDesiredCluster } from '../../../shared/core/reconcile/desired-cluster.ts';
import {
  announcedAddressOf,
  desiredExternalService,
  externalServicesToDelete,
  nodeAddressOf,
  podsWithExternalService,
  POD_NAME_LABEL,
} from '../../../shared/core/resources/external-access.ts';
import { ownedLabels } from '../../../shared/core/resources/meta.ts';
import { desiredNetworkPolicy } from '../../../shared/core/resources/network-policy.ts';
import { aRedisCluster, CLUSTER, NAMESPACE, somePods } from '../reconcile/builders.ts';

const nodePort = { type: 'NodePort' as const };
const service = (type: string, ports: object[], status: object = {}): V1Service =>
  ({ spec: { type, ports }, status }) as V1Service;
const node = (addresses: { type: string; address: string }[]): V1Node => ({ status: { addresses } }) as V1Node;

describe('external access', () => {
  describe('the Service of one node', () => {
    const s = desiredExternalService(aRedisCluster().owner(), 'redis-2', {
      type: 'LoadBalancer',
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' },
    });

    it('is named after its pod, owned by the RedisCluster and carries the annotations', () => {
      expect(s.metadata).to.deep.include({ name: 'redis-2-external', namespace: NAMESPACE });
      expect(s.metadata?.ownerReferences?.[0]).to.deep.include({ kind: 'RedisCluster', name: CLUSTER });
      expect(s.metadata?.annotations).to.include({ 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' });
      expect(s.metadata?.labels).to.include({ ...ownedLabels(CLUSTER), 'app.kubernetes.io/component': 'external' });
    });

    it("selects that pod only, by the cluster's own labels, ready or not", () => {
      expect(s.spec?.selector).to.deep.equal({ ...ownedLabels(CLUSTER), [POD_NAME_LABEL]: 'redis-2' });
      expect(s.spec?.publishNotReadyAddresses).to.equal(true);
    });

    it('serves the client and the cluster bus ports, with any node forwarding', () => {
      expect(s.spec?.type).to.equal('LoadBalancer');
      expect(s.spec?.externalTrafficPolicy).to.equal('Cluster');
      expect(s.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).to.deep.equal([
        ['redis', 6379, 6379],
        ['bus', 16379, 16379],
      ]);
    });
  });

  describe('the address a node announces', () => {
    const ports = [
      { name: 'redis', port: 6379, nodePort: 31001 },
      { name: 'bus', port: 16379, nodePort: 31002 },
    ];
    it("NodePort: its node's address and the two node ports", () => {
      expect(announcedAddressOf(nodePort, service('NodePort', ports), '10.1.2.3')).to.deep.equal({
        ip: '10.1.2.3',
        port: 31001,
        busPort: 31002,
      });
    });
    it('NodePort: none while the node or a node port is not known', () => {
      expect(announcedAddressOf(nodePort, service('NodePort', ports), undefined)).to.equal(null);
      expect(announcedAddressOf(nodePort, service('NodePort', [ports[0] as object]), '10.1.2.3')).to.equal(null);
      expect(announcedAddressOf(nodePort, undefined, '10.1.2.3')).to.equal(null);
    });
    it("LoadBalancer: the load balancer's IP and the Service's own ports", () => {
      const lb = service('LoadBalancer', ports, {
        loadBalancer: { ingress: [{ hostname: 'x.elb' }, { ip: '34.1.1.9' }] },
      });
      expect(announcedAddressOf({ type: 'LoadBalancer' }, lb, '10.1.2.3')).to.deep.equal({
        ip: '34.1.1.9',
        port: 6379,
        busPort: 16379,
      });
    });
    it('LoadBalancer: none before the load balancer has an IP (a host name cannot be announced)', () => {
      const pending = service('LoadBalancer', ports);
      const named = service('LoadBalancer', ports, { loadBalancer: { ingress: [{ hostname: 'x.elb' }] } });
      expect(announcedAddressOf({ type: 'LoadBalancer' }, pending, '10.1.2.3')).to.equal(null);
      expect(announcedAddressOf({ type: 'LoadBalancer' }, named, '10.1.2.3')).to.equal(null);
    });
    it('none from a Service of the former type (the type is changing)', () => {
      expect(announcedAddressOf({ type: 'LoadBalancer' }, service('NodePort', ports), '10.1.2.3')).to.equal(null);
    });
    it("a node's ExternalIP first, else its InternalIP", () => {
      const internal = { type: 'InternalIP', address: '10.0.0.5' };
      const external = { type: 'ExternalIP', address: '34.0.0.5' };
      expect(nodeAddressOf(node([internal, external]))).to.equal('34.0.0.5');
      expect(nodeAddressOf(node([{ type: 'Hostname', address: 'n1' }, internal]))).to.equal('10.0.0.5');
      expect(nodeAddressOf(undefined)).to.equal(undefined);
    });
  });

  describe("the engine's input", () => {
    const ports = [
      { name: 'redis', port: 6379, nodePort: 31001 },
      { name: 'bus', port: 16379, nodePort: 31002 },
    ];
    const services = [0, 1, 2].map((i) => ({
      ...service(
        'NodePort',
        ports.map((p) => ({ ...p, nodePort: p.nodePort + 10 * i })),
      ),
      metadata: { name: `redis-${i}-external` },
    }));
    it('gives every pod its Service’s address, and null to one without', () => {
      const spec = aRedisCluster().withMasters(3).withReplicas(0).with({ externalAccess: nodePort }).spec();
      const pods = somePods(4, (i) => ({ nodeAddress: `10.0.0.${i}` }));
      const placements = toDesiredCluster(spec, pods, [], services).pods;
      expect(placements.map((p) => p.announced)).to.deep.equal([
        { ip: '10.0.0.0', port: 31001, busPort: 31002 },
        { ip: '10.0.0.1', port: 31011, busPort: 31012 },
        { ip: '10.0.0.2', port: 31021, busPort: 31022 },
        null,
      ]);
    });
    it('without external access no pod carries an announced address (the engine clears any)', () => {
      const spec = aRedisCluster().withMasters(3).withReplicas(0).spec();
      const placements = toDesiredCluster(spec, somePods(3), [], services).pods;
      expect(placements.every((p) => !('announced' in p))).to.equal(true);
    });
  });

  describe('which Services exist', () => {
    it('one per wanted pod and per pod still there, none without external access', () => {
      const on = aRedisCluster().withMasters(3).withReplicas(0).with({ externalAccess: nodePort });
      const names = (b: typeof on, present: string[] = []) =>
        desiredChildren(b.build(), 3, undefined, undefined, present)
          .filter((o) => o.metadata?.name?.endsWith('-external'))
          .map((o) => o.metadata?.name);
      expect(names(on, ['redis-0', 'redis-3'])).to.deep.equal([
        'redis-0-external',
        'redis-1-external',
        'redis-2-external',
        'redis-3-external',
      ]);
      expect(names(aRedisCluster().withMasters(3).withReplicas(0), ['redis-0'])).to.deep.equal([]);
      expect(podsWithExternalService('redis', 2, ['redis-1', 'redis-5'])).to.deep.equal([
        'redis-0',
        'redis-1',
        'redis-5',
      ]);
    });

    const base = { statefulSet: 'redis', podCount: 3, present: ['redis-0', 'redis-1', 'redis-2'] };
    const services = ['redis-0-external', 'redis-1-external', 'redis-2-external', 'redis-3-external'];
    it("deletes a removed pod's Service once the pod is gone", () => {
      expect(
        externalServicesToDelete({ ...base, access: nodePort, services, announcementsCleared: false }),
      ).to.deep.equal(['redis-3-external']);
      expect(
        externalServicesToDelete({
          ...base,
          present: [...base.present, 'redis-3'],
          access: nodePort,
          services,
          announcementsCleared: false,
        }),
      ).to.deep.equal([]);
    });
    it('with external access off, deletes them all only once no node announces', () => {
      expect(
        externalServicesToDelete({ ...base, access: undefined, services, announcementsCleared: false }),
      ).to.deep.equal([]);
      expect(
        externalServicesToDelete({ ...base, access: undefined, services, announcementsCleared: true }),
      ).to.deep.equal(services);
    });
  });

  it('opens the Redis and bus ports of the NetworkPolicy to every source (node ports come from the nodes)', () => {
    const b = aRedisCluster().with({ externalAccess: nodePort, networkPolicy: { clients: [] } });
    const policy = desiredNetworkPolicy(b.owner(), b.spec(), { namespace: 'ops' });
    expect(policy.spec?.ingress).to.deep.equal([
      {
        ports: [
          { protocol: 'TCP', port: 6379 },
          { protocol: 'TCP', port: 16379 },
        ],
      },
    ]);
  });
});
