import { expect } from 'chai';
import type { ExternalAccessSpec, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import type { ClusterPlan } from '../../../shared/core/cluster/plan-types.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import type { Topology } from '../../../shared/core/cluster/topology.ts';
import type { Outcome } from '../../../shared/core/outcome.ts';
import type { KubeStep } from '../../../shared/core/reconcile/kube-steps.ts';
import type { ObservedClaim, ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import { planAfterEngine, planBeforeEngine, type KubePlanInput } from '../../../shared/core/reconcile/plan-kube.ts';
import type { RolloutDecision } from '../../../shared/core/reconcile/rollout.ts';
import type { CertificatePlan } from '../../../shared/core/reconcile/tls-reload.ts';
import { aTopology, idOf, pods, threeByOne } from '../cluster/builders.ts';
import { aClaim, aPlan, aPod, aRedisCluster, somePods } from './builders.ts';

const NOW = 1_000_000;
/** A status of a cluster that was formed (shards and slots seen). */
const formed: RedisClusterStatus = {
  phase: 'Running',
  slotsCovered: 16384,
  shards: [0, 1, 2].map((index) => ({ index, name: `shard-${index}` })),
  conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: '' }],
};
const healthy = (): Topology => aTopology(pods(6), threeByOne);
const secret = { data: { password: 'cGFzcw==' } };

interface Case {
  readonly paused?: boolean;
  readonly namedSecret?: boolean;
  readonly hasPassword?: boolean;
  readonly status?: RedisClusterStatus;
  readonly pods?: ObservedPod[];
  readonly claims?: ObservedClaim[];
  /** The StatefulSet's replicas as observed (6 by default). */
  readonly stsReplicas?: number;
  /** spec.tls names a Secret that is missing or unusable. */
  readonly tlsProblem?: string;
  readonly externalAccess?: ExternalAccessSpec;
  /** Pods whose `<pod>-external` Service is observed. */
  readonly externalServices?: string[];
}

function inputOf(c: Case): KubePlanInput {
  let rc = aRedisCluster().withMasters(3).withReplicas(1);
  if (c.paused) rc = rc.paused();
  if (c.namedSecret) rc = rc.withAuthSecret('app-auth');
  if (c.status) rc = rc.withStatus(c.status);
  if (c.externalAccess) rc = rc.with({ externalAccess: c.externalAccess });
  const hasPassword = c.hasPassword ?? true;
  return {
    cluster: rc.build(),
    spec: rc.spec(),
    observed: {
      children: {
        statefulSet: {
          spec: { replicas: c.stsReplicas ?? 6, selector: {}, serviceName: 'redis-nodes', template: {} },
        },
        ...(hasPassword ? { secret } : {}),
        ...(c.externalServices
          ? { externalServices: c.externalServices.map((pod) => ({ metadata: { name: `${pod}-external` } })) }
          : {}),
      },
      pods: c.pods ?? somePods(6),
      claims: c.claims ?? [],
    },
    auth: c.namedSecret
      ? { name: 'app-auth', key: 'password', external: true }
      : { name: 'redis-auth', key: 'password', external: false },
    hasPassword,
    ...(c.tlsProblem ? { tlsProblem: c.tlsProblem } : {}),
    now: NOW,
  };
}

const condition = (status: RedisClusterStatus | undefined, type: string) =>
  status?.conditions?.find((c) => c.type === type);
const requeue = (ms: number) => `requeueAfter ${ms}`;
const shown = (o: Outcome) => (o.kind === 'requeueAfter' ? `requeueAfter ${o.ms}` : o.kind);

