import { expect } from 'chai';
import { runArgs, type ContainerSpec } from '../../../infra/local/kubelet/podman-runtime.ts';

const base: ContainerSpec = {
  name: 'env_ns_redis-0_redis',
  sandbox: 'env_ns_redis-0',
  image: 'redis:7.2',
  env: {},
  mounts: [],
  labels: { 'knredis.env': 'env' },
  logFile: '/state/pods/uid/logs/redis.log',
};

/** The value after each occurrence of a flag. */
const valuesOf = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

describe('the podman arguments of a pod container', () => {
  it('runs the image with its own entry point and the args after it when the pod names no command', () => {
    const args = runArgs({ ...base, args: ['--port', '6379'] });
    expect(args).to.not.include('--entrypoint');
    expect(args.slice(-3)).to.deep.equal(['redis:7.2', '--port', '6379']);
    expect(valuesOf(args, '--pod')).to.deep.equal(['env_ns_redis-0']);
    expect(valuesOf(args, '--log-opt')).to.deep.equal(['path=/state/pods/uid/logs/redis.log']);
  });

  it("replaces the entry point with the command's first word, the rest and the args following the image", () => {
    const args = runArgs({ ...base, command: ['sh', '-c', 'exec redis-server "$@"', 'redis'], args: ['--save', ''] });
    expect(valuesOf(args, '--entrypoint')).to.deep.equal(['["sh"]']);
    expect(args.slice(args.indexOf('redis:7.2'))).to.deep.equal([
      'redis:7.2',
      '-c',
      'exec redis-server "$@"',
      'redis',
      '--save',
      '',
    ]);
  });

  it('passes env, mounts (read-only where asked), user, groups and limits, each as its own argument', () => {
    const args = runArgs({
      ...base,
      env: { A: 'x y', PASSWORD_FILE: '/auth/password' },
      mounts: [
        { source: '/state/pods/uid/volumes/conf', target: '/conf', readOnly: true },
        { source: '/state/volumes/pvc-1', target: '/data', readOnly: false },
      ],
      user: '999:999',
      supplementalGroups: [1000],
      memoryBytes: 268435456,
      cpus: 0.5,
      readOnlyRootFilesystem: true,
      dropCapabilities: ['ALL'],
      noNewPrivileges: true,
    });
    expect(valuesOf(args, '--env')).to.deep.equal(['A=x y', 'PASSWORD_FILE=/auth/password']);
    expect(valuesOf(args, '--volume')).to.deep.equal([
      '/state/pods/uid/volumes/conf:/conf:ro',
      '/state/volumes/pvc-1:/data:rw',
    ]);
    expect(valuesOf(args, '--user')).to.deep.equal(['999:999']);
    expect(valuesOf(args, '--group-add')).to.deep.equal(['1000']);
    // No swap beyond the limit, as a kubelet sets it.
    expect(valuesOf(args, '--memory')).to.deep.equal(['268435456']);
    expect(valuesOf(args, '--memory-swap')).to.deep.equal(['268435456']);
    expect(valuesOf(args, '--cpus')).to.deep.equal(['0.5']);
    expect(args).to.include('--read-only');
    expect(valuesOf(args, '--cap-drop')).to.deep.equal(['ALL']);
    expect(valuesOf(args, '--security-opt')).to.deep.equal(['no-new-privileges']);
  });

  it('adds no limit, user or security option the spec does not ask for', () => {
    const args = runArgs(base);
    for (const flag of ['--memory', '--cpus', '--user', '--read-only', '--cap-drop', '--security-opt', '--workdir'])
      expect(args, flag).to.not.include(flag);
  });
});
