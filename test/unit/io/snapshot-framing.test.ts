import { expect } from 'chai';
import { counted, markedBy, type Framing } from '../../../shared/io/redis/snapshot-framing.ts';

/** Feeds `input` in pieces cut at `cuts`; returns the payload and whether it ended. */
function feed(framing: Framing, input: Buffer, cuts: number[]): { payload: string; done: boolean } {
  const out: Buffer[] = [];
  let from = 0;
  for (const to of [...cuts, input.length]) {
    const { payload, done } = framing.take(input.subarray(from, to));
    out.push(payload);
    if (done) return { payload: Buffer.concat(out).toString(), done };
    from = to;
  }
  return { payload: Buffer.concat(out).toString(), done: false };
}

describe('snapshot framing', () => {
  const mark = Buffer.from('0123456789abcdef0123456789abcdef01234567');

  it('ends a diskless payload at its 40-byte mark wherever the reads split it', () => {
    const input = Buffer.concat([Buffer.from('REDIS-payload'), mark, Buffer.from('*1\r\n$4\r\nPING\r\n')]);
    for (let a = 0; a <= input.length; a++) {
      for (const b of [a, a + 1, a + 17, a + 39]) {
        const cuts = [a, Math.min(b, input.length)].filter((c, i, all) => all.indexOf(c) === i);
        expect(feed(markedBy(mark), input, cuts), `cut at ${cuts}`).to.deep.equal({
          payload: 'REDIS-payload',
          done: true,
        });
      }
    }
  });

  it('does not end a diskless payload before its mark', () => {
    expect(feed(markedBy(mark), Buffer.from(`payload${mark.toString().slice(0, 39)}`), [3])).to.deep.equal({
      payload: 'payload',
      done: false,
    });
  });

  it('ends a sized payload after its length, leaving what follows', () => {
    const input = Buffer.from('0123456789+PING');
    for (let a = 0; a <= input.length; a++)
      expect(feed(counted(10), input, [a]), `cut at ${a}`).to.deep.equal({ payload: '0123456789', done: true });
  });
});