describe('plan-kube', () => {
  describe('planBeforeEngine', () => {
    const cases: {
      name: string;
      c: Case;
      kind: 'stop' | 'engine';
      steps: KubeStep[];
      outcome?: string;
      summary?: string;
      check?: (status: RedisClusterStatus | undefined) => void;
    }[] = [
      {
        name: 'reports Paused and changes nothing when paused',
        c: { paused: true, status: formed },
        kind: 'stop',
        steps: [],
        outcome: 'done',
        summary: 'paused (spec.paused)',
        check: (s) => expect(s?.phase).to.equal('Paused'),
      },
      {
        name: 'warns, reports Degraded and waits for a person when the Secret the spec names is missing',
        c: { namedSecret: true, hasPassword: false },
        kind: 'stop',
        steps: [
          {
            kind: 'warn',
            reason: 'AuthSecretMissing',
            message: 'Secret app-auth with key password (spec.auth.secretRef) was not found',
          },
        ],
        outcome: requeue(10_000),
        check: (s) => expect(condition(s, 'Degraded')).to.include({ status: 'True', reason: 'ReconcileError' }),
      },
      {
        name: 'warns, reports Degraded and waits for a person when the TLS Secret is missing, before any pod is made',
        c: { tlsProblem: 'Secret rc-tls (spec.tls.secretRef) was not found' },
        kind: 'stop',
        steps: [
          { kind: 'warn', reason: 'TLSSecretMissing', message: 'Secret rc-tls (spec.tls.secretRef) was not found' },
        ],
        outcome: requeue(10_000),
        check: (s) => expect(condition(s, 'Degraded')).to.include({ status: 'True', reason: 'ReconcileError' }),
      },
      {
        name: 'creates the children and looks again soon when the generated Secret does not exist yet',
        c: { hasPassword: false },
        kind: 'stop',
        steps: [{ kind: 'applyChildren', replicas: 6 }],
        outcome: requeue(1_000),
        summary: 'created the auth Secret',
        check: (s) => expect(s).to.equal(undefined),
      },
      {
        name: 'waits for every pod of a new cluster before the engine forms it',
        c: { pods: somePods(6, (i) => ({ ready: i < 4 })) },
        kind: 'stop',
        steps: [{ kind: 'applyChildren', replicas: 6 }],
        outcome: requeue(1_000),
        summary: 'waiting for pods: 4/6 ready',
        check: (s) => expect(s?.operation).to.include({ type: 'Create', progress: 'waiting for pods: 4/6 ready' }),
      },
      {
        name: 'runs the engine on a new cluster once every pod is Ready',
        c: {},
        kind: 'engine',
        steps: [{ kind: 'applyChildren', replicas: 6 }],
      },
      {
        name: 'runs the engine on a formed cluster whatever its pods (healing needs it)',
        c: { status: formed, pods: somePods(6, (i) => ({ ready: i !== 2 })) },
        kind: 'engine',
        steps: [{ kind: 'applyChildren', replicas: 6 }],
      },
      {
        name: 'keeps the leaving pods in the StatefulSet while a scale-in drains them',
        c: { status: formed, stsReplicas: 8, pods: somePods(8) },
        kind: 'engine',
        steps: [{ kind: 'applyChildren', replicas: 8 }],
      },
    ];
    for (const t of cases) {
      it(t.name, () => {
        const plan = planBeforeEngine(inputOf(t.c));
        expect(plan.kind).to.equal(t.kind);
        expect(plan.steps).to.deep.equal(t.steps);
        if (plan.kind !== 'stop') return;
        expect(shown(plan.outcome)).to.equal(t.outcome);
        if (t.summary) expect(plan.outcome.note?.summary).to.equal(t.summary);
        t.check?.(plan.status);
      });
    }
  });

  describe('planAfterEngine', () => {
    const converged = aPlan();
    const lostFor = (ms: number): Partial<ObservedPod> => ({ terminating: true, nodeLostSince: NOW - ms });
    /** Replica 3 is unreachable and every master marks it FAIL. */
    const replicaGone = aTopology(
      pods(6),
      threeByOne.map((s) => (s.pod === 3 ? { ...s, fail: true } : s)),
      { unreachable: [3] },
    );
    const cases: {
      name: string;
      c: Case;
      replicas?: number;
      plan?: ClusterPlan;
      topology?: Topology;
      applied?: Step[];
      rollout?: RolloutDecision;
      certificates?: CertificatePlan;
      steps: KubeStep[];
      outcome: string;
      check?: (status: RedisClusterStatus) => void;
    }[] = [
      {
        name: 'does nothing more and is done when the cluster is Ready',
        c: { status: formed },
        steps: [],
        outcome: 'done',
        check: (s) => expect(condition(s, 'Ready')?.status).to.equal('True'),
      },
      {
        name: 'records the node id of each pod whose claim does not hold it yet',
        c: { status: formed, claims: [aClaim(0, idOf(0)), aClaim(1), aClaim(2, 'stale')] },
        steps: [
          { kind: 'annotateClaim', claim: 'data-redis-1', nodeId: idOf(1) },
          { kind: 'annotateClaim', claim: 'data-redis-2', nodeId: idOf(2) },
        ],
        outcome: 'done',
      },
      {
        name: 'shrinks the StatefulSet once the engine has drained the leaving pods',
        c: { status: formed, stsReplicas: 8, pods: somePods(8) },
        replicas: 8,
        plan: aPlan({ removable: ['redis-6', 'redis-7'] }),
        steps: [{ kind: 'shrinkStatefulSet', replicas: 6, removed: 2 }],
        outcome: requeue(2_000),
      },
      {
        name: 'deletes a pod stuck on a lost node past the grace period once Redis holds it failed',
        c: { status: formed, pods: somePods(6, (i) => (i === 3 ? { ...lostFor(30_000), ready: false } : {})) },
        topology: replicaGone,
        steps: [{ kind: 'forceDeletePod', pod: 'redis-3' }],
        outcome: requeue(2_000),
      },
      {
        name: 'looks again at the end of the grace period even when Ready, a leaving pod being on a lost node',
        c: { status: formed, stsReplicas: 7, pods: [...somePods(6), aPod(6, lostFor(5_000))] },
        replicas: 7,
        steps: [{ kind: 'shrinkStatefulSet', replicas: 6, removed: 1 }],
        outcome: requeue(15_000),
        check: (s) => expect(condition(s, 'Ready')?.status).to.equal('True'),
      },
      {
        name: 'looks again soon after the engine applied steps',
        c: { status: formed },
        plan: aPlan({ phase: 'migrating', slotsToMove: 100 }),
        applied: [
          {
            kind: 'meet',
            from: { id: idOf(0), pod: 'redis-0', address: { ip: '127.9.0.1', port: 6379 } },
            to: { ip: '127.9.0.7', port: 6379 },
            reason: 'join',
          },
        ],
        steps: [],
        outcome: requeue(200),
      },
      {
        name: 'looks again when the engine asked, or earlier for a pod on a lost node',
        c: { status: formed, pods: somePods(6, (i) => (i === 3 ? { ...lostFor(19_700), ready: false } : {})) },
        plan: aPlan({ phase: 'joining' }),
        steps: [],
        outcome: requeue(300),
      },
      {
        name: 'reports a rolling update that waits, and looks again while it lasts',
        c: { status: formed },
        rollout: { kind: 'wait', reason: 'a pod is restarting', outdated: 2 },
        steps: [],
        outcome: requeue(2_000),
        check: (s) =>
          expect(s.operation).to.include({
            type: 'RollingUpdate',
            progress: 'rolling update: 2 pod(s) to restart, a pod is restarting',
          }),
      },
      {
        name: 'reports the next restart of a rolling update',
        c: { status: formed },
        rollout: { kind: 'restart', pod: 'redis-5', role: 'replica', outdated: 3 },
        steps: [],
        outcome: requeue(2_000),
        check: (s) => expect(s.operation?.progress).to.equal('rolling update: 3 pod(s) to restart'),
      },
      {
        name: 'reports a certificate reload some node has not picked up yet, and looks again soon',
        c: { status: formed },
        certificates: {
          reload: ['redis-1'],
          pending: true,
          progress: 'reloading TLS certificates: 5/6 nodes serve the renewed certificate',
        },
        steps: [],
        outcome: requeue(1_000),
        check: (s) =>
          expect(s.operation).to.include({
            type: 'ReloadCertificates',
            progress: 'reloading TLS certificates: 5/6 nodes serve the renewed certificate',
          }),
      },
      {
        name: 'reports healing while a pod of a formed cluster is not Ready',
        c: { status: formed, pods: somePods(6, (i) => ({ ready: i !== 4 })) },
        steps: [],
        outcome: requeue(2_000),
        check: (s) => expect(s.operation).to.include({ type: 'Heal', progress: '5/6 pods ready' }),
      },
      ...externalAccessCases(),
    ];
    for (const t of cases) {
      it(t.name, () => {
        const plan = planAfterEngine({
          ...inputOf(t.c),
          replicas: t.replicas ?? 6,
          pass: {
            plan: t.plan ?? converged,
            topology: t.topology ?? healthy(),
            applied: t.applied ?? [],
            rollout: t.rollout ?? { kind: 'none' },
            ...(t.certificates ? { certificates: t.certificates } : {}),
          },
        });
        expect(plan.steps).to.deep.equal(t.steps);
        expect(shown(plan.outcome)).to.equal(t.outcome);
        expect(plan.outcome.note?.status?.phase).to.equal(plan.status?.phase);
        if (plan.status) t.check?.(plan.status);
      });
    }
  });
});

