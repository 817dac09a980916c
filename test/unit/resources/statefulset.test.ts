import { expect } from 'chai';
import type { V1Container, V1StatefulSet } from '@kubernetes/client-node';
import { desiredChildren } from '../../../functions/reconcile/children.ts';
import { ANNOTATION_HASH, ANNOTATION_RESTART_HASH } from '../../../shared/core/resources/meta.ts';
import {
  desiredStatefulSet,
  imageOf,
  podCount,
  type StatefulSetInput,
} from '../../../shared/core/resources/statefulset.ts';
import { aRedisCluster } from '../reconcile/builders.ts';

type Builder = ReturnType<typeof aRedisCluster>;
const auth = { name: 'redis-auth', key: 'password', external: false };

function sts(builder: Builder, fields: Partial<StatefulSetInput> = {}): V1StatefulSet {
  return desiredStatefulSet({
    cluster: builder.owner(),
    spec: builder.spec(),
    auth,
    restartConfigHash: 'h0',
    replicas: podCount(builder.spec()),
    ...fields,
  });
}

/** The StatefulSet as the reconciler builds it, restart hash from the effective config included. */
function stsOfChildren(builder: Builder): V1StatefulSet {
  const children = desiredChildren(builder.build(), podCount(builder.spec()));
  return children.find((c) => c.kind === 'StatefulSet') as V1StatefulSet;
}

const container = (s: V1StatefulSet) => s.spec?.template.spec?.containers[0] as V1Container;
const restartHash = (s: V1StatefulSet) => s.spec?.template.metadata?.annotations?.[ANNOTATION_RESTART_HASH];
const desiredHash = (s: V1StatefulSet) => s.metadata?.annotations?.[ANNOTATION_HASH];

