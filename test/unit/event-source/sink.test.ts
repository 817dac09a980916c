import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudEvent } from 'cloudevents';
import { sinkSender } from '../../../functions/event-source/sink.ts';
import { createLogger } from '../../../shared/io/log.ts';

const backoff = { baseMs: 200, maxMs: 3_000, jitter: 0.2 };
const event = (id: string) =>
  new CloudEvent({ id, source: 'test', type: 'dev.knative.apiserver.resource.add', subject: `/x/${id}`, data: { id } });

describe('event source sink', () => {
  let server: Server;
  let url: string;
  /** Status replies in order; the last one repeats. */
  let replies: { status: number; headers?: Record<string, string> }[];
  let posts: string[];

  before(async () => {
    server = createServer((req, res) => {
      posts.push(String(req.headers['ce-id']));
      req.resume();
      req.on('end', () => {
        const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
        res.writeHead(reply.status, reply.headers ?? {}).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  beforeEach(() => {
    posts = [];
  });

  function sender(maxAttempts = 5) {
    const delays: number[] = [];
    const send = sinkSender({
      url,
      backoff,
      maxAttempts,
      timeoutMs: 5_000,
      log: createLogger({ level: 'silent' }),
      random: () => 0,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    return { send, delays };
  }

  it('retries 503 with growing delays until the sink accepts', async () => {
    replies = [{ status: 503 }, { status: 503 }, { status: 502 }, { status: 202 }];
    const { send, delays } = sender();
    expect(await send(event('e1'))).to.equal(true);
    expect(posts).to.deep.equal(['e1', 'e1', 'e1', 'e1']);
    expect(delays).to.deep.equal([200, 400, 800]);
  });

  it('waits at least what Retry-After asks, within the cap', async () => {
    replies = [
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 429, headers: { 'Retry-After': '60' } },
      { status: 202 },
    ];
    const { send, delays } = sender();
    expect(await send(event('e2'))).to.equal(true);
    expect(delays).to.deep.equal([1_000, 3_000]);
  });

  it('does not retry an event the sink refuses with 400', async () => {
    replies = [{ status: 400 }, { status: 202 }];
    const { send, delays } = sender();
    expect(await send(event('e3'))).to.equal(false);
    expect(posts).to.deep.equal(['e3']);
    expect(delays).to.deep.equal([]);
  });

  it('gives up after maxAttempts when the sink keeps answering 503', async () => {
    replies = [{ status: 503 }];
    const { send, delays } = sender(4);
    expect(await send(event('e4'))).to.equal(false);
    expect(posts).to.deep.equal(['e4', 'e4', 'e4', 'e4']);
    expect(delays).to.have.length(3);
  });

  it('retries while nothing listens on the sink port', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const delays: number[] = [];
    const send = sinkSender({
      url: `http://127.0.0.1:${port}/`,
      backoff,
      maxAttempts: 3,
      timeoutMs: 5_000,
      log: createLogger({ level: 'silent' }),
      random: () => 0,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    expect(await send(event('e5'))).to.equal(false);
    expect(delays).to.deep.equal([200, 400]);
  });

  it('ends a retry loop at once on stop()', async () => {
    replies = [{ status: 503 }];
    const send = sinkSender({
      url,
      backoff: { baseMs: 3_600_000, maxMs: 3_600_000, jitter: 0 },
      maxAttempts: 5,
      timeoutMs: 5_000,
      log: createLogger({ level: 'silent' }),
    });
    const result = send(event('e6'));
    while (posts.length === 0) await new Promise((r) => setTimeout(r, 5));
    send.stop();
    expect(await result).to.equal(false);
    expect(posts).to.deep.equal(['e6']);
  });
});