/** spec.externalAccess: which of the nodes' Services go after the engine's pass. */
function externalAccessCases() {
  const six = ['redis-0', 'redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5'];
  const announcing = (pod: string): Topology => {
    const t = healthy();
    return {
      ...t,
      views: t.views.map((v) =>
        v.pod === pod ? { ...v, announcing: { ip: '10.0.0.1', port: 31000, busPort: 31001 } } : v,
      ),
    };
  };
  const all = six.map((p) => `${p}-external`);
  return [
    {
      name: 'deletes every external Service once external access is off and no node announces',
      c: { status: formed, externalServices: six },
      steps: [{ kind: 'deleteExternalServices', services: all }] as KubeStep[],
      outcome: 'done',
    },
    {
      name: 'keeps the external Services while a node still announces its address',
      c: { status: formed, externalServices: six },
      topology: announcing('redis-4'),
      steps: [],
      outcome: 'done',
    },
    {
      name: 'keeps the external Services while a running pod did not answer (it may still announce)',
      c: { status: formed, externalServices: six },
      topology: aTopology(pods(6), threeByOne, { unreachable: [3] }),
      steps: [],
      outcome: 'done',
    },
    {
      name: "deletes a removed pod's external Service once the pod is gone, keeping the others",
      c: { status: formed, externalAccess: { type: 'NodePort' as const }, externalServices: [...six, 'redis-6'] },
      topology: announcing('redis-0'),
      steps: [{ kind: 'deleteExternalServices', services: ['redis-6-external'] }] as KubeStep[],
      outcome: 'done',
    },
    {
      name: 'keeps every external Service the spec wants',
      c: { status: formed, externalAccess: { type: 'LoadBalancer' as const }, externalServices: six },
      steps: [],
      outcome: 'done',
    },
  ];
}
