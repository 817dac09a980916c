// The knredis image as users run it: built by `npm run image` from infra/Dockerfile, run by
// podman (runc) as the image's user, against a real redis-server on the host (the containers
// share the host's network: test/support/knredis-image.ts says why). No API server runs here:
// the kubeconfig names an unreachable one, which neither a resource-mode event to ingest nor
// reconcile's start and health probe waits for.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { freePort, startRedis, type RedisServer } from '../../support/redis-server.ts';
import { unreachableKubeconfig } from '../../support/unreachable-kubeconfig.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  KNREDIS_IMAGE,
  podman,
  requireKnredisImage,
  runInImage,
  startContainer,
  type Container,
} from '../../support/knredis-image.ts';
import { uniqueNames } from '../pipeline/harness.ts';

function clusterEvent(namespace: string, name: string) {
  const { data, ...attributes } = eventAttributes(
    { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace, name } },
    'update',
  );
  return HTTP.binary(new CloudEvent({ id: `${name}-1`, source: 'https://127.0.0.1:6443', ...attributes, data }));
}

/** The user (real uid) of the container's first process: the function, not a shell exec'd beside it. */
async function uidOfFirstProcess(container: Container): Promise<string | undefined> {
  const status = await podman('exec', container.name, 'cat', '/proc/1/status');
  return /^Uid:\s+(\d+)/m.exec(status)?.[1];
}

describe('the knredis image', function () {
  this.timeout(120_000);
  let dir: string;
  let redis: RedisServer;
  const containers: Container[] = [];

  before(async function () {
    await requireKnredisImage();
    dir = await mkdtemp(join(tmpdir(), 'knredis-image-'));
    await writeFile(join(dir, 'kubeconfig'), unreachableKubeconfig, { mode: 0o644 });
    redis = await startRedis();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      for (const c of containers) console.error(`--- ${c.name}:\n${await c.logs().catch((e: Error) => e.message)}`);
    }
    await Promise.all(containers.splice(0).map((c) => c.remove()));
  });
  after(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Starts the named functions in a container, on a free port of the host's loopback. */
  async function startFunctions(names: string[], env: Record<string, string>) {
    const port = await freePort();
    const container = await startContainer({
      args: names,
      env: { HOST: '127.0.0.1', PORT: String(port), KUBECONFIG: '/kube/config', REDIS_URL: redis.url, ...env },
      mounts: { [join(dir, 'kubeconfig')]: '/kube/config' },
    });
    containers.push(container);
    return { container, url: `http://127.0.0.1:${port}` };
  }

  it('holds the bundle, runs as user 1000, and has no TypeScript sources and no tsx', async function () {
    const user = await podman('image', 'inspect', '--format', '{{.Config.User}}', KNREDIS_IMAGE);
    expect(user).to.equal('1000:1000');
    // Libraries may ship their own .ts files (ajv does); the project's sources must not be there,
    // nor tsx, which runs them, nor esbuild, which bundled them, nor typescript (valibot, of
    // bull-board, names it as an optional peer; infra/build/prune-runtime-deps.mjs leaves it out).
    const look = [
      'id -u',
      'ls -A /app',
      "find /app -path /app/node_modules -prune -o \\( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \\) -print",
      'ls -d /app/node_modules/tsx /app/node_modules/esbuild /app/node_modules/typescript 2>/dev/null',
      'command -v tsx',
      'true',
    ];
    const seen = await runInImage('sh', '-c', look.join('; '));
    expect(seen.split('\n')).to.deep.equal(['1000', 'dist', 'node_modules', 'package.json']);
  });

  it('ingest answers 202 to a CloudEvent and the key is queued in Redis', async function () {
    const names = uniqueNames('image');
    const { container, url } = await startFunctions(['ingest'], {
      QUEUE_PREFIX: names.prefix,
      QUEUE_NAME: names.queue,
      // Senders are not this test's subject (test/integration/pipeline/ingest-auth.test.ts).
      INGEST_AUTH: 'none',
    });
    const message = clusterEvent('image', 'c1');
    // Refused connections (not listening yet) count as not yet; any answer ends the wait.
    const status = await waitFor(
      () =>
        fetch(url + '/', {
          method: 'POST',
          headers: message.headers as Record<string, string>,
          body: String(message.body),
        }).then((res) => res.status),
      { what: `ingest in ${container.name} answering at ${url}` },
    );
    expect(status).to.equal(202);
    expect(await uidOfFirstProcess(container)).to.equal('1000');
    // The probes and /metrics of a process without express (ingest alone does not load it).
    const ready = await fetch(url + '/readyz');
    expect([ready.status, await ready.json()]).to.deep.equal([200, { status: 'ready', failing: [] }]);
    expect(await (await fetch(url + '/metrics')).text()).to.match(/^workqueue_adds_total\{name="[^"]+"\} 1$/m);
    const stray = await fetch(url + '/nothing-here');
    expect([stray.status, await stray.json()]).to.deep.equal([
      404,
      { error: 'not-found', reason: 'no route for GET /nothing-here' },
    ]);

    const queue = new Queue(names.queue, { connection: { host: redis.host, port: redis.port }, prefix: names.prefix });
    try {
      const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed']);
      expect(jobs.map((job) => (job.data as { key: string }).key)).to.deep.equal(['image/c1']);
    } finally {
      await queue.close();
    }
  });

  it('reconcile starts and answers its liveness probe (/healthz)', async function () {
    const names = uniqueNames('image');
    const { container, url } = await startFunctions(['reconcile'], {
      QUEUE_PREFIX: names.prefix,
      QUEUE_NAME: names.queue,
    });
    const res = await waitFor(() => fetch(url + '/healthz'), { what: `/healthz of ${container.name}` });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
    expect(await uidOfFirstProcess(container)).to.equal('1000');
    expect(await container.running()).to.equal(true);
  });

  it('the dashboard serves bull-board, its UI files and its queue API from the pruned node_modules, behind its token', async function () {
    const names = uniqueNames('image');
    const token = 'image-dashboard-token';
    const { container, url } = await startFunctions(['dashboard'], {
      QUEUE_PREFIX: names.prefix,
      QUEUE_NAME: names.queue,
      DASHBOARD_TOKEN: token,
    });
    const get = (path: string, auth = true) =>
      fetch(url + path, auth ? { headers: { authorization: `Bearer ${token}` } } : {});
    const page = await waitFor(() => get('/admin/queues'), { what: `the dashboard of ${container.name}` });
    expect(page.status).to.equal(200);
    const html = await page.text();
    // the page names its files relative to <base href="/admin/queues/">
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => `/admin/queues/${m[1]!}`);
    expect(assets, html.slice(0, 500)).to.not.deep.equal([]);
    for (const asset of assets) expect((await get(asset)).status, asset).to.equal(200);
    // bull-board's BullMQ adapter requires bullmq from node_modules: the queue API answers
    const api = await get('/admin/queues/api/queues');
    expect(api.status).to.equal(200);
    const queues = ((await api.json()) as { queues: { name: string }[] }).queues.map((q) => q.name);
    expect(queues).to.include(names.queue);
    expect((await get('/admin/queues', false)).status).to.equal(401);
    // A path no route takes: the same JSON 404 as a process without express.
    const stray = await get('/nothing-here', false);
    expect([stray.status, await stray.json()]).to.deep.equal([
      404,
      { error: 'not-found', reason: 'no route for GET /nothing-here' },
    ]);
  });
});
