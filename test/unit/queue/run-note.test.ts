import { expect } from 'chai';
import { describeRun, formatMs, snapshotOf, type RunRecord } from '../../../shared/core/run-note.ts';
import { passSummary } from '../../../shared/core/reconcile/pass-summary.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';

describe('run note', () => {
  it('says how a run ended in words a person on call reads', () => {
    const table: [Pick<RunRecord, 'result' | 'delayMs' | 'error' | 'failures'>, string][] = [
      [{ result: 'done' }, 'done'],
      [{ result: 'awaitChange' }, 'done, waiting for a change'],
      [{ result: 'requeue', delayMs: 200 }, 'requeue after 200 ms'],
      [{ result: 'requeue', delayMs: 3_600_000 }, 'requeue after 1 h'],
      [
        { result: 'retry', delayMs: 1_500, failures: 2, error: 'Secret x was not found' },
        'error, retry after 1.5 s (failure 2): Secret x was not found',
      ],
      [{ result: 'terminal', error: 'spec cannot work' }, 'error, not retried: spec cannot work'],
    ];
    for (const [run, text] of table) expect(describeRun(run), run.result).to.equal(text);
  });

  it('formats durations in the largest unit that keeps them short', () => {
    expect([0, 999, 1_000, 59_900, 90_000, 5_400_000].map(formatMs)).to.deep.equal([
      '0 ms',
      '999 ms',
      '1 s',
      '59.9 s',
      '1.5 min',
      '1.5 h',
    ]);
  });

  it('keeps only the status fields a person scans: no shards, node ids or addresses', () => {
    const snapshot = snapshotOf({
      phase: 'Running',
      slotsCovered: 16384,
      readyNodes: 6,
      masterPod: 'c-0',
      selector: 'app=c',
      shards: [
        {
          index: 0,
          name: 'shard-0',
          master: { pod: 'c-0', nodeId: 'abc', ip: '10.0.0.1', ready: true },
          replicas: [],
          slots: [],
        },
      ],
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ClusterReady',
          message: 'ok',
          lastTransitionTime: 't',
          observedGeneration: 3,
        },
      ],
    });
    expect(snapshot).to.deep.equal({
      phase: 'Running',
      slotsCovered: 16384,
      readyNodes: 6,
      operation: undefined,
      conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'ok' }],
    });
    expect(snapshotOf(undefined)).to.equal(undefined);
  });

  it('sums a pass up as its progress and the first step it took', () => {
    const node = { id: 'a'.repeat(40), address: { ip: '10.0.0.1', port: 6379 }, pod: 'c-1' };
    const failover: Step = {
      kind: 'failover',
      mode: 'default',
      master: { ...node, pod: 'c-0' },
      replica: node,
      reason: 'rolling update',
    };
    expect(passSummary('cluster is ready', [])).to.equal('cluster is ready');
    expect(passSummary('healing', [failover])).to.equal('healing; default failover of c-0 to c-1: rolling update');
    expect(passSummary('healing', [failover, failover])).to.equal(
      'healing; default failover of c-0 to c-1: rolling update (+1 more step(s))',
    );
  });
});
