import { expect } from 'chai';
import type { V1Container } from '@kubernetes/client-node';
import {
  imageFamily,
  planExec,
  planProcess,
  podLocalhost,
  redisEntrypoint,
  type PlanInput,
} from '../../../infra/local/kubelet/process-plan.ts';

function input(container: Partial<V1Container>, extra: Partial<PlanInput> = {}): PlanInput {
  return {
    container: { name: 'redis', image: 'redis:7.2', ...container },
    podIP: '127.9.1.1',
    env: { POD_IP: '127.9.1.1' },
    mappings: [
      { mountPath: '/data', hostPath: '/h/pv' },
      { mountPath: '/conf', hostPath: '/h/conf' },
    ],
    rootDir: '/h/rootfs/redis',
    shimDir: '/h/bin',
    hostPath: '/usr/bin',
    ...extra,
  };
}

describe('infra/local/kubelet/process-plan', function () {
  const images: [string, string | undefined][] = [
    ['redis', 'redis'],
    ['redis:7.2', 'redis'],
    ['docker.io/library/redis:7', 'redis'],
    ['bitnami/redis:7.2', 'redis'],
    ['redis@sha256:abc', 'redis'],
    ['localhost:5000/redis:7', 'redis'],
    ['busybox:1.36', 'shell'],
    ['alpine', 'shell'],
    ['nginx:1.27', undefined],
    ['redis-exporter:1', undefined],
    ['oliver006/redis_exporter:v1.62.0', 'exporter'],
    ['quay.io/oliver006/redis_exporter@sha256:abc', 'exporter'],
    ['myredis:7', undefined],
  ];
  for (const [image, family] of images) {
    it(`sees image ${image} as ${family ?? 'not runnable'}`, function () {
      expect(imageFamily(image)).to.equal(family);
    });
  }

  const entrypoints: [string[], string[], string[]][] = [
    [[], [], ['redis-server']],
    [[], ['--appendonly', 'yes'], ['redis-server', '--appendonly', 'yes']],
    [[], ['/conf/redis.conf'], ['redis-server', '/conf/redis.conf']],
    [['redis-server'], ['/conf/redis.conf'], ['redis-server', '/conf/redis.conf']],
    [['docker-entrypoint.sh'], ['--port', '7000'], ['redis-server', '--port', '7000']],
    [['sh', '-c'], ['echo hi'], ['sh', '-c', 'echo hi']],
  ];
  for (const [command, args, argv] of entrypoints) {
    it(`runs command ${JSON.stringify(command)} args ${JSON.stringify(args)} as ${argv.join(' ')}`, function () {
      expect(redisEntrypoint(command, args)).to.deep.equal(argv);
    });
  }

  it('binds redis-server to the pod IP, maps volume paths and expands $(VAR), in the volume at /data', function () {
    const result = planProcess(
      input({ args: ['/conf/redis.conf', '--cluster-announce-ip', '$(POD_IP)'], volumeMounts: [] }),
    );
    expect(result).to.deep.include({ ok: true });
    if (!result.ok) return;
    expect(result.plan.program).to.equal('redis-server');
    expect(result.plan.args).to.deep.equal([
      '/h/conf/redis.conf',
      '--cluster-announce-ip',
      '127.9.1.1',
      '--bind',
      '127.9.1.1',
      '--bind-source-addr',
      '127.9.1.1',
      '--daemonize',
      'no',
    ]);
    expect(result.plan.cwd).to.equal('/h/pv');
    expect(result.plan.env.PATH).to.equal('/h/bin:/usr/bin');
    expect(result.plan.env.KNREDIS_POD_IP).to.equal('127.9.1.1');
  });

  it('runs a shell init container with paths rewritten inside its script', function () {
    const result = planProcess(
      input({ image: 'busybox', command: ['sh', '-c', 'cp /conf/a /data/a'], workingDir: '/work' }),
    );
    expect(result.ok && result.plan).to.deep.include({
      program: 'sh',
      args: ['-c', 'cp /h/conf/a /h/pv/a'],
      cwd: '/h/rootfs/redis/work',
    });
  });

  it('refuses an image it cannot run with a message naming the images that run', function () {
    const result = planProcess(input({ image: 'nginx:1.27' }));
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.reason).to.equal('ImageNotRunnableLocally');
    expect(result.message).to.contain('nginx:1.27').and.contain('redis');
  });

  it('refuses a command a Redis image would have but the host cannot stand in for', function () {
    const result = planProcess(input({ command: ['python3', 'app.py'] }));
    expect(result.ok).to.equal(false);
    expect(!result.ok && result.message).to.contain('python3');
  });

  // [text, as the pod's process sees it]
  const localhosts: [string, string][] = [
    ['redis://localhost:6379', 'redis://127.9.1.1:6379'],
    ['rediss://user@localhost:6379/0', 'rediss://user@127.9.1.1:6379/0'],
    ['localhost:9121', '127.9.1.1:9121'],
    ['localhost', '127.9.1.1'],
    ['--host=localhost', '--host=127.9.1.1'],
    ['redis-cli -h localhost ping', 'redis-cli -h 127.9.1.1 ping'],
    ['a,localhost:1', 'a,127.9.1.1:1'],
    ['mylocalhost:1', 'mylocalhost:1'],
    ['localhost.example.com', 'localhost.example.com'],
    ['/etc/localhost/file', '/etc/localhost/file'],
    ['http://example.com/localhost', 'http://example.com/localhost'],
  ];
  for (const [text, seen] of localhosts) {
    it(`sees ${text} as ${seen} inside the pod`, function () {
      expect(podLocalhost(text, '127.9.1.1')).to.equal(seen);
    });
  }

  const exporter = (container: Partial<V1Container>, extra: Partial<PlanInput> = {}) =>
    planProcess(
      input(
        { name: 'exporter', image: 'oliver006/redis_exporter:v1.62.0', ...container },
        {
          env: { REDIS_ADDR: 'redis://localhost:6379', REDIS_PASSWORD: 'pw' },
          redisExporter: '/c/redis_exporter',
          ...extra,
        },
      ),
    );

  it('runs the redis_exporter image as the built binary, on the pod IP at the container port, reaching its own pod as localhost', function () {
    const result = exporter({ ports: [{ name: 'metrics', containerPort: 9121 }] });
    expect(result.ok && result.plan).to.deep.include({
      program: '/c/redis_exporter',
      args: ['--web.listen-address=127.9.1.1:9121'],
      cwd: '/h/rootfs/redis',
    });
    expect(result.ok && result.plan.env).to.deep.include({
      REDIS_ADDR: 'redis://127.9.1.1:6379',
      REDIS_PASSWORD: 'pw',
    });
  });

  it("keeps the exporter's own arguments, listening where its container port says", function () {
    const result = exporter({
      command: ['/redis_exporter'],
      args: ['--redis.addr', 'redis://localhost:7000'],
      ports: [{ containerPort: 9200 }],
    });
    expect(result.ok && result.plan.args).to.deep.equal([
      '--redis.addr',
      'redis://127.9.1.1:7000',
      '--web.listen-address=127.9.1.1:9200',
    ]);
  });

  it("listens on the image's port 9121 when the container names none", function () {
    const result = exporter({});
    expect(result.ok && result.plan.args).to.deep.equal(['--web.listen-address=127.9.1.1:9121']);
  });

  it('says how to build redis_exporter when it is not built', function () {
    const result = exporter({}, { redisExporter: undefined });
    expect(result.ok).to.equal(false);
    expect(!result.ok && result.message).to.contain('infra/local/build-exporter.sh');
  });

  it('refuses another program in the redis_exporter image', function () {
    const result = exporter({ command: ['sh', '-c', 'true'] });
    expect(!result.ok && result.message).to.contain('"sh" is not available');
  });

  it('plans an exec probe with the container environment and mapped paths', function () {
    const result = planProcess(input({}));
    if (!result.ok) throw new Error('planned');
    const exec = planExec(['redis-cli', '-h', '$(POD_IP)', '--rdb', '/data/dump.rdb'], result.plan, input({}).mappings);
    expect(exec).to.deep.include({ program: 'redis-cli', args: ['-h', '127.9.1.1', '--rdb', '/h/pv/dump.rdb'] });
  });
});
