import { expect } from 'chai';
import { overlaps, runsOf } from '../../chaos/support/run-overlap.ts';

const line = (time: number, msg: string, reconcileId: string, pid: number, key = 'ns/a', endedAt?: number) =>
  JSON.stringify({ time, msg, key, reconcileId, pid, ...(endedAt === undefined ? {} : { endedAt }) });

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

  it('ends a run when its reconcile returned, not when the queue let it log its end (the queue Redis back)', function () {
    // r1's reconcile failed at 4 with the queue's Redis away; its end line waited for it until
    // 11, after the lock had expired and r2 had started at 10
    const runs = runsOf([
      line(1, 'run started', 'r1', 7),
      line(11, 'reconcile failed; will retry', 'r1', 7, 'ns/a', 4),
      line(10, 'run started', 'r2', 8),
      line(12, 'reconciled', 'r2', 8, 'ns/a', 12),
      // r3 starts beside r2 (a real overlap) and stops when it sees its key lost
      line(11, 'run started', 'r3', 7),
      line(14, 'run lost its key; stopped without counting a failure', 'r3', 7, 'ns/a', 14),
      line(20, 'something else', 'r9', 7),
    ]);
    expect(runs.map((r) => [r.id, r.end])).to.deep.equal([
      ['r1', 4],
      ['r2', 12],
      ['r3', 14],
    ]);
    expect(overlaps(runs).map(([a, b]) => [a.id, b.id])).to.deep.equal([['r2', 'r3']]);
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
