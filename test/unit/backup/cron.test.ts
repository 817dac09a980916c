import { expect } from 'chai';
import { nextDue, parseCron, type Cron } from '../../../shared/core/backup/cron.ts';

const at = (iso: string) => Date.parse(iso);
const cron = (expression: string): Cron => {
  const parsed = parseCron(expression);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};
const next = (expression: string, after: string) => new Date(nextDue(cron(expression), at(after))!).toISOString();

describe('backup/cron', () => {
  const table: [string, string, string][] = [
    ['0 3 * * *', '2026-12-04T13:52:00Z', '2026-12-05T03:00:00.000Z'],
    ['0 3 * * *', '2026-12-04T02:59:59Z', '2026-12-04T03:00:00.000Z'],
    ['*/15 * * * *', '2026-12-04T13:52:10Z', '2026-12-04T14:00:00.000Z'],
    ['* * * * *', '2026-12-04T13:52:10Z', '2026-12-04T13:53:00.000Z'],
    ['30 1 1 * *', '2026-12-04T00:00:00Z', '2027-01-01T01:30:00.000Z'],
    ['0 0 * * 0', '2026-12-04T00:00:00Z', '2026-12-06T00:00:00.000Z'],
    ['0 0 * * 7', '2026-12-04T00:00:00Z', '2026-12-06T00:00:00.000Z'],
    ['0 12 1-7 * 1-5', '2026-12-04T13:00:00Z', '2026-12-05T12:00:00.000Z'],
    ['0 12 8-9 * 1', '2026-12-04T13:00:00Z', '2026-12-07T12:00:00.000Z'],
    ['0 0 29 2 *', '2026-12-04T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['5,10 8-9/1 * 12 *', '2026-12-04T09:10:00Z', '2026-12-05T08:05:00.000Z'],
  ];
  for (const [expression, after, due] of table)
    it(`is next due at ${due} after ${after} for "${expression}"`, () => {
      expect(next(expression, after)).to.equal(due);
    });

  it('is strictly after the given time, even on a due minute', () => {
    expect(next('0 3 * * *', '2026-12-04T03:00:00Z')).to.equal('2026-12-05T03:00:00.000Z');
  });

  it('says which field is wrong and what a schedule looks like', () => {
    expect(parseCron('0 3 * *'))
      .to.have.property('error')
      .that.matches(/4 field\(s\).*5.*"0 3 \* \* \*"/);
    expect(parseCron('61 3 * * *'))
      .to.have.property('error')
      .that.matches(/minute field "61" must stay within 0-59/);
    expect(parseCron('0 3 * * mon'))
      .to.have.property('error')
      .that.matches(/day of week field "mon" is not a number/);
    expect(parseCron('0 5-3 * * *'))
      .to.have.property('error')
      .that.matches(/hour field/);
    expect(parseCron('*/0 * * * *'))
      .to.have.property('error')
      .that.matches(/step below 1/);
  });

  it('has no due time for a day that never comes', () => {
    expect(nextDue(cron('0 0 31 2 *'), at('2026-12-04T00:00:00Z'))).to.equal(undefined);
  });
});
