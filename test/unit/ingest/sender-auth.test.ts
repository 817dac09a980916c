import { expect } from 'chai';
import { bearerToken, tokenReviewSender, type Review } from '../../../functions/ingest/sender-auth.ts';

const subject = 'system:serviceaccount:knredis-system:knredis-event-source';
const jwt = (claims: object) =>
  ['{"alg":"RS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');

/** A sender check over a table of tokens, counting the reviews it asks for, on a clock the test moves. */
function aSenderCheck(answers: Record<string, Review>, options: { cacheTtlMs?: number; cacheSize?: number } = {}) {
  const asked: string[] = [];
  const clock = { now: 1_000_000 };
  const check = tokenReviewSender({
    review: async (token) => {
      asked.push(token);
      return answers[token] ?? { authenticated: false };
    },
    audience: 'knredis-ingest',
    allowedSubjects: [subject],
    cacheTtlMs: options.cacheTtlMs ?? 60_000,
    cacheSize: options.cacheSize ?? 10,
    now: () => clock.now,
  });
  return { check, asked, clock };
}
const valid = (username = subject): Review => ({ authenticated: true, username, audiences: ['knredis-ingest'] });

describe('ingest/sender-auth', () => {
  const headers: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer abc', 'abc'],
    ['bearer  abc ', 'abc'],
  ];
  for (const [header, token] of headers)
    it(`reads ${String(token)} from the header ${JSON.stringify(header)}`, () =>
      expect(bearerToken(header)).to.equal(token));

  it('refuses a token authenticated for another audience', async () => {
    const { check } = aSenderCheck({
      t: { authenticated: true, username: subject, audiences: ['https://kubernetes'] },
    });
    expect(await check('Bearer t')).to.deep.include({ ok: false, status: 401 });
  });

  it('asks the API server once per token while the cached review is fresh, again after it expires', async () => {
    const { check, asked, clock } = aSenderCheck({ t: valid() }, { cacheTtlMs: 60_000 });
    for (let i = 0; i < 5; i++) expect(await check('Bearer t')).to.deep.equal({ ok: true, subject });
    expect(asked).to.deep.equal(['t']);
    clock.now += 60_000;
    await check('Bearer t');
    expect(asked).to.deep.equal(['t', 't']);
  });

  it('caches a review no longer than the token lives (its exp claim)', async () => {
    const token = jwt({ exp: (1_000_000 + 10_000) / 1000 });
    const { check, asked, clock } = aSenderCheck({ [token]: valid() }, { cacheTtlMs: 60_000 });
    await check(`Bearer ${token}`);
    clock.now += 9_999;
    await check(`Bearer ${token}`);
    expect(asked).to.have.length(1);
    clock.now += 1;
    await check(`Bearer ${token}`);
    expect(asked).to.have.length(2);
  });

  it('does not cache refusals: a forged token is asked about each time and evicts nothing', async () => {
    const { check, asked } = aSenderCheck({ t: valid() }, { cacheSize: 1 });
    await check('Bearer t');
    for (let i = 0; i < 3; i++) expect(await check('Bearer forged')).to.deep.include({ status: 401 });
    await check('Bearer t');
    expect(asked).to.deep.equal(['t', 'forged', 'forged', 'forged']);
  });

  it('keeps at most cacheSize reviews, evicting the oldest', async () => {
    const { check, asked } = aSenderCheck({ a: valid(), b: valid(), c: valid() }, { cacheSize: 2 });
    for (const t of ['a', 'b', 'c', 'c', 'b', 'a']) await check(`Bearer ${t}`);
    expect(asked).to.deep.equal(['a', 'b', 'c', 'a']);
  });

  it('answers 403 for a valid token of a subject not allowed, and caches that review too', async () => {
    const other = 'system:serviceaccount:default:web';
    const { check, asked } = aSenderCheck({ w: valid(other) });
    for (let i = 0; i < 2; i++)
      expect(await check('Bearer w')).to.deep.include({ ok: false, status: 403, error: 'forbidden' });
    expect(asked).to.deep.equal(['w']);
  });
});
