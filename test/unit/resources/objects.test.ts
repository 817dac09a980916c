import { expect } from 'chai';
import type { KubernetesObject, V1PodDisruptionBudget, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { desiredNetworkPolicy } from '../../../shared/core/resources/network-policy.ts';
import { desiredChildren } from '../../../functions/reconcile/children.ts';
import { ANNOTATION_HASH } from '../../../shared/core/resources/meta.ts';
import {
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
  desiredSecret,
} from '../../../shared/core/resources/objects.ts';
import { aRedisCluster } from '../reconcile/builders.ts';

const owner = aRedisCluster().owner();
const owned = {
  'app.kubernetes.io/name': 'redis-cluster',
  'app.kubernetes.io/instance': 'redis',
  'app.kubernetes.io/managed-by': 'knredis',
  'cache.redis.io/cluster': 'redis',
};
const kinds = (objects: KubernetesObject[]) => objects.map((o) => o.kind);

describe('objects', () => {
  describe('PodDisruptionBudget', () => {
    const table: [string, ReturnType<typeof aRedisCluster>, number | undefined][] = [
      ['by default, with maxUnavailable 1', aRedisCluster(), 1],
      ['when enabled, with its maxUnavailable', aRedisCluster().withPdb({ enabled: true, maxUnavailable: 2 }), 2],
      ['never when disabled', aRedisCluster().withPdb({ enabled: false, maxUnavailable: 2 }), undefined],
    ];
    for (const [what, builder, maxUnavailable] of table) {
      it(`is among the children ${what}`, () => {
        const pdb = desiredChildren(builder.build(), 6).find((o) => o.kind === 'PodDisruptionBudget') as
          V1PodDisruptionBudget | undefined;
        if (maxUnavailable === undefined) expect(pdb).to.equal(undefined);
        else expect(pdb?.spec?.maxUnavailable).to.equal(maxUnavailable);
      });
    }

    it("selects exactly the cluster's pods", () => {
      expect(desiredPodDisruptionBudget(owner, 1).spec?.selector?.matchLabels).to.deep.equal(owned);
    });
  });

  describe('selectors', () => {
    // The generic name/instance pair is what another workload may carry too; only the pods
    // knredis made for this cluster carry managed-by and the cluster label as well.
    const sts = desiredChildren(aRedisCluster().build(), 6).find((o) => o.kind === 'StatefulSet') as V1StatefulSet;
    const podLabels = sts.spec!.template.metadata!.labels!;
    const selectors: [string, Record<string, string> | undefined][] = [
      ['the client Service', desiredClientService(owner).spec?.selector],
      ['the headless Service', desiredHeadlessService(owner).spec?.selector],
      ['the PodDisruptionBudget', desiredPodDisruptionBudget(owner, 1).spec?.selector?.matchLabels],
      [
        'the NetworkPolicy',
        desiredNetworkPolicy(owner, aRedisCluster().spec(), { namespace: 'ops' }).spec?.podSelector?.matchLabels,
      ],
    ];
    for (const [what, selector] of selectors) {
      it(`${what} selects by the labels only knredis' pods of this cluster carry, which the pod template has`, () => {
        expect(selector).to.deep.equal(owned);
        expect(podLabels).to.include(selector);
      });
    }

    it('keeps the StatefulSet selector the first clusters got: it is immutable', () => {
      expect(sts.spec?.selector?.matchLabels).to.deep.equal({
        'app.kubernetes.io/name': 'redis-cluster',
        'app.kubernetes.io/instance': 'redis',
      });
    });
  });

  describe('Services', () => {
    it('gives the headless Service both ports and the addresses of pods that are not Ready yet', () => {
      const svc: V1Service = desiredHeadlessService(owner);
      expect(svc.metadata?.name).to.equal('redis-nodes');
      expect(svc.spec?.clusterIP).to.equal('None');
      expect(svc.spec?.publishNotReadyAddresses).to.equal(true);
      expect(svc.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).to.deep.equal([
        ['redis', 6379, 6379],
        ['bus', 16379, 16379],
      ]);
    });

    it('gives the client Service the client port only, and only Ready pods', () => {
      const svc: V1Service = desiredClientService(owner);
      expect(svc.metadata?.name).to.equal('redis');
      expect(svc.spec?.type).to.equal('ClusterIP');
      expect(svc.spec?.publishNotReadyAddresses).to.equal(undefined);
      expect(svc.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).to.deep.equal([['redis', 6379, 6379]]);
    });
  });

  describe('ConfigMap and Secret', () => {
    it('holds redis.conf in the ConfigMap, with a hash that follows its content', () => {
      const a = desiredConfigMap(owner, 'appendonly yes\n');
      expect(a.data).to.deep.equal({ 'redis.conf': 'appendonly yes\n' });
      expect(desiredConfigMap(owner, 'appendonly yes\n').metadata?.annotations?.[ANNOTATION_HASH]).to.equal(
        a.metadata?.annotations?.[ANNOTATION_HASH],
      );
      expect(desiredConfigMap(owner, 'appendonly no\n').metadata?.annotations?.[ANNOTATION_HASH]).to.not.equal(
        a.metadata?.annotations?.[ANNOTATION_HASH],
      );
    });

    it('names the generated Secret <cluster>-auth and carries no hash of the password', () => {
      const secret = desiredSecret(owner, 's3cret-value');
      expect(secret.metadata?.name).to.equal('redis-auth');
      expect(secret.stringData).to.deep.equal({ password: 's3cret-value' });
      expect(secret.metadata?.annotations?.[ANNOTATION_HASH]).to.equal(undefined);
    });
  });

  describe('desiredChildren', () => {
    it("owns every child by the cluster, with the cluster's labels, and applies the StatefulSet last", () => {
      const children = desiredChildren(aRedisCluster().build(), 6);
      expect(kinds(children)).to.deep.equal([
        'ConfigMap',
        'Service',
        'Service',
        'PodDisruptionBudget',
        'NetworkPolicy',
        'StatefulSet',
      ]);
      for (const child of children) {
        expect(child.metadata?.namespace).to.equal('shop');
        expect(child.metadata?.ownerReferences?.[0]).to.include({
          kind: 'RedisCluster',
          name: 'redis',
          uid: 'uid-1',
          controller: true,
        });
        expect(child.metadata?.labels).to.include({
          'app.kubernetes.io/instance': 'redis',
          'app.kubernetes.io/managed-by': 'knredis',
        });
        expect(child.metadata?.annotations?.[ANNOTATION_HASH]).to.match(/^[0-9a-f]{16}$/);
      }
    });

    it('renders spec.config on top of the managed defaults into the ConfigMap', () => {
      const children = desiredChildren(aRedisCluster().withConfig({ MaxMemory: '1gb', appendonly: 'no' }).build(), 6);
      const conf = (children[0] as { data: Record<string, string> }).data['redis.conf'] ?? '';
      expect(conf).to.contain('\nmaxmemory 1gb\n');
      expect(conf).to.contain('\nappendonly no\n');
      expect(conf).to.contain('\ncluster-enabled yes\n');
    });
  });
});
