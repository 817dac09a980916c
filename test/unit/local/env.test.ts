import { expect } from 'chai';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { expandReferences, referencedSources, resolveEnv, type EnvSources } from '../../../infra/local/kubelet/env.ts';

const pod: V1Pod = {
  metadata: { name: 'redis-0', namespace: 'shop', uid: 'u-1', labels: { app: 'redis' } },
  spec: { nodeName: 'local-node-2', serviceAccountName: 'sa', containers: [] },
};
const b64 = (s: string) => Buffer.from(s).toString('base64');

function sources(extra: Partial<EnvSources> = {}): EnvSources {
  return {
    pod,
    podIP: '127.9.1.4',
    hostIP: '127.9.0.2',
    configMaps: new Map([
      ['settings', { data: { maxmemory: '100mb', policy: 'allkeys-lru' } }],
      ['gone', null],
    ]),
    secrets: new Map([['auth', { data: { password: b64('s3cret') } }]]),
    ...extra,
  };
}

const container = (env: V1Container['env'], envFrom?: V1Container['envFrom']): V1Container => ({
  name: 'c',
  env,
  envFrom,
});

describe('infra/local/kubelet/env', function () {
  const fieldCases: [string, string][] = [
    ['metadata.name', 'redis-0'],
    ['metadata.namespace', 'shop'],
    ['metadata.uid', 'u-1'],
    ['spec.nodeName', 'local-node-2'],
    ['spec.serviceAccountName', 'sa'],
    ['status.podIP', '127.9.1.4'],
    ['status.hostIP', '127.9.0.2'],
    ["metadata.labels['app']", 'redis'],
  ];
  for (const [fieldPath, value] of fieldCases) {
    it(`resolves fieldRef ${fieldPath}`, function () {
      const result = resolveEnv(container([{ name: 'X', valueFrom: { fieldRef: { fieldPath } } }]), sources());
      expect(result).to.deep.equal({ ok: true, env: { X: value } });
    });
  }

  it('resolves configMapKeyRef and secretKeyRef, and expands $(VAR) references to earlier entries', function () {
    const result = resolveEnv(
      container([
        { name: 'MAXMEM', valueFrom: { configMapKeyRef: { name: 'settings', key: 'maxmemory' } } },
        { name: 'PASS', valueFrom: { secretKeyRef: { name: 'auth', key: 'password' } } },
        { name: 'ARGS', value: '--maxmemory $(MAXMEM) --x $(UNKNOWN) $$(MAXMEM)' },
      ]),
      sources(),
    );
    expect(result).to.deep.equal({
      ok: true,
      env: { MAXMEM: '100mb', PASS: 's3cret', ARGS: '--maxmemory 100mb --x $(UNKNOWN) $(MAXMEM)' },
    });
  });

  it('skips a missing optional key and fails on a missing required one without naming values', function () {
    const optional = resolveEnv(
      container([{ name: 'A', valueFrom: { secretKeyRef: { name: 'auth', key: 'nope', optional: true } } }]),
      sources(),
    );
    expect(optional).to.deep.equal({ ok: true, env: {} });
    const required = resolveEnv(
      container([{ name: 'A', valueFrom: { secretKeyRef: { name: 'auth', key: 'nope' } } }]),
      sources(),
    );
    expect(required).to.deep.equal({ ok: false, message: "couldn't find key nope in Secret shop/auth" });
    expect(JSON.stringify(required)).to.not.contain('s3cret');
    const missing = resolveEnv(
      container([{ name: 'A', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }]),
      sources(),
    );
    expect(missing).to.deep.equal({ ok: false, message: 'configmap "gone" not found' });
  });

  it('takes envFrom with its prefix, overridden by explicit env', function () {
    const result = resolveEnv(
      container(
        [{ name: 'CFG_policy', value: 'noeviction' }],
        [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }],
      ),
      sources(),
    );
    expect(result).to.deep.equal({ ok: true, env: { CFG_maxmemory: '100mb', CFG_policy: 'noeviction' } });
  });

  it('lists the ConfigMaps and Secrets containers refer to', function () {
    const refs = referencedSources([
      container(
        [{ name: 'A', valueFrom: { secretKeyRef: { name: 'auth', key: 'k' } } }],
        [{ configMapRef: { name: 'settings' } }],
      ),
    ]);
    expect([...refs.configMaps]).to.deep.equal(['settings']);
    expect([...refs.secrets]).to.deep.equal(['auth']);
  });

  it('expands nothing in text without references', function () {
    expect(expandReferences('plain $HOME', { HOME: 'x' })).to.equal('plain $HOME');
  });
});
