import { expect } from 'chai';
import type { V1Container, V1StatefulSet } from '@kubernetes/client-node';
import { desiredChildren } from '../../../functions/reconcile/children.ts';
import type { TlsSpec } from '../../../shared/core/api/v1beta1.ts';
import { ANNOTATION_RESTART_HASH } from '../../../shared/core/resources/meta.ts';
import { redisServerArgs } from '../../../shared/core/resources/redis-command.ts';
import { effectiveConfig, liveSettable, renderRedisConf } from '../../../shared/core/resources/redis-conf.ts';
import { podCount } from '../../../shared/core/resources/statefulset.ts';
import { aRedisCluster } from '../reconcile/builders.ts';

const TLS: TlsSpec = { secretRef: { name: 'rc-tls' } };
const withTls = (tls?: TlsSpec) =>
  aRedisCluster()
    .withMasters(3)
    .with(tls ? { tls } : {});
const childrenOf = (b: ReturnType<typeof withTls>) => desiredChildren(b.build(), podCount(b.spec()));
const stsOf = (b: ReturnType<typeof withTls>) => childrenOf(b).find((c) => c.kind === 'StatefulSet') as V1StatefulSet;
const containers = (s: V1StatefulSet) => s.spec?.template.spec?.containers as V1Container[];
const redis = (s: V1StatefulSet) => containers(s)[0]!;
/** `--flag value` pairs of the arguments, for lookups. */
const argsOf = (tls?: TlsSpec) => {
  const args = redisServerArgs(tls);
  return (flag: string) => {
    const i = args.indexOf(flag);
    return i < 0 ? undefined : args[i + 1];
  };
};

describe('spec.tls: the pods and their redis-server', () => {
  const listeners: [string, TlsSpec | undefined, Record<string, string | undefined>][] = [
    ['without TLS, plaintext on 6379 only', undefined, { '--port': '6379', '--tls-port': undefined }],
    [
      'with TLS, TLS on 6379 and plaintext off',
      TLS,
      {
        '--port': '0',
        '--tls-port': '6379',
        '--tls-cert-file': '/etc/redis-tls/tls.crt',
        '--tls-key-file': '/etc/redis-tls/tls.key',
        '--tls-ca-cert-file': '/etc/redis-tls/ca.crt',
        '--tls-cluster': 'yes',
        '--tls-replication': 'yes',
      },
    ],
    ['with TLS and plaintext asked for, plaintext on 6380', { ...TLS, plaintext: true }, { '--port': '6380' }],
  ];
  for (const [what, tls, want] of listeners) {
    it(`listens ${what}`, () => {
      const arg = argsOf(tls);
      for (const [flag, value] of Object.entries(want)) expect(arg(flag), flag).to.equal(value);
    });
  }

  it("mounts the whole Secret read-only, so a renewal's new files reach the running node", () => {
    const s = stsOf(withTls(TLS));
    const volume = s.spec?.template.spec?.volumes?.find((v) => v.name === 'tls');
    expect(volume?.secret).to.deep.equal({ secretName: 'rc-tls', defaultMode: 0o440 });
    expect(redis(s).volumeMounts).to.deep.include({ name: 'tls', mountPath: '/etc/redis-tls', readOnly: true });
    expect(redis(s).command?.[2]).to.contain('--tls-port 6379');
    expect(stsOf(withTls()).spec?.template.spec?.volumes?.some((v) => v.name === 'tls')).to.equal(false);
  });

  it('probes readiness over TLS, verifying against the Secret’s CA', () => {
    const probe = redis(stsOf(withTls(TLS))).readinessProbe?.exec?.command?.[2];
    expect(probe).to.contain('redis-cli -h "$POD_IP" -p 6379 --tls --cacert /etc/redis-tls/ca.crt ping');
    expect(redis(stsOf(withTls())).readinessProbe?.exec?.command?.[2]).not.to.contain('--tls');
  });

  it('points the exporter at rediss:// with the CA mounted', () => {
    const s = stsOf(withTls(TLS).with({ exporter: { enabled: true } }));
    const exporter = containers(s).find((c) => c.name === 'exporter')!;
    expect(exporter.env).to.deep.include({ name: 'REDIS_ADDR', value: 'rediss://localhost:6379' });
    expect(exporter.env).to.deep.include({ name: 'REDIS_EXPORTER_TLS_CA_CERT_FILE', value: '/etc/redis-tls/ca.crt' });
    expect(exporter.volumeMounts).to.deep.equal([{ name: 'tls', mountPath: '/etc/redis-tls', readOnly: true }]);
  });

  it('asks no client certificate (clients use the password), and lets spec.config ask for one', () => {
    expect(effectiveConfig({}, TLS)['tls-auth-clients']).to.equal('optional');
    expect(liveSettable(effectiveConfig({}, TLS))).to.have.property('tls-auth-clients', 'optional');
    expect(effectiveConfig({ 'tls-auth-clients': 'yes' }, TLS)['tls-auth-clients']).to.equal('yes');
    expect(renderRedisConf(effectiveConfig({}))).not.to.contain('tls');
  });

  const restarts: [string, TlsSpec, boolean][] = [
    ['the same Secret', TLS, false],
    ['another Secret', { secretRef: { name: 'rc-tls-2' } }, true],
    ['the plaintext listener', { ...TLS, plaintext: true }, true],
  ];
  for (const [what, tls, rolls] of restarts) {
    it(`${rolls ? 'rolls' : 'does not roll'} the pods for ${what}`, () => {
      const hash = (t: TlsSpec) => stsOf(withTls(t)).spec?.template.metadata?.annotations?.[ANNOTATION_RESTART_HASH];
      if (rolls) expect(hash(tls)).not.to.equal(hash(TLS));
      else expect(hash(tls)).to.equal(hash(TLS));
    });
  }
});
