// The built-in event source when its sink is not there yet, or answers 503: the real event
// source, API server, ingest function and queue Redis; the events reach the queue in the end.
import { expect } from 'chai';
import express from 'express';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { freePort, startRedis, type RedisServer } from '../../support/redis-server.ts';
import { createHttpApp } from '../../../shared/io/express-app.ts';
import { listen, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';
import { API_VERSION_V1BETA1, KIND } from '../../../shared/core/api/group.ts';
import { start as startEventSource } from '../../../functions/event-source/index.ts';
import { start as startIngest } from '../../../functions/ingest/index.ts';
import { readConfig, type Config } from '../../../functions/start-config.ts';
import { senderTokenFile, type SenderToken } from '../../support/sender-token.ts';
import type { RunningFunction } from '../../../functions/function-context.ts';
import { uniqueNames } from './harness.ts';

describe('event source and an absent or busy sink', function () {
  this.timeout(180_000);
  const names = uniqueNames('es-sink');
  let api: InstalledApi;
  let ns: string;
  let redis: RedisServer | undefined;
  let redisDir: string;
  let config: Config;
  let queue: Queue;
  let source: RunningFunction | undefined;
  let ingest: RunningFunction | undefined;
  let server: Listening | undefined;
  let token: SenderToken | undefined;
  const logLines: { msg?: string; subject?: string; status?: number }[] = [];

  before(async () => {
    api = await installApi('knredis-event-source-sink-test');
    ns = await api.namespace(`ess-${randomUUID().slice(0, 6)}`);
    redisDir = await mkdtemp(join(tmpdir(), 'knredis-es-sink-'));
    redis = await startRedis({ dir: redisDir });
    const sinkPort = await freePort();
    token = await senderTokenFile(api.env);
    config = readConfig({
      EVENT_SOURCE_TOKEN_FILE: token.path,
      K_SINK: `http://127.0.0.1:${sinkPort}/`,
      KUBECONFIG: api.env.kubeconfigPath,
      WATCH_NAMESPACE: ns,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: names.prefix,
      QUEUE_NAME: names.queue,
      INGEST_RETRY_AFTER_S: '1',
      PORT: String(sinkPort),
    });
    queue = new Queue(names.queue, {
      connection: { host: redis.host, port: redis.port, maxRetriesPerRequest: null },
      prefix: names.prefix,
    });
    queue.on('error', () => {});
  });
  after(async () => {
    await source?.close();
    await server?.close();
    await ingest?.close();
    await queue?.close();
    await redis?.stop();
    await rm(redisDir, { recursive: true, force: true });
    token?.remove();
    await api?.stop();
  });

  const cluster = (name: string) => ({
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    metadata: { name, namespace: ns },
    spec: { masters: 3 },
  });
  const queuedKeys = async () =>
    (await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed'])).map(
      (job) => job?.data?.key as string,
    );
  const attempts = (name: string, msg: RegExp, status?: number) =>
    logLines.filter(
      (l) =>
        l.subject?.endsWith(`/redisclusters/${name}`) &&
        msg.test(l.msg ?? '') &&
        (status === undefined || l.status === status),
    ).length;

  it('delivers the events once ingest starts listening on the port where nothing listened', async () => {
    const destination = new Writable({
      write(chunk, _enc, done) {
        logLines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const log = createLogger({ level: 'debug', destination });
    source = await startEventSource({
      config,
      log,
      expressApp: async () => express(),
      registry: createRegistry({ defaultMetrics: false }),
      env: {},
      addProbe: () => {},
      serveDirect: () => {},
    });
    await api.objects.create(cluster('early'));
    await api.env.waitFor(() => attempts('early', /sink unreachable/) >= 2, {
      what: 'two failed deliveries of the add of early',
    });

    const app = createHttpApp({});
    const direct = new Map<`${string} /${string}`, RequestListener>();
    ingest = await startIngest({
      config,
      log: createLogger({ level: 'silent' }),
      expressApp: async () => app,
      registry: createRegistry({ defaultMetrics: false }),
      env: {},
      addProbe: () => {},
      serveDirect: (route, handler) => direct.set(route, handler),
    });
    server = await listen(app, config.port, '127.0.0.1', direct);
    await api.env.waitFor(async () => (await queuedKeys()).includes(`${ns}/early`), {
      what: `${ns}/early in the queue`,
    });
  });

  it("retries the 503 ingest answers while the queue's Redis is down, and delivers once it is back", async () => {
    const port = redis!.port;
    await redis!.kill();
    await api.objects.create(cluster('during'));
    await api.env.waitFor(() => attempts('during', /sink busy/, 503) >= 2, {
      what: 'two 503 answers to the add of during',
    });
    expect(attempts('during', /refused|dropped/)).to.equal(0);

    redis = await startRedis({ port, dir: redisDir });
    await api.env.waitFor(async () => (await queuedKeys()).includes(`${ns}/during`), {
      what: `${ns}/during in the queue`,
      timeout: 90_000,
    });
  });
});
