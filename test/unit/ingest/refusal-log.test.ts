import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../shared/io/log.ts';
import { listen, notFound, probeRoutes } from '../../../shared/io/http.ts';
import { ingestHandler } from '../../../functions/ingest/app.ts';
import { refusalLog, type Schedule } from '../../../functions/ingest/refusal-log.ts';

/** Log lines as objects, for a logger's destination. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', destination }) };
}

/** A refusal log writing to lines the test reads, on timers the test fires. */
function aRefusalLog() {
  const { lines, log } = capture();
  const timers: (() => void)[] = [];
  const schedule: Schedule = (fn) => {
    timers.push(fn);
    return () => timers.splice(timers.indexOf(fn), 1);
  };
  const refusals = refusalLog(log, 10_000, schedule);
  /** The period ends: its timer fires. */
  const elapse = () => timers.shift()?.();
  const seen = () => lines.map(({ msg, refused, status }) => (refused ? { msg, refused } : { msg, status }));
  return { refusals, elapse, seen, timers };
}

describe('ingest/refusal-log', () => {
  it('logs the first refusal of each kind, then the counts of the others once a period', () => {
    const { refusals, elapse, seen } = aRefusalLog();
    for (let i = 0; i < 1_000; i++) refusals.refused('401 unauthenticated', { status: 401 });
    for (let i = 0; i < 3; i++) refusals.refused('429 too-many-reviews', { status: 429 });
    expect(seen()).to.deep.equal([
      { msg: 'event refused', status: 401 },
      { msg: 'event refused', status: 429 },
    ]);
    elapse();
    refusals.refused('401 unauthenticated', { status: 401 });
    elapse();
    expect(seen().slice(2)).to.deep.equal([
      { msg: 'events refused', refused: { '401 unauthenticated': 999, '429 too-many-reviews': 2 } },
      { msg: 'events refused', refused: { '401 unauthenticated': 1 } },
    ]);
  });

  it('logs a refusal in full again after a period without any', () => {
    const { refusals, elapse, seen, timers } = aRefusalLog();
    refusals.refused('403 forbidden', { status: 403 });
    elapse();
    expect(timers, 'no timer while quiet').to.deep.equal([]);
    refusals.refused('403 forbidden', { status: 403 });
    expect(seen()).to.deep.equal([
      { msg: 'event refused', status: 403 },
      { msg: 'event refused', status: 403 },
    ]);
  });

  it('logs the counts left when stopped', () => {
    const { refusals, seen, timers } = aRefusalLog();
    for (let i = 0; i < 3; i++) refusals.refused('401 unauthenticated', { status: 401 });
    refusals.stop();
    expect(timers).to.deep.equal([]);
    expect(seen().at(-1)).to.deep.equal({ msg: 'events refused', refused: { '401 unauthenticated': 2 } });
  });

  it('is what ingest logs refusals with: a flood of refused requests logs one line', async () => {
    const { lines, log } = capture();
    const ingest = ingestHandler({
      enqueue: async () => {},
      checkSender: async () => ({ ok: false, status: 401, error: 'unauthenticated', reason: 'no token' }),
      maxBodyBytes: 1024,
      maxEvents: 1,
      retryAfterS: 1,
      log,
    });
    const server = await listen(notFound, 0, '127.0.0.1', new Map([...probeRoutes({}), ['POST /', ingest]]));
    try {
      for (let i = 0; i < 20; i++) expect((await fetch(server.url + '/', { method: 'POST' })).status).to.equal(401);
    } finally {
      await server.close();
    }
    expect(lines.filter((l) => l.msg === 'event refused')).to.have.length(1);
    expect(
      lines.filter((l) => l.msg === 'events refused'),
      'nothing summed up before the period',
    ).to.deep.equal([]);
    ingest.stop();
    expect(lines.filter((l) => l.msg === 'events refused').map((l) => l.refused)).to.deep.equal([
      { '401 unauthenticated': 19 },
    ]);
  });
});
