import { expect } from 'chai';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { defaultBackoff } from '../../../shared/core/queue/backoff.ts';
import { createLogger } from '../../../shared/io/log.ts';
import type { QueueClient } from '../../../shared/io/queue/connection.ts';
import { readConfig } from '../../../functions/start-config.ts';
import { startWorker, type RunningWorker } from '../../../functions/reconcile/worker.ts';
import { readRuns, recordingReconcile } from './recording.ts';
import { serveIngest, uniqueNames, until } from './harness.ts';
import { startQueueRedis, type QueueRedisServer } from './queue-redis.ts';

const log = createLogger({ level: 'silent' });

// The functions as `npm start` wires them, told where the queue is by their environment alone.
for (const mode of ['cluster', 'sentinel'] as const)
  describe(`ingest and the reconcile worker on a queue from the environment (${mode})`, function () {
    this.timeout(120_000);
    let redis: QueueRedisServer;
    let client: QueueClient;
    let ingest: { url: string; close(): Promise<void> } | undefined;
    let worker: RunningWorker | undefined;

    before(async () => {
      redis = await startQueueRedis(mode, 45);
      client = redis.client();
    });
    after(async () => {
      await ingest?.close();
      await worker?.close();
      client?.disconnect();
      await redis?.stop();
    });

    it('queues what ingest accepts under the configured prefix and runs it', async () => {
      const names = uniqueNames('config');
      // Who may post is ingest-auth.test.ts' subject; here, where the queue is.
      const config = readConfig({
        ...redis.env,
        QUEUE_PREFIX: names.prefix,
        QUEUE_NAME: names.queue,
        INGEST_AUTH: 'none',
      });
      expect(config.queue.prefix).to.equal(mode === 'cluster' ? `{${names.prefix}}` : names.prefix);
      ingest = await serveIngest(config, log);
      const { data, ...attributes } = eventAttributes(
        { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: 'ns', name: 'a' } },
        'update',
      );
      const message = HTTP.binary(new CloudEvent({ id: 'e1', source: 'test', ...attributes, data }));
      const res = await fetch(ingest.url + '/', {
        method: 'POST',
        headers: message.headers as Record<string, string>,
        body: String(message.body),
      });
      expect(res.status).to.equal(202);
      worker = await startWorker({
        reconcile: recordingReconcile(client, names.list, { runMs: 1 }),
        listKeys: async () => [],
        redis: config.queueRedis!,
        names: { prefix: config.queue.prefix, queue: config.queue.name },
        settings: { ...config.worker, backoff: defaultBackoff },
        log,
      });
      const runs = await until(
        'the run of ns/a',
        () => readRuns(client, names.list),
        (r) => r.some((run) => run.end !== undefined),
      );
      expect(runs.map((r) => r.key)).to.deep.equal(['ns/a']);
      const queued = await client.exists(`${config.queue.prefix}:${config.queue.name}:meta`);
      expect(queued, "the queue's keys are under the configured prefix").to.equal(1);
    });
  });
