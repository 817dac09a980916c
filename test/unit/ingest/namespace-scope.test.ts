import { expect } from 'chai';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { listen, notFound, probeRoutes } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { anySender } from '../../../functions/ingest/sender-auth.ts';
import { ingestHandler } from '../../../functions/ingest/app.ts';
import { outsideWatchNamespace } from '../../../functions/ingest/namespace-scope.ts';
import type { EventFields } from '../../../functions/ingest/to-keys.ts';

const event = (extensions: Record<string, unknown>, data: unknown = null): EventFields => ({
  type: 'dev.knative.apiserver.ref.update',
  data,
  extensions,
});

describe('ingest namespace scope', () => {
  const table: [string, EventFields, string | undefined, boolean][] = [
    ['all namespaces watched', event({ namespace: 'shop' }), undefined, false],
    ['the watched namespace (extension)', event({ namespace: 'shop' }), 'shop', false],
    ['the watched namespace (resource data)', event({}, { metadata: { namespace: 'shop' } }), 'shop', false],
    ['another namespace', event({ namespace: 'billing' }), 'shop', true],
    ['no namespace at all', event({}), 'shop', true],
  ];
  for (const [what, e, watched, refused] of table) {
    it(`${refused ? 'refuses' : 'takes'} an event of ${what}`, () => {
      expect(outsideWatchNamespace(e, watched) !== undefined).to.equal(refused);
    });
  }

  it('says which namespace the event is about and which one is watched', () => {
    expect(outsideWatchNamespace(event({ namespace: 'billing' }), 'shop')).to.equal(
      'the event is about namespace billing, but this operator watches only shop (WATCH_NAMESPACE)',
    );
  });

  it('answers 400 outside-namespace before any lookup, and queues nothing', async () => {
    const queued: string[] = [];
    const looked: string[] = [];
    const ingest = ingestHandler({
      enqueue: async (key) => void queued.push(key),
      lookup: {
        readObject: async (ref) => (looked.push(ref.name), null),
        existingClusters: async () => [],
        clustersUsingSecret: async () => [],
      },
      checkSender: anySender,
      maxBodyBytes: 4096,
      maxEvents: 100,
      retryAfterS: 3,
      log: createLogger({ level: 'silent' }),
      watchNamespace: 'shop',
    });
    const server = await listen(notFound, 0, '127.0.0.1', new Map([...probeRoutes({}), ['POST /', ingest]]));
    try {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'billing', name: 'cache-0' } };
      const { data, ...attributes } = eventAttributes(pod, 'update');
      const message = HTTP.binary(new CloudEvent({ id: 'e1', source: 'https://127.0.0.1:6443', ...attributes, data }));
      const res = await fetch(server.url + '/', {
        method: 'POST',
        headers: message.headers as Record<string, string>,
        body: String(message.body),
      });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { reason?: string; error?: string }).error).to.equal('outside-namespace');
      expect(queued).to.deep.equal([]);
      expect(looked).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });
});
