import { expect } from 'chai';
import type { V1NetworkPolicy, V1NetworkPolicyIngressRule } from '@kubernetes/client-node';
import { desiredChildren } from '../../../functions/reconcile/children.ts';
import type { NetworkPolicySpec } from '../../../shared/core/api/v1beta1.ts';
import { ownedLabels } from '../../../shared/core/resources/meta.ts';
import { desiredNetworkPolicy, OPERATOR_POD_LABELS } from '../../../shared/core/resources/network-policy.ts';
import { aRedisCluster, CLUSTER, NAMESPACE } from '../reconcile/builders.ts';

type Builder = ReturnType<typeof aRedisCluster>;
const operator = { namespace: 'ops' };
const policy = (b: Builder) => desiredNetworkPolicy(b.owner(), b.spec(), operator);
const rule = (p: V1NetworkPolicy, port: number) =>
  p.spec?.ingress?.find((r) => r.ports?.some((x) => x.port === port)) as V1NetworkPolicyIngressRule | undefined;
const ownPods = { podSelector: { matchLabels: ownedLabels(CLUSTER) } };
const operatorPeer = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ops' } },
  podSelector: { matchLabels: { ...OPERATOR_POD_LABELS } },
};
const fromNamespace = (ns: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } });

describe('network-policy', () => {
  it("selects the cluster's own pods, Ingress only (egress stays open), owned by the RedisCluster", () => {
    const p = policy(aRedisCluster());
    expect(p.metadata).to.deep.include({ name: CLUSTER, namespace: NAMESPACE });
    expect(p.metadata?.ownerReferences?.[0]).to.deep.include({ kind: 'RedisCluster', name: CLUSTER, controller: true });
    expect(p.spec?.podSelector).to.deep.equal({ matchLabels: ownedLabels(CLUSTER) });
    expect(p.spec?.policyTypes).to.deep.equal(['Ingress']);
  });

  const redisPort: [string, NetworkPolicySpec | undefined, object[]][] = [
    ['no spec: every pod of the namespace', undefined, [{ podSelector: {} }]],
    [
      'clients named: only those',
      { clients: [fromNamespace('shop'), { podSelector: { matchLabels: { app: 'web' } } }] },
      [fromNamespace('shop'), { podSelector: { matchLabels: { app: 'web' } } }],
    ],
    ['an address block', { clients: [{ ipBlock: { cidr: '10.1.0.0/16' } }] }, [{ ipBlock: { cidr: '10.1.0.0/16' } }]],
    ['an empty list: no client', { clients: [] }, []],
  ];
  for (const [what, networkPolicy, clients] of redisPort) {
    it(`admits to the Redis port, with ${what}, the cluster's pods and the operator`, () => {
      const p = policy(aRedisCluster().with(networkPolicy ? { networkPolicy } : {}));
      expect(rule(p, 6379)?._from).to.deep.equal([...clients, ownPods, operatorPeer]);
      expect(rule(p, 6379)?.ports).to.deep.equal([{ protocol: 'TCP', port: 6379 }]);
    });
  }

  it("keeps the cluster bus to the cluster's own pods, whatever clients the spec names", () => {
    const p = policy(aRedisCluster().with({ networkPolicy: { clients: [fromNamespace('shop')] } }));
    expect(rule(p, 16379)?._from).to.deep.equal([ownPods]);
  });

  const metrics: [string, Builder, object[] | undefined][] = [
    ['no exporter: no metrics rule', aRedisCluster(), undefined],
    [
      'the exporter: from the monitoring namespace',
      aRedisCluster().with({ exporter: { enabled: true } }),
      [fromNamespace('monitoring')],
    ],
    [
      'another monitoring namespace',
      aRedisCluster().with({ exporter: { enabled: true }, networkPolicy: { monitoringNamespace: 'observability' } }),
      [fromNamespace('observability')],
    ],
  ];
  for (const [what, builder, from] of metrics) {
    it(`admits the exporter port 9121 as asked: ${what}`, () => {
      expect(rule(policy(builder), 9121)?._from).to.deep.equal(from);
    });
  }

  const children: [string, Builder, boolean][] = [
    ['by default', aRedisCluster(), true],
    ['when enabled', aRedisCluster().with({ networkPolicy: { enabled: true } }), true],
    ['not when disabled', aRedisCluster().with({ networkPolicy: { enabled: false } }), false],
  ];
  for (const [what, builder, present] of children) {
    it(`is one of the desired children ${what}`, () => {
      const kinds = desiredChildren(builder.build(), 6).map((c) => c.kind);
      expect(kinds.includes('NetworkPolicy')).to.equal(present);
    });
  }

  it('admits the operator from the namespace it runs in', () => {
    const p = desiredChildren(aRedisCluster().build(), 6, undefined, { namespace: 'elsewhere' }).find(
      (c) => c.kind === 'NetworkPolicy',
    ) as V1NetworkPolicy;
    expect(rule(p, 6379)?._from?.at(-1)?.namespaceSelector).to.deep.equal(fromNamespace('elsewhere').namespaceSelector);
  });
});
