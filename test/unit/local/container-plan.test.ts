import { expect } from 'chai';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { planContainer } from '../../../infra/local/kubelet/container-plan.ts';

const container: V1Container = {
  name: 'redis',
  image: 'redis:7.2',
  command: ['sh', '-c', 'exec redis-server --port $(PORT)'],
  args: ['--dir', '$(DATA)', '$$(LITERAL)'],
  volumeMounts: [
    { name: 'conf', mountPath: '/conf', readOnly: true },
    { name: 'data', mountPath: '/data' },
  ],
};
const pod = (spec: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod => ({
  metadata: { name: 'redis-0', namespace: 'ns' },
  spec: { containers: [container], ...spec },
});
const mappings = [
  { mountPath: '/conf', hostPath: '/state/pods/u/volumes/conf' },
  { mountPath: '/data', hostPath: '/state/volumes/pvc-1' },
];
const env = { PORT: '6379', DATA: '/data' };

describe('the container plan of a pod container', () => {
  it('expands $(VAR) in command and args as a kubelet does, and keeps the environment', () => {
    const plan = planContainer({ pod: pod(), container, env, mappings });
    expect(plan.command).to.deep.equal(['sh', '-c', 'exec redis-server --port 6379']);
    expect(plan.args).to.deep.equal(['--dir', '/data', '$(LITERAL)']);
    expect(plan.env).to.deep.equal(env);
    expect(plan.image).to.equal('redis:7.2');
  });

  it('mounts each volume at its path, read-only only where the mount says so', () => {
    expect(planContainer({ pod: pod(), container, env, mappings }).mounts).to.deep.equal([
      { source: '/state/pods/u/volumes/conf', target: '/conf', readOnly: true },
      { source: '/state/volumes/pvc-1', target: '/data', readOnly: false },
    ]);
  });

  it("takes the pod's user, group, fsGroup and supplemental groups, the container's own settings winning", () => {
    const secured = pod({
      securityContext: { runAsUser: 999, runAsGroup: 999, fsGroup: 1001, supplementalGroups: [2000, 1001] },
    });
    expect(planContainer({ pod: secured, container, env, mappings })).to.include({ user: '999:999' });
    expect(planContainer({ pod: secured, container, env, mappings }).supplementalGroups).to.deep.equal([2000, 1001]);
    const own = { ...container, securityContext: { runAsUser: 1000 } };
    expect(planContainer({ pod: secured, container: own, env, mappings })).to.include({ user: '1000:999' });
    const userOnly = pod({ securityContext: { runAsUser: 5 } });
    expect(planContainer({ pod: userOnly, container, env, mappings })).to.include({ user: '5' });
  });

  it('applies the limits and the restricted settings the container asks for, and nothing it does not', () => {
    const restricted: V1Container = {
      ...container,
      resources: { limits: { memory: '128Mi', cpu: '500m' }, requests: { memory: '64Mi' } },
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
      },
    };
    expect(planContainer({ pod: pod(), container: restricted, env, mappings })).to.deep.include({
      memoryBytes: 128 * 2 ** 20,
      cpus: 0.5,
      readOnlyRootFilesystem: true,
      dropCapabilities: ['ALL'],
      addCapabilities: ['NET_BIND_SERVICE'],
      noNewPrivileges: true,
    });
    const plain = planContainer({ pod: pod(), container, env, mappings });
    for (const key of ['user', 'memoryBytes', 'cpus', 'readOnlyRootFilesystem', 'dropCapabilities', 'noNewPrivileges'])
      expect(plain, key).to.not.have.property(key);
  });
});
