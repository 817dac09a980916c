import { expect } from 'chai';
import { owedResync } from '../../../functions/ingest/owed-resync.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { waitFor } from '../../support/wait-for.ts';

/** A queue that is away for `failures` attempts, then takes every resync job. */
function aQueue(failures: number) {
  const queue = { attempts: 0, queued: 0 };
  const requestResync = async () => {
    queue.attempts++;
    if (queue.attempts <= failures) throw new Error('queue unreachable');
    queue.queued++;
  };
  return { queue, requestResync };
}

describe('ingest/owed-resync', function () {
  const log = createLogger({ level: 'silent' });

  it('queues one resync once the queue answers again after refused events', async function () {
    const { queue, requestResync } = aQueue(3);
    const owed = owedResync({ requestResync, everyMs: 5, log });
    owed.owe();
    owed.owe(); // several refusals in one outage owe one resync
    await waitFor(() => queue.queued === 1, { what: 'a resync queued' });
    await waitFor(() => queue.attempts >= 4, { what: 'the attempts through the outage' });
    const attempts = queue.attempts;
    await new Promise((r) => setTimeout(r, 30));
    expect(queue.attempts, 'no attempt once paid').to.equal(attempts);
    expect(queue.queued).to.equal(1);
    owed.stop();
  });

  it('queues nothing while nothing was refused', async function () {
    const { queue, requestResync } = aQueue(0);
    const owed = owedResync({ requestResync, everyMs: 5, log });
    await new Promise((r) => setTimeout(r, 30));
    expect(queue.attempts).to.equal(0);
    owed.stop();
  });

  it('owes again after a second outage', async function () {
    const { queue, requestResync } = aQueue(0);
    const owed = owedResync({ requestResync, everyMs: 5, log });
    owed.owe();
    await waitFor(() => queue.queued === 1, { what: 'the first resync' });
    owed.owe();
    await waitFor(() => queue.queued === 2, { what: 'the second resync' });
    owed.stop();
  });
});
