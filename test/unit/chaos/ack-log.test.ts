import { expect } from 'chai';
import { losses, parseAckLog } from '../../chaos/support/ack-log.ts';

describe('chaos/support/ack-log', function () {
  const log = parseAckLog(
    [
      '100 P c:p:0',
      '150 W c:w:0',
      '200 E c:p:1 CLUSTERDOWN',
      '300 P c:p:2',
      '350 W c:w:1',
      '360 P c:w:2',
      '370 P c:p:3 trunc',
    ].join('\n'),
  );

  it('reads acknowledged writes, with or without WAIT, and counts client errors', function () {
    expect(log.writes.map((w) => `${w.waited ? 'W' : 'P'} ${w.key}`)).to.deep.equal([
      'P c:p:0',
      'W c:w:0',
      'P c:p:2',
      'W c:w:1',
      'P c:w:2',
      'P c:p:3 trunc',
    ]);
    expect(log.errors).to.equal(1);
  });

  it('counts the missing ones by kind, and those acknowledged before the fault', function () {
    const present = new Set(['c:p:0', 'c:w:0', 'c:w:2', 'c:p:3 trunc']);
    const report = losses(log, present, 320);
    expect(report).to.include({
      acked: 4,
      ackedWithWait: 2,
      lostAcked: 1,
      lostAckedWithWait: 1,
      lostBeforeFault: 1,
      clientErrors: 1,
    });
  });

  it('reports nothing lost when every key is there', function () {
    expect(losses(log, new Set(log.writes.map((w) => w.key)), 0)).to.include({
      lostAcked: 0,
      lostAckedWithWait: 0,
      lostBeforeFault: 0,
    });
  });
});
