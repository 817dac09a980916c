// `npm run bench -- chaos [NAME...]`: the chaos scenarios (test/chaos/scenarios.ts), all or the
// named ones, on one local environment: time to Ready, acknowledged writes lost, client errors
// and overlapping runs per scenario.
import { scenarios } from '../chaos/scenarios.ts';
import { chaosStack, stopChaosStack } from '../chaos/support/chaos-stack.ts';
import { runScenario, type ScenarioResult } from '../chaos/support/scenario.ts';
import type { BenchResult } from './table.ts';

export default async function chaos(args: string[]): Promise<BenchResult> {
  const chosen = args.length > 0 ? scenarios.filter((s) => args.includes(s.name)) : scenarios;
  if (chosen.length === 0)
    throw new Error(`no scenario named ${args.join(', ')}; names: ${scenarios.map((s) => s.name).join(', ')}`);
  const shared = await chaosStack();
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of chosen) {
      const result = await runScenario(shared, scenario);
      results.push(result);
      for (const note of result.notes) console.error(`${scenario.name}: ${note}`);
    }
  } finally {
    await stopChaosStack(results.some((r) => !r.ready));
  }
  return {
    tables: [
      {
        title: 'chaos scenarios (acked writer at 50 plain + 50 WAIT writes/s)',
        columns: [
          'scenario',
          'time to Ready (s)',
          'acked writes lost (plain / with WAIT)',
          'client errors',
          'overlapping runs',
        ],
        rows: results.map((r) => [
          r.name,
          r.ready ? (r.secondsToReady ?? 0) : 'not Ready',
          `${r.lostAcked} / ${r.lostAckedWithWait}`,
          r.clientErrors,
          r.overlappingRuns,
        ]),
      },
    ],
    summary: {
      scenarios: results.map((r) => ({
        name: r.name,
        ready: r.ready,
        secondsToReady: r.secondsToReady,
        lostAcked: r.lostAcked,
        lostAckedWithWait: r.lostAckedWithWait,
        clientErrors: r.clientErrors,
        overlappingRuns: r.overlappingRuns,
      })),
    },
  };
}
