import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudEvent } from 'cloudevents';
import { pacedSender } from '../../../functions/event-source/paced-sender.ts';
import { sinkSender } from '../../../functions/event-source/sink.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { waitFor } from '../../support/wait-for.ts';

const until = (what: string, check: () => boolean) => waitFor(check, { what, interval: 5, timeout: 20_000 });

interface Post {
  readonly key: string;
  readonly seq: number;
  readonly type: string;
}

/**
 * A real HTTP sink that counts the requests in flight, overall and per key, and holds every
 * reply until the test releases it (hold) or answers at once.
 */
class FakeSink {
  readonly posts: Post[] = [];
  readonly held: { post: Post; res: ServerResponse }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly perKey = new Map<string, number>();
  /** Requests of a key that arrived while another of the same key was in flight. */
  readonly overlaps: Post[] = [];
  hold: (post: Post) => boolean = () => false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const post = {
        key: String(req.headers['ce-subject']),
        seq: Number(req.headers['ce-seq']),
        type: String(req.headers['ce-type']),
      };
      this.posts.push(post);
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      const n = (this.perKey.get(post.key) ?? 0) + 1;
      if (n > 1) this.overlaps.push(post);
      this.perKey.set(post.key, n);
      req.resume();
      req.on('end', () => (this.hold(post) ? this.held.push({ post, res }) : this.reply(post, res)));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  reply(post: Post, res: ServerResponse): void {
    this.inFlight--;
    this.perKey.set(post.key, this.perKey.get(post.key)! - 1);
    res.writeHead(202).end();
  }

  release(which: (post: Post) => boolean = () => true): void {
    for (const h of this.held.filter((x) => which(x.post))) {
      this.held.splice(this.held.indexOf(h), 1);
      this.reply(h.post, h.res);
    }
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }
}

const update = (key: string, seq: number, verb = 'update') =>
  new CloudEvent({
    id: `${key}-${seq}`,
    source: 'test',
    type: `dev.knative.apiserver.resource.${verb}`,
    subject: key,
    seq,
  });

describe('event source paced sender', () => {
  let sink: FakeSink;
  beforeEach(async () => {
    sink = new FakeSink();
    await sink.start();
  });
  afterEach(() => sink.stop());

  function sender(concurrency: number) {
    const send = sinkSender({
      url: sink.url,
      backoff: { baseMs: 10, maxMs: 10, jitter: 0 },
      maxAttempts: 1,
      timeoutMs: 10_000,
      log: createLogger({ level: 'silent' }),
    });
    const paced = pacedSender(send, { concurrency, supersedes: (a, b) => a.type === b.type });
    return (event: CloudEvent<unknown>) => paced.push(event.subject!, event);
  }

  it('keeps at most `concurrency` POSTs in flight when a relist emits every object at once', async () => {
    const total = 100;
    // Replies are held until the limit is reached (or nothing more can come): the bound is met exactly.
    sink.hold = () => true;
    const emit = sender(4);
    for (let i = 0; i < total; i++) emit(update(`/objects/o${i}`, 1));
    while (sink.posts.length < total) {
      await until('the sink to hold 4 POSTs', () => sink.held.length === 4 || sink.posts.length === total);
      sink.release();
    }
    sink.release();
    await until('every event answered', () => sink.inFlight === 0);
    expect(sink.posts).to.have.length(total);
    expect(sink.maxInFlight).to.equal(4);
  });

  it('sends the events of one object one at a time and in order, while other objects go on', async () => {
    // The first event of /objects/a is answered only once every other object's events are in:
    // a second event of a sent beside it, or before it, would show.
    const others = ['b', 'c', 'd', 'e'];
    const verbs = ['add', 'update', 'delete', 'add', 'update'];
    sink.hold = (p) => p.key === '/objects/a' && p.seq === 0;
    const emit = sender(3);
    for (let seq = 0; seq < verbs.length; seq++)
      for (const k of ['a', ...others]) emit(update(`/objects/${k}`, seq, verbs[seq]));
    await until('the other objects delivered', () => sink.posts.filter((p) => p.key !== '/objects/a').length === 20);
    expect(sink.posts.filter((p) => p.key === '/objects/a').map((p) => p.seq)).to.deep.equal([0]);
    sink.release();
    await until('a delivered', () => sink.posts.length === 25 && sink.inFlight === 0);
    expect(sink.overlaps).to.deep.equal([]);
    for (const k of ['a', ...others])
      expect(sink.posts.filter((p) => p.key === `/objects/${k}`).map((p) => p.seq)).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('replaces a waiting update of an object by a newer one, so a second relist adds only what is in flight', async () => {
    sink.hold = () => true;
    const emit = sender(2);
    for (const seq of [1, 2]) for (let i = 0; i < 50; i++) emit(update(`/objects/o${i}`, seq));
    await until('two POSTs held', () => sink.held.length === 2);
    sink.hold = () => false;
    sink.release();
    await until('the backlog delivered', () => sink.posts.length >= 52 && sink.inFlight === 0);
    // o0 and o1 were in flight during the second relist: their newer update follows; the
    // other 48 waiting updates were replaced by the newer one.
    expect(sink.posts).to.have.length(52);
    for (let i = 0; i < 50; i++) {
      const seqs = sink.posts.filter((p) => p.key === `/objects/o${i}`).map((p) => p.seq);
      expect(seqs, `o${i}`).to.deep.equal(i < 2 ? [1, 2] : [2]);
    }
  });

  it('never replaces a waiting event of another type: a delete keeps its place between updates', async () => {
    sink.hold = (p) => p.seq === 0;
    const emit = sender(1);
    emit(update('/objects/a', 0));
    emit(update('/objects/a', 1));
    emit(update('/objects/a', 2, 'delete'));
    emit(update('/objects/a', 3, 'add'));
    emit(update('/objects/a', 4));
    emit(update('/objects/a', 5));
    await until('the first held', () => sink.held.length === 1);
    sink.release();
    await until('all delivered', () => sink.posts.length === 5 && sink.inFlight === 0);
    expect(sink.posts.map((p) => [p.seq, p.type.split('.').pop()])).to.deep.equal([
      [0, 'update'],
      [1, 'update'],
      [2, 'delete'],
      [3, 'add'],
      [5, 'update'],
    ]);
  });
});
