import { expect } from 'chai';
import { addBatcher } from '../../../shared/io/queue/add-batcher.ts';

/** A flush that records each batch and settles only when the test says so. */
function recordingFlush() {
  const batches: { keys: readonly string[]; resolve: () => void; reject: (e: Error) => void }[] = [];
  const flush = (keys: readonly string[]) =>
    new Promise<void>((resolve, reject) => batches.push({ keys, resolve, reject }));
  return { batches, flush };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('queue/add-batcher', () => {
  it('sends the keys added in one turn in one batch, each key once', async () => {
    const { batches, flush } = recordingFlush();
    const batcher = addBatcher(flush);
    const adds = ['ns/a', 'ns/b', 'ns/a', 'ns/c', 'ns/a'].map((k) => batcher.add(k));
    await turn();
    expect(batches.map((b) => b.keys)).to.deep.equal([['ns/a', 'ns/b', 'ns/c']]);
    batches[0]!.resolve();
    await Promise.all(adds);
  });

  it('settles no caller before Redis acknowledged its batch', async () => {
    const { batches, flush } = recordingFlush();
    const batcher = addBatcher(flush);
    let settled = 0;
    const adds = ['ns/a', 'ns/b'].map((k) => batcher.add(k).then(() => settled++));
    await turn();
    await turn();
    expect(settled).to.equal(0);
    batches[0]!.resolve();
    await Promise.all(adds);
    expect(settled).to.equal(2);
  });

  it('fails every caller of a batch whose send failed, and sends the next batch afresh', async () => {
    const { batches, flush } = recordingFlush();
    const batcher = addBatcher(flush);
    const failing = ['ns/a', 'ns/b', 'ns/c'].map((k) =>
      batcher.add(k).then(
        () => 'stored',
        (e: Error) => e.message,
      ),
    );
    await turn();
    batches[0]!.reject(new Error('redis down'));
    expect(await Promise.all(failing)).to.deep.equal(['redis down', 'redis down', 'redis down']);
    const next = batcher.add('ns/a');
    await turn();
    expect(batches.map((b) => b.keys)).to.deep.equal([['ns/a', 'ns/b', 'ns/c'], ['ns/a']]);
    batches[1]!.resolve();
    await next;
  });

  it('starts a new batch once one is full, and a key added after a batch left goes in the next', async () => {
    const { batches, flush } = recordingFlush();
    const batcher = addBatcher(flush, 2);
    const adds = ['k1', 'k2', 'k3'].map((k) => batcher.add(k));
    await turn();
    adds.push(batcher.add('k1'));
    await turn();
    expect(batches.map((b) => b.keys)).to.deep.equal([['k1', 'k2'], ['k3'], ['k1']]);
    for (const b of batches) b.resolve();
    await Promise.all(adds);
  });
});
