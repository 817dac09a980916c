import { expect } from 'chai';
import { planCoverage } from '../../../shared/core/cluster/plan-coverage.ts';
import { aContext, aDesired, pods, type NodeSpec } from './builders.ts';

const all = pods(3);
// Slots 0-99 are served by no node.
const gap: NodeSpec[] = [
  { pod: 0, slots: '100-5461' },
  { pod: 1, slots: '5462-10922' },
  { pod: 2, slots: '10923-16383' },
];

// Steps as 'addSlots pod ranges'; problems as 'code slots: message pattern'.
describe('planCoverage', () => {
  const cases: [string, NodeSpec[], Parameters<typeof aContext>[2], string[], [string, number, RegExp][]][] = [
    ['plans nothing when every slot has an owner', [{ pod: 0, slots: '0-5461' }, ...gap.slice(1)], { keys: 0 }, [], []],
    [
      'gives uncovered slots to the master with the fewest when no node holds a key and all answer',
      gap,
      { keys: 0 },
      ['addSlots redis-0 0-99'],
      [],
    ],
    [
      'reports and assigns nothing when a node holds a key of an uncovered slot',
      gap,
      { keys: 0, keysInSlot: { 5: 3 } },
      [],
      [['SlotsUncovered', 100, /1 hold keys on some node/]],
    ],
    [
      'reports and assigns nothing when a pod does not answer (it may hold their keys)',
      gap,
      { keys: 0, unreachable: [2] },
      [],
      [['SlotsUncovered', 100, /some pods did not answer/]],
    ],
  ];
  for (const [name, specs, options, steps, problems] of cases) {
    it(`${name}`, () => {
      const plan = planCoverage(aContext(aDesired(3, 0, all), specs, options));
      expect(
        plan.steps.map((s) =>
          s.kind === 'addSlots' ? `addSlots ${s.node.pod} ${s.ranges.map((r) => `${r.start}-${r.end}`)}` : s.kind,
        ),
      ).to.deep.equal(steps);
      expect(plan.problems).to.have.length(problems.length);
      plan.problems.forEach((p, i) => {
        const [code, slots, message] = problems[i] as [string, number, RegExp];
        expect(p).to.include({ code, slots });
        expect(p.message).to.match(message);
      });
    });
  }
});
