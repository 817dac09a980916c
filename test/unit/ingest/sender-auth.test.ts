import { expect } from 'chai';
import {
  bearerToken,
  tokenReviewSender,
  type Review,
  type CheckSender,
  type SenderAuthOptions,
} from '../../../functions/ingest/sender-auth.ts';

const subject = 'system:serviceaccount:knredis-system:knredis-event-source';
const jwt = (claims: object) =>
  ['{"alg":"RS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');

/** A sender check over a table of tokens, counting the reviews it asks for, on a clock the test moves. */
function aSenderCheck(answers: Record<string, Review>, options: Partial<SenderAuthOptions> = {}) {
  const asked: string[] = [];
  const clock = { now: 1_000_000 };
  const check = tokenReviewSender({
    review: async (token) => {
      asked.push(token);
      return answers[token] ?? { authenticated: false };
    },
    audience: 'knredis-ingest',
    allowedSubjects: [subject],
    cacheTtlMs: 60_000,
    cacheSize: 10,
    reviewLimit: { ratePerS: 1, burst: 100 },
    now: () => clock.now,
    ...options,
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
  describe('under a flood of unknown tokens', () => {
    const reviewLimit = { ratePerS: 0.5, burst: 3 };
    /** Unknown tokens until the bucket is empty (each refused without a review). */
    const flood = async (check: CheckSender, count = 5) => {
      const answers = [];
      for (let i = 0; i < count; i++) answers.push(await check(`Bearer forged-${i}`));
      return answers.map((a) => (a.ok ? 200 : a.status));
    };

    it('reviews a burst of them, then answers 429 with Retry-After without asking the API server', async () => {
      const { check, asked, clock } = aSenderCheck({}, { reviewLimit });
      expect(await flood(check)).to.deep.equal([401, 401, 401, 429, 429]);
      expect(asked).to.have.length(3);
      expect(await check('Bearer more')).to.deep.include({ status: 429, error: 'too-many-reviews', retryAfterS: 2 });
      clock.now += 2_000; // one token more at 0.5 a second
      expect(await flood(check, 2)).to.deep.equal([401, 429]);
      expect(asked).to.have.length(4);
    });

    it("serves the sender's cached review without the bucket", async () => {
      const { check, asked } = aSenderCheck({ t: valid() }, { reviewLimit });
      await check('Bearer t');
      await flood(check);
      expect(await check('Bearer t')).to.deep.equal({ ok: true, subject });
      expect(asked.filter((t) => t === 't')).to.have.length(1);
    });

    it("re-reviews the sender's expired entry ahead of the flood", async () => {
      const { check, asked, clock } = aSenderCheck({ t: valid() }, { reviewLimit });
      await check('Bearer t');
      clock.now += 60_000;
      expect(await flood(check)).to.include(429);
      expect(await check('Bearer t')).to.deep.equal({ ok: true, subject });
      expect(asked.filter((t) => t === 't')).to.have.length(2);
    });

    const noLane: [string, Record<string, Review>, string, number][] = [
      ['a subject not allowed', { w: valid('system:serviceaccount:default:web') }, 'w', 60_000],
      ['a token past its exp claim', { [jwt({ exp: 1_010 })]: valid() }, jwt({ exp: 1_010 }), 10_000],
    ];
    for (const [what, answers, token, later] of noLane)
      it(`gives no place ahead of the flood to an expired entry of ${what}`, async () => {
        const { check, asked, clock } = aSenderCheck(answers, { reviewLimit });
        await check(`Bearer ${token}`);
        clock.now += later;
        await flood(check);
        expect(await check(`Bearer ${token}`)).to.deep.include({ status: 429 });
        expect(asked.filter((t) => t === token)).to.have.length(1);
      });

    it('asks once for requests in flight with the same token, at the cost of one review', async () => {
      let answer = (_: Review) => {};
      const asked: string[] = [];
      const { check } = aSenderCheck(
        {},
        {
          review: (token) => {
            asked.push(token);
            return new Promise((resolve) => (answer = resolve));
          },
          reviewLimit: { ratePerS: 1, burst: 1 },
        },
      );
      const decisions = Promise.all(Array.from({ length: 16 }, () => check('Bearer t')));
      await new Promise((resolve) => setImmediate(resolve));
      answer(valid());
      expect((await decisions).every((d) => d.ok)).to.equal(true);
      expect(asked).to.deep.equal(['t']);
    });
  });
});
