import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { startListWatch } from '../../../shared/io/kube/list-watch.ts';
import { watchClient } from '../../../shared/io/kube/watch-client.ts';
import { createLogger } from '../../../shared/io/log.ts';
import {
  apiException,
  eventually,
  expiredEvent,
  fakeList,
  FakeWatch,
  httpStatus,
  obj,
  refused,
  type Step,
} from './fake-watch.ts';

const backoff = { baseMs: 200, maxMs: 3_000, jitter: 0.2 };
const log = createLogger({ level: 'silent' });

function harness(lists: Parameters<typeof fakeList>[0], steps: Step[]) {
  const watch = new FakeWatch(steps);
  const list = fakeList(lists);
  const changes: string[] = [];
  const delays: number[] = [];
  const loop = startListWatch({
    client: watchClient(watch, list, {
      path: '/apis/cache.redis.io/v1beta1/namespaces/ns/redisclusters',
      labelSelector: 'a=b',
      timeoutSeconds: 300,
    }),
    onChange: (o: KubernetesObject, verb) => changes.push(`${verb} ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    backoff,
    log,
    random: () => 0,
    sleep: async (ms) => {
      delays.push(ms);
      await new Promise((r) => setImmediate(r));
    },
  });
  return { watch, list, changes, delays, loop };
}

describe('event source list-watch', () => {
  it('emits add for every listed object, then the watch events, resuming from the last version when a watch ends', async () => {
    const h = harness(
      [{ items: [obj('a', '1'), obj('b', '2')], rv: '10' }],
      [
        {
          events: [
            ['ADDED', obj('c', '11')],
            ['MODIFIED', obj('a', '12')],
            ['DELETED', obj('b', '13')],
            ['BOOKMARK', { metadata: { resourceVersion: '15' } }],
          ],
          end: 'close',
        },
        { end: 'open' },
      ],
    );
    await eventually(() => h.watch.calls.length === 2, 'the second watch');
    await h.loop.stop();
    expect(h.changes).to.deep.equal(['add a@1', 'add b@2', 'add c@11', 'update a@12', 'delete b@13']);
    expect(h.watch.calls.map((c) => c.resourceVersion)).to.deep.equal(['10', '15']);
    expect(h.watch.calls[0]).to.include({ allowWatchBookmarks: true, labelSelector: 'a=b', timeoutSeconds: 300 });
    expect(h.list.calls).to.equal(1);
    expect(h.delays).to.deep.equal([]);
  });

  it('lists again at once when the watch reports 410 Gone in the stream, re-emitting every object that exists and deleting what is gone', async () => {
    const h = harness(
      [
        { items: [obj('a', '1'), obj('b', '2'), obj('c', '3')], rv: '10' },
        { items: [obj('a', '1'), obj('b', '17'), obj('d', '18')], rv: '20' },
      ],
      [{ events: [expiredEvent()], end: 'close' }, { end: 'open' }],
    );
    await eventually(() => h.watch.calls.length === 2, 'a watch after the relist');
    await h.loop.stop();
    expect(h.changes.slice(3)).to.deep.equal(['update a@1', 'update b@17', 'add d@18', 'delete c@3']);
    expect(h.watch.calls.map((c) => c.resourceVersion)).to.deep.equal(['10', '20']);
    expect(h.delays).to.deep.equal([]);
  });

  it('lists again when the server answers the watch with HTTP 410', async () => {
    const h = harness(
      [
        { items: [obj('a', '1')], rv: '10' },
        { items: [obj('a', '1')], rv: '30' },
      ],
      [{ end: { error: httpStatus(410) } }, { end: 'open' }],
    );
    await eventually(() => h.watch.calls.length === 2, 'a watch after the relist');
    await h.loop.stop();
    expect(h.list.calls).to.equal(2);
    expect(h.changes).to.deep.equal(['add a@1', 'update a@1']);
    expect(h.watch.calls.map((c) => c.resourceVersion)).to.deep.equal(['10', '30']);
  });

  it('watches again from the same version with growing delays while the API server is down, then relists when its version expired', async () => {
    // An API server restart as the real one shows it: the stream ends, connections are
    // refused for a while, then the new server's watch cache no longer has version 10.
    const h = harness(
      [
        { items: [obj('a', '1'), obj('b', '2')], rv: '10' },
        { items: [obj('a', '1'), obj('c', '25')], rv: '30' },
      ],
      [
        { end: 'close' },
        { end: { error: refused() } },
        { end: { error: refused() } },
        { end: { error: refused() } },
        { events: [expiredEvent()], end: 'close' },
        { events: [['MODIFIED', obj('a', '31')]], end: { error: refused() } },
        { end: 'open' },
      ],
    );
    await eventually(() => h.watch.calls.length === 7, 'seven watches');
    await h.loop.stop();
    expect(h.watch.calls.map((c) => c.resourceVersion)).to.deep.equal(['10', '10', '10', '10', '10', '30', '31']);
    expect(h.delays).to.deep.equal([200, 400, 800, 1600, 200]);
    expect(h.changes).to.deep.equal(['add a@1', 'add b@2', 'update a@1', 'add c@25', 'delete b@2', 'update a@31']);
  });

  it('backs off and lists again after other API errors instead of spinning', async () => {
    const h = harness(
      [{ items: [obj('a', '1')], rv: '10' }, apiException(403), { items: [obj('a', '1')], rv: '40' }],
      [
        { events: [['ERROR', { kind: 'Status', code: 500, message: 'internal error' }]], end: 'close' },
        { end: 'open' },
      ],
    );
    await eventually(() => h.watch.calls.length === 2, 'a watch after the failed list');
    await h.loop.stop();
    expect(h.list.calls).to.equal(3);
    expect(h.delays).to.deep.equal([200, 400]);
    expect(h.watch.calls.map((c) => c.resourceVersion)).to.deep.equal(['10', '40']);
  });

  it('pauses between watches that end at once without an event', async () => {
    const h = harness(
      [{ items: [], rv: '10' }],
      [{ end: 'close' }, { end: 'close' }, { end: 'close' }, { end: 'open' }],
    );
    await eventually(() => h.watch.calls.length === 4, 'four watches');
    await h.loop.stop();
    expect(h.delays).to.deep.equal([200, 400, 800]);
  });

  it('reports an object deleted and created again under its name (a new uid) as delete then add on a relist', async () => {
    const h = harness(
      [
        { items: [obj('a', '1', 'u1')], rv: '10' },
        { items: [obj('a', '19', 'u2')], rv: '20' },
      ],
      [{ events: [expiredEvent()], end: 'close' }, { end: 'open' }],
    );
    await eventually(() => h.watch.calls.length === 2, 'a watch after the relist');
    await h.loop.stop();
    expect(h.changes).to.deep.equal(['add a@1', 'delete a@1', 'add a@19']);
  });

  it('stops while it waits out a long backoff', async () => {
    const list = fakeList([new Error('connect ECONNREFUSED')]);
    const loop = startListWatch({
      client: watchClient(new FakeWatch([]), list, { path: '/x', timeoutSeconds: 300 }),
      onChange: () => {},
      backoff: { baseMs: 3_600_000, maxMs: 3_600_000, jitter: 0 },
      log,
    });
    await eventually(() => list.calls === 1, 'the first list');
    await loop.stop();
    expect(list.calls).to.equal(1);
  });
});
