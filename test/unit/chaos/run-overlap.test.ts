import { expect } from 'chai';
import { overlaps, runsOf } from '../../chaos/support/run-overlap.ts';

const line = (time: number, msg: string, reconcileId: string, pid: number, key = 'ns/a') =>
  JSON.stringify({ time, msg, key, reconcileId, pid });

describe('chaos/support/run-overlap', function () {
  it('pairs each start with its end line', function () {
    const runs = runsOf([
      line(1, 'run started', 'r1', 7),
      line(5, 'reconciled', 'r1', 7),
      line(6, 'run started', 'r2', 7),
      line(9, 'reconcile failed; will retry', 'r2', 7),
    ]);
    expect(runs.map((r) => [r.id, r.start, r.end])).to.deep.equal([
      ['r1', 1, 5],
      ['r2', 6, 9],
    ]);
    expect(overlaps(runs)).to.deep.equal([]);
  });

  it('ends a run whose worker died at the last line of that process, so a later run by another is no overlap', function () {
    const worker0 = [line(1, 'run started', 'r1', 7), line(3, 'observed', 'r1', 7)];
    const worker1 = [line(10, 'run started', 'r2', 8), line(12, 'reconciled', 'r2', 8)];
    expect(overlaps(runsOf([...worker0, ...worker1]))).to.deep.equal([]);
  });

  it('finds two runs of one key at once, in two workers, and not runs of other keys', function () {
    const runs = runsOf([
      line(1, 'run started', 'r1', 7),
      line(5, 'reconciled', 'r1', 7),
      line(4, 'run started', 'r2', 8),
      line(6, 'reconciled', 'r2', 8),
      line(2, 'run started', 'r3', 8, 'ns/b'),
      line(3, 'reconciled', 'r3', 8, 'ns/b'),
    ]);
    expect(overlaps(runs).map(([a, b]) => [a.id, b.id])).to.deep.equal([['r1', 'r2']]);
  });
});
