// The queue's master fails over under a running ingest: adds the old master acknowledged may
// not have reached the replica (202 sent, the event lost), so ingest owes a resync and queues
// it on the new master, with no event refused to make it owe one.
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { createLogger } from '../../../shared/io/log.ts';
import type { QueueClient } from '../../../shared/io/queue/connection.ts';
import { queueKeys } from '../../../shared/io/queue/keys.ts';
import { resyncJobName } from '../../../shared/io/queue/job-options.ts';
import { readConfig } from '../../../functions/start-config.ts';
import { serveIngest, uniqueNames, until } from './harness.ts';
import { startQueueRedis, type QueueRedisServer } from './queue-redis.ts';

const log = createLogger({ level: 'silent' });

for (const mode of ['sentinel', 'cluster'] as const)
  describe(`ingest through a failover of the queue's master (${mode})`, function () {
    this.timeout(240_000);
    let redis: QueueRedisServer;
    let ingest: Awaited<ReturnType<typeof serveIngest>> | undefined;
    let queue: Queue | undefined;
    let client: QueueClient | undefined;

    before(async () => {
      redis = await startQueueRedis(mode, 46);
    });
    after(async () => {
      await ingest?.close();
      await queue?.obliterate({ force: true }).catch(() => {});
      await queue?.close();
      client?.disconnect();
      await redis?.stop();
    });

    const post = (name: string) => {
      const object = {
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { namespace: 'ns', name },
      };
      const { data, ...attributes } = eventAttributes(object, 'update');
      const message = HTTP.binary(new CloudEvent({ id: name, source: 'test', ...attributes, data }));
      return fetch(ingest!.url + '/', {
        method: 'POST',
        headers: message.headers as Record<string, string>,
        body: String(message.body),
      });
    };

    it('queues a resync on the new master', async () => {
      const names = uniqueNames('ingest-failover');
      // The senders are ingest-auth.test.ts' subject; here, the queue.
      const config = readConfig({
        ...redis.env,
        QUEUE_PREFIX: names.prefix,
        QUEUE_NAME: names.queue,
        INGEST_AUTH: 'none',
      });
      ingest = await serveIngest(config, log);
      client = redis.client();
      queue = new Queue(config.queue.name, { connection: client, prefix: config.queue.prefix });
      queue.on('error', () => {}); // the failover's lost connections: this test's reads wait them out
      const resyncs = async () =>
        (await queue!.getJobs(['waiting', 'delayed'])).map((j) => j.name).filter((n) => n === resyncJobName);
      // 1: before: an event accepted, no resync owed.
      expect((await post('before')).status).to.equal(202);
      expect(await resyncs()).to.deep.equal([]);
      // 2: the failover, with no event refused meanwhile (a 503 would owe a resync anyway).
      await redis.failoverMasterOf(queueKeys({ prefix: config.queue.prefix, queue: config.queue.name }).base);
      // 3: the resync, queued by ingest itself. A cluster client learns of the new master from
      // the MOVED a command gets: there, events keep coming, each accepted.
      const statuses: number[] = [];
      await until(
        'a resync queued',
        async () => {
          if (mode === 'cluster') statuses.push((await post(`after-${statuses.length}`)).status);
          return resyncs();
        },
        (jobs) => jobs.length === 1,
        60_000,
      );
      expect(statuses.filter((s) => s !== 202)).to.deep.equal([]);
    });
  });
