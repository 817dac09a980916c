import { expect } from 'chai';
import { deferResult } from '../../../shared/io/queue/scripts.ts';

describe('queue/deferResult', () => {
  const table: [number, string][] = [
    [1, 'stored'],
    [0, 'change-pending'],
    [-1, 'job-gone'],
  ];
  for (const [code, result] of table)
    it(`maps defer-2.lua's ${code} to ${result}`, () => expect(deferResult(code)).to.equal(result));

  it('refuses a code the script never returns', () => expect(() => deferResult(2)).to.throw(/unknown code 2/));
});
