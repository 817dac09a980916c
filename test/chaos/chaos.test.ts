// The chaos suite: each scenario of scenarios.ts on its own RedisCluster under the acked
// writer, on one local environment and operator stack. Each asserts: Ready with the asked
// shape; every write acknowledged before the fault is there; writes acknowledged with WAIT 1
// are never lost; a planned operation loses no acknowledged write at all; no two runs of the
// cluster's key overlapped.
import { expect } from 'chai';
import { scenarios } from './scenarios.ts';
import { chaosStack, stopChaosStack, type ChaosStack } from './support/chaos-stack.ts';
import { runScenario } from './support/scenario.ts';

describe('chaos: faults under a client that logs every acknowledged write', function () {
  this.timeout(900_000);
  let shared: ChaosStack;
  let failed = false;

  before(async function () {
    shared = await chaosStack();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async function () {
    this.timeout(120_000);
    await stopChaosStack(failed);
  });

  for (const scenario of scenarios) {
    it(`${scenario.name}: Ready as asked, ${scenario.planned ? 'no acknowledged write lost' : 'no write lost that was acknowledged before the fault or with WAIT'}, no overlapping runs`, async function () {
      const result = await runScenario(shared, scenario);
      const why = result.notes.join('\n');
      console.log(`      ${JSON.stringify({ ...result, notes: undefined })}`);
      expect(result.ready, why).to.equal(true);
      expect(result.verified, why).to.equal(true);
      expect(result.writerDied, why).to.equal(undefined);
      expect(result.writesAfterReady, why).to.equal(true);
      expect(result.lostBeforeFault, why).to.equal(0);
      expect(result.lostAckedWithWait, why).to.equal(0);
      if (scenario.planned) expect(result.lostAcked, why).to.equal(0);
      expect(result.overlappingRuns, why).to.equal(0);
    });
  }
});
