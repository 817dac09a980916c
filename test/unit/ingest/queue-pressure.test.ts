import { expect } from 'chai';
import { isFull, memoryOf } from '../../../functions/ingest/queue-pressure.ts';

const info = (used: number, max: number) =>
  `# Memory\r\nused_memory:${used}\r\nused_memory_human:1M\r\nmaxmemory:${max}\r\nmaxmemory_human:0B\r\nmaxmemory_policy:noeviction\r\n`;

describe('ingest/queue-pressure', () => {
  it('reads used_memory and maxmemory from INFO memory', () => {
    expect(memoryOf(info(123, 456))).to.deep.equal({ used: 123, max: 456 });
    expect(memoryOf('# Memory\r\n')).to.equal(undefined);
  });

  const cases: [string, number, number, boolean][] = [
    ['below the high-water mark', 79, 100, false],
    ['at the high-water mark', 80, 100, true],
    ['above it', 99, 100, true],
    ['without maxmemory (nothing to compare with)', 10_000, 0, false],
  ];
  for (const [what, used, max, full] of cases)
    it(`is ${full ? '' : 'not '}full ${what}`, () => expect(isFull(memoryOf(info(used, max)), 0.8)).to.equal(full));

  it('is not full before the first sample', () => expect(isFull(undefined, 0.8)).to.equal(false));
});
