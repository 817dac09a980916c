import { expect } from 'chai';
import {
  countSlots,
  evenCounts,
  evenRanges,
  fromRanges,
  keySlot,
  toRanges,
} from '../../../shared/core/cluster/slots.ts';

describe('slots', () => {
  it('computes the slot of a key like Redis does, hash tags included', () => {
    expect(keySlot('foo')).to.equal(12182);
    expect(keySlot('123456789')).to.equal(12739);
    expect(keySlot('{user1000}.following')).to.equal(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).to.equal(keySlot('foo{}{bar}'));
    expect(keySlot('{}x')).not.to.equal(keySlot('x'));
  });

  it('splits 16384 slots evenly when given 3 or 6 masters', () => {
    expect(evenCounts(3)).to.deep.equal([5462, 5461, 5461]);
    expect(evenRanges(3)).to.deep.equal([
      { start: 0, end: 5461 },
      { start: 5462, end: 10922 },
      { start: 10923, end: 16383 },
    ]);
    expect(evenCounts(6).reduce((a, b) => a + b)).to.equal(16384);
    expect(() => evenCounts(0)).to.throw(RangeError);
  });

  it('turns slots into merged ranges and back', () => {
    const ranges = toRanges([5, 3, 4, 9, 10, 1]);
    expect(ranges).to.deep.equal([
      { start: 1, end: 1 },
      { start: 3, end: 5 },
      { start: 9, end: 10 },
    ]);
    expect(countSlots(ranges)).to.equal(6);
    expect(fromRanges(ranges)).to.deep.equal([1, 3, 4, 5, 9, 10]);
  });
});
