// Wiring of the built-in event source (clusters without Knative, and `npm run dev`):
// watches RedisClusters and their labelled children and POSTs ApiServerSource-style
// CloudEvents to K_SINK.
import type { CloudEvent } from 'cloudevents';
import type { StartFunction } from '../function-context.ts';
import { loadKubeConfig } from '../kube.ts';
import { required } from '../start-config.ts';
import { pacedSender } from './paced-sender.ts';
import { sinkSender } from './sink.ts';
import { projectedToken } from './token-file.ts';
import { toCloudEvent } from './to-cloud-event.ts';
import { watchedResources } from './watched.ts';
import { watchResource } from './watch.ts';

export const start: StartFunction = async ({ config, log }) => {
  const sink = required(config.sink, 'K_SINK', 'event-source');
  const kc = loadKubeConfig(config.kubeconfig, 'knredis-event-source');
  const source = kc.getCurrentCluster()?.server ?? 'knredis-event-source';
  const backoff = { baseMs: 200, maxMs: 30_000, jitter: 0.2 };
  const tokenFile = config.eventSource.tokenFile;
  const token = tokenFile ? projectedToken(tokenFile) : undefined;
  if (!token) log.warn('EVENT_SOURCE_TOKEN_FILE=none: events go to the sink without a token');
  const send = sinkSender({ url: sink, backoff, maxAttempts: 10, timeoutMs: 10_000, log, ...(token ? { token } : {}) });
  // The subject names the object (kind, namespace, name): its events keep their order; a
  // waiting event is replaced by a newer one of the same type (see paced-sender.ts).
  const paced = pacedSender(send, {
    concurrency: config.eventSource.concurrency,
    supersedes: (older, newer) => older.type === newer.type,
  });
  const emit = (event: CloudEvent<unknown>) => paced.push(event.subject ?? event.id, event);
  const watches = watchedResources(config.watchNamespace).map((resource) =>
    watchResource(kc, resource, (object, verb) => emit(toCloudEvent(object, verb, source)), backoff, log),
  );
  log.info({ sink: new URL(sink).origin, resources: watches.length }, 'event source watching');
  return {
    async close() {
      paced.clear();
      send.stop();
      await Promise.all(watches.map((w) => w.stop()));
    },
  };
};
