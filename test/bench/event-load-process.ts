// The queue bench's event sender in a process of its own, so that its work is not counted as
// ingest's and does not slow it on the same event loop: binary-mode CloudEvents, as the
// ApiServerSource adapter posts them, one per request, over keep-alive connections with a
// fixed number in flight. The messages are built before the clock starts.
// Run as a script, this file is the child; imported, it gives the parent's handle.
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { CloudEvent, HTTP } from 'cloudevents';
import { eventAttributes } from '../../shared/core/apiserver-events.ts';
import { reportOfChild, runAsChild } from './child-process.ts';

export interface EventLoadSpec {
  readonly url: string;
  readonly events: number;
  readonly keys: number;
  readonly inFlight: number;
  /** Names the events' objects apart between rounds on one queue. */
  readonly round: string;
}

export interface EventLoadReport {
  readonly events: number;
  readonly seconds: number;
  readonly refused: number;
}

const self = fileURLToPath(import.meta.url);

/** Sends spec.events events and reports when all were answered. */
export function sendEvents(spec: EventLoadSpec): Promise<EventLoadReport> {
  return reportOfChild<EventLoadReport>(self, spec, 'the event sender');
}

interface Message {
  readonly headers: Record<string, string | number>;
  readonly body: string;
}

function message(name: string, n: number, round: string): Message {
  const object = {
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { namespace: 'bench', name, resourceVersion: String(n) },
  };
  const { data, ...attributes } = eventAttributes(object, 'update');
  const m = HTTP.binary(new CloudEvent({ id: `${round}-${n}`, source: 'https://127.0.0.1:6443', ...attributes, data }));
  const body = String(m.body);
  return { headers: { ...(m.headers as Record<string, string>), 'content-length': Buffer.byteLength(body) }, body };
}

async function child(spec: EventLoadSpec): Promise<EventLoadReport> {
  const url = new URL(spec.url);
  const messages = Array.from({ length: Math.min(spec.events, 20_000) }, (_, n) =>
    message(`${spec.round}${n % spec.keys}`, n, spec.round),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: spec.inFlight });
  let refused = 0;
  const post = (m: Message) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/', method: 'POST', agent, headers: m.headers },
        (res) => {
          if (res.statusCode !== 202) refused++;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(m.body);
    });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.inFlight }, async () => {
      while (next < spec.events) await post(messages[next++ % messages.length]!);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { events: spec.events, seconds, refused };
}

if (process.argv[1] === self) await runAsChild(child);