describe('statefulset', () => {
  describe('podCount', () => {
    const table: [number, number, number][] = [
      [3, 0, 3],
      [3, 1, 6],
      [6, 1, 12],
      [3, 2, 9],
      [1, 0, 1],
    ];
    for (const [masters, replicas, want] of table) {
      it(`is ${want} for ${masters} masters x ${replicas} replicas`, () => {
        expect(podCount(aRedisCluster().withMasters(masters).withReplicas(replicas).spec())).to.equal(want);
      });
    }
  });

  describe('desiredStatefulSet', () => {
    it('asks for the replicas it is given (more than the spec during scale-in)', () => {
      expect(sts(aRedisCluster().withMasters(3)).spec?.replicas).to.equal(6);
      expect(sts(aRedisCluster().withMasters(3), { replicas: 12 }).spec?.replicas).to.equal(12);
    });

    it('runs the image of spec.version, or spec.image when set', () => {
      expect(container(sts(aRedisCluster().withVersion('7.2'))).image).to.equal('redis:7.2');
      expect(container(sts(aRedisCluster().withVersion('7.2').withImage('registry.local/redis:7.2.4'))).image).to.equal(
        'registry.local/redis:7.2.4',
      );
      expect(imageOf(aRedisCluster().spec())).to.equal('redis:7.0');
    });

    it('updates OnDelete and starts pods in parallel, so the operator chooses the restart order', () => {
      const s = sts(aRedisCluster());
      expect(s.spec?.updateStrategy).to.deep.equal({ type: 'OnDelete' });
      expect(s.spec?.podManagementPolicy).to.equal('Parallel');
      expect(s.spec?.serviceName).to.equal('redis-nodes');
    });

    const retention: [string, 'Retain' | 'Delete' | undefined, string][] = [
      ['the default', undefined, 'Retain'],
      ['Retain', 'Retain', 'Retain'],
      ['Delete', 'Delete', 'Delete'],
    ];
    for (const [what, reclaim, want] of retention) {
      it(`keeps PVCs when deleted as storage.reclaim ${what} says (${want}), and always deletes a scaled-in pod's`, () => {
        const s = sts(aRedisCluster().withStorage(reclaim ? { reclaim } : {}));
        expect(s.spec?.persistentVolumeClaimRetentionPolicy).to.deep.equal({ whenDeleted: want, whenScaled: 'Delete' });
      });
    }

    it('claims storage.size of storage.className, or 1Gi of the default class', () => {
      const withClass = sts(aRedisCluster().withStorage({ className: 'fast', size: '5Gi' })).spec
        ?.volumeClaimTemplates?.[0]?.spec;
      expect(withClass?.storageClassName).to.equal('fast');
      expect(withClass?.resources?.requests).to.deep.equal({ storage: '5Gi' });
      const plain = sts(aRedisCluster()).spec?.volumeClaimTemplates?.[0]?.spec;
      expect(plain).to.not.have.property('storageClassName');
      expect(plain?.resources?.requests).to.deep.equal({ storage: '1Gi' });
    });

    it('reads the password from a file mounted from the Secret, never from a command line or a value', () => {
      const s = sts(aRedisCluster(), { auth: { name: 'my-secret', key: 'pw' } });
      const c = container(s);
      const secretVolume = s.spec?.template.spec?.volumes?.find((v) => v.secret);
      expect(secretVolume?.secret).to.deep.include({
        secretName: 'my-secret',
        items: [{ key: 'pw', path: 'password' }],
      });
      expect(c.volumeMounts?.find((m) => m.name === secretVolume?.name)).to.deep.include({
        mountPath: '/etc/redis-auth',
        readOnly: true,
      });
      expect((c.env ?? []).filter((e) => e.value !== undefined)).to.deep.equal([]);
      // Probes: redis-cli takes REDISCLI_AUTH from the Secret, by reference.
      expect(c.env?.find((e) => e.name === 'REDISCLI_AUTH')?.valueFrom?.secretKeyRef).to.deep.equal({
        name: 'my-secret',
        key: 'pw',
      });
      const commandLine = [...(c.command ?? []), ...(c.args ?? [])].join(' ');
      expect(commandLine).to.not.match(/\$\(REDIS|--requirepass|--masterauth|-a /);
      expect(commandLine).to.include('/etc/redis-auth/password');
      expect(JSON.stringify(c.readinessProbe)).to.not.match(/-a |--pass|requirepass/);
    });

    it('runs as non-root with what the restricted Pod Security Standard asks, spec.securityContext over it', () => {
      const pod = sts(aRedisCluster()).spec?.template.spec;
      expect(pod?.securityContext).to.deep.include({ runAsNonRoot: true, runAsUser: 999, fsGroup: 999 });
      expect(pod?.securityContext?.seccompProfile).to.deep.equal({ type: 'RuntimeDefault' });
      for (const c of sts(aRedisCluster().with({ exporter: { enabled: true } })).spec?.template.spec?.containers ??
        []) {
        expect(c.securityContext, c.name).to.deep.include({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
        });
        expect(c.securityContext?.capabilities, c.name).to.deep.equal({ drop: ['ALL'] });
      }
      const custom = sts(aRedisCluster().with({ securityContext: { runAsUser: 1001, supplementalGroups: [5] } }));
      expect(custom.spec?.template.spec?.securityContext).to.deep.include({
        runAsNonRoot: true,
        runAsUser: 1001,
        supplementalGroups: [5],
      });
    });

    it('passes priorityClassName, nodeSelector, tolerations, affinity and extra env through to the pods', () => {
      const spec = {
        priorityClassName: 'redis-high',
        nodeSelector: { disk: 'ssd' },
        tolerations: [{ key: 'dedicated', operator: 'Equal' as const, value: 'redis', effect: 'NoSchedule' as const }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In' as const, values: ['ssd'] }] }],
            },
          },
        },
        env: [
          { name: 'TZ', value: 'UTC' },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
      };
      const pod = sts(aRedisCluster().with(spec)).spec?.template.spec;
      expect(pod?.priorityClassName).to.equal('redis-high');
      expect(pod?.nodeSelector).to.deep.equal(spec.nodeSelector);
      expect(pod?.tolerations).to.deep.equal(spec.tolerations);
      expect(pod?.affinity?.nodeAffinity).to.deep.equal(spec.affinity.nodeAffinity);
      // The operator's spread stays beside the user's affinity (affinity.test.ts has the rule).
      expect(pod?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution).to.have.length(2);
      expect(pod?.containers[0]?.env).to.deep.include.members(spec.env);
    });

    it('changes the desired hash with the content and keeps it for the same content', () => {
      const base = sts(aRedisCluster());
      expect(desiredHash(base)).to.match(/^[0-9a-f]{16}$/);
      expect(desiredHash(sts(aRedisCluster()))).to.equal(desiredHash(base));
      expect(desiredHash(sts(aRedisCluster(), { replicas: 7 }))).to.not.equal(desiredHash(base));
      expect(desiredHash(sts(aRedisCluster().withStorage({ size: '2Gi' })))).to.not.equal(desiredHash(base));
    });
  });

  describe('the exporter logs in as the monitoring user', () => {
    const exporterOf = (s: V1StatefulSet) => s.spec?.template.spec?.containers.find((c) => c.name === 'exporter');
    const envOf = (c: V1Container | undefined) => Object.fromEntries((c?.env ?? []).map((e) => [e.name, e]));
    const withExporter = () => aRedisCluster().with({ exporter: { enabled: true } });

    it("as the reconciler builds it: user knredis-monitor, its password from <name>-monitor, never the cluster's", () => {
      const env = envOf(exporterOf(stsOfChildren(withExporter())));
      expect(env.REDIS_USER?.value).to.equal('knredis-monitor');
      const name = withExporter().owner().metadata.name;
      expect(env.REDIS_PASSWORD?.valueFrom?.secretKeyRef).to.deep.equal({ name: `${name}-monitor`, key: 'password' });
      // CONFIG GET prints requirepass and masterauth: the exporter does not run it.
      expect(env.REDIS_EXPORTER_CONFIG_COMMAND?.value).to.equal('-');
      const refs = Object.values(env).flatMap((e) =>
        e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [],
      );
      expect(refs).to.deep.equal([`${name}-monitor`]);
    });

    it('gives the redis container the hash of the monitoring password only, from the same Secret', () => {
      const s = stsOfChildren(withExporter());
      const name = withExporter().owner().metadata.name;
      const env = envOf(container(s));
      expect(env.MONITOR_PASSWORD_SHA256?.valueFrom?.secretKeyRef).to.deep.equal({
        name: `${name}-monitor`,
        key: 'password-sha256',
      });
      const fromMonitor = container(s).env?.filter((e) => e.valueFrom?.secretKeyRef?.name === `${name}-monitor`);
      expect(fromMonitor?.map((e) => e.valueFrom?.secretKeyRef?.key)).to.deep.equal(['password-sha256']);
    });

    it('logs in with the password in force when no monitoring Secret is given', () => {
      const env = envOf(exporterOf(sts(withExporter())));
      expect(env.REDIS_USER).to.equal(undefined);
      expect(env.REDIS_PASSWORD?.valueFrom?.secretKeyRef).to.deep.equal({ name: 'redis-auth', key: 'password' });
      expect(envOf(container(sts(withExporter()))).MONITOR_PASSWORD_SHA256).to.equal(undefined);
    });
  });

  describe('restart hash on the pod template', () => {
    const base = aRedisCluster().withConfig({ maxmemory: '100mb' });
    const table: [string, Builder, boolean][] = [
      ['nothing changes', aRedisCluster().withConfig({ maxmemory: '100mb' }), false],
      ['a live-settable key changes', aRedisCluster().withConfig({ maxmemory: '200mb' }), false],
      [
        'a live-settable key is added',
        aRedisCluster().withConfig({ maxmemory: '100mb', 'maxmemory-policy': 'allkeys-lru' }),
        false,
      ],
      ['the number of pods changes', aRedisCluster().withConfig({ maxmemory: '100mb' }).withMasters(6), false],
      ['the version changes', aRedisCluster().withConfig({ maxmemory: '100mb' }).withVersion('7.2'), true],
      ['the image changes', aRedisCluster().withConfig({ maxmemory: '100mb' }).withImage('redis:7.0.15'), true],
      ['a restart-only key is added', aRedisCluster().withConfig({ maxmemory: '100mb', databases: '4' }), true],
      [
        'a restart-only key is added in upper case',
        aRedisCluster().withConfig({ maxmemory: '100mb', DATABASES: '4' }),
        true,
      ],
    ];
    for (const [what, other, changes] of table) {
      it(`${changes ? 'changes' : 'stays'} when ${what}`, () => {
        const a = restartHash(stsOfChildren(base));
        const b = restartHash(stsOfChildren(other));
        expect(a).to.be.a('string');
        if (changes) expect(b).to.not.equal(a);
        else expect(b).to.equal(a);
      });
    }

    const podSettings: [string, object][] = [
      ['priorityClassName', { priorityClassName: 'high' }],
      ['securityContext', { securityContext: { runAsUser: 1001 } }],
      ['env', { env: [{ name: 'TZ', value: 'UTC' }] }],
    ];
    for (const [what, spec] of podSettings) {
      it(`changes when ${what} is set`, () => {
        expect(restartHash(sts(aRedisCluster().with(spec)))).to.not.equal(restartHash(sts(aRedisCluster())));
      });
    }

    it('changes when the Secret the pods read the password from changes', () => {
      const a = sts(aRedisCluster(), { auth: { name: 'one', key: 'password' } });
      const b = sts(aRedisCluster(), { auth: { name: 'two', key: 'password' } });
      expect(restartHash(b)).to.not.equal(restartHash(a));
    });
  });
});
