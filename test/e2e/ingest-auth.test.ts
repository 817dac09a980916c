// Ingest in the running operator accepts the events of knredis' own event source (its
// ServiceAccount token from the TokenRequest API, as a kubelet projects it) and refuses a
// forged or unauthenticated event, and one sent with another ServiceAccount's token: checked
// by the real local API server (TokenReview), nothing of a refused event queued.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../shared/core/apiserver-events.ts';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { requestToken } from '../../infra/local/sender-token.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { counter, stopStackAfterClusters } from './observe.ts';

describe('ingest of the running operator refuses forged and unauthenticated events', function () {
  this.timeout(600_000);
  let env: LocalEnvironment;
  let stack: OperatorStack;
  let dir: string;
  const ns = `ingest-auth-${process.pid}`;

  before(async function () {
    env = await localEnvironment();
    await env.kubectl(['create', 'namespace', ns]);
    dir = await mkdtemp(join(tmpdir(), 'knredis-ingest-auth-e2e-'));
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      webhookConfigurationName: `knredis-ingest-auth-e2e-${process.pid}`,
      extraEnv: { WATCH_NAMESPACE: ns },
    });
  });
  after(async function () {
    this.timeout(240_000);
    if (stack) await stopStackAfterClusters(env, ns, stack);
    await env?.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const adds = () => counter(stack.urls.metrics, 'workqueue_adds_total');
  const post = (name: string, token?: string) => {
    const { data, ...attributes } = eventAttributes(
      { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: ns, name } },
      'update',
    );
    const message = HTTP.binary(new CloudEvent({ id: randomUUID(), source: 'https://127.0.0.1', ...attributes, data }));
    return fetch(stack.urls.ingest, {
      method: 'POST',
      headers: {
        ...(message.headers as Record<string, string>),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: String(message.body),
    });
  };

  it("queues the key of a new RedisCluster from the event source's authenticated event", async () => {
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'seen', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0 },
      }),
    });
    await env.waitFor(async () => (await adds()) > 0, { what: 'a key queued from the event source' });
    expect(await readFile(stack.logs['event-source']!, 'utf8')).to.not.contain('sink refused the event');
  });

  it("refuses no token, a forged one and another ServiceAccount's, and queues nothing of them", async () => {
    const kc = env.kubeConfig();
    const sender = await requestToken(kc);
    const [header, payload] = sender.split('.');
    const forged = `${header}.${payload}.${Buffer.from('made up').toString('base64url')}`;
    const other = await requestToken(kc, { namespace: ns, serviceAccount: 'intruder' });
    expect((await post('ghost-none')).status).to.equal(401);
    expect((await post('ghost-forged', forged)).status).to.equal(401);
    expect((await post('ghost-other', other)).status).to.equal(403);
    // Every job the queue holds or held, in any state: none for a refused event's key.
    const queue = new Queue('reconcile', {
      connection: { url: stack.queueRedis.url, password: stack.queueRedis.password },
      prefix: 'knredis',
    });
    try {
      const keys = (await queue.getJobs()).map((job) => job?.data?.key as string);
      expect(keys).to.include(`${ns}/seen`);
      expect(keys.filter((key) => key.includes('ghost'))).to.deep.equal([]);
    } finally {
      await queue.close();
    }
    // The refusals are logged, the tokens are not.
    const log = await readFile(stack.logs.front!, 'utf8');
    expect(log).to.contain('event refused');
    for (const token of [forged, other]) expect(log).to.not.contain(token.split('.')[2]!);
  });
});
