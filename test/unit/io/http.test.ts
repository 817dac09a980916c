// The shared server's own routes as plain node:http handlers (shared/io/http.ts): the probes,
// /metrics, and the JSON 404, served without express.
import { expect } from 'chai';
import { Counter } from 'prom-client';
import { listen, notFound, probeRoutes, type Listening, type Probe } from '../../../shared/io/http.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';

describe('shared/io/http probe routes', () => {
  let server: Listening;
  let probes: Probe[];

  before(async () => {
    const registry = createRegistry({ defaultMetrics: false });
    new Counter({ name: 'knredis_test_total', help: 'a test counter', registers: [registry] }).inc(3);
    server = await listen(notFound, 0, '127.0.0.1', probeRoutes({ registry, probes: () => probes }));
  });
  after(() => server.close());
  beforeEach(() => (probes = []));

  const get = (path: string, method = 'GET') => fetch(server.url + path, { method });

  it('answers /healthz with JSON', async () => {
    const res = await get('/healthz');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await get('/healthz?probe=1', 'HEAD');
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
  });

  it('is ready when every probe passes, and names those that fail or throw', async () => {
    probes = [{ name: 'queue-redis', check: async () => true }];
    expect(await (await get('/readyz')).json()).to.deep.equal({ status: 'ready', failing: [] });
    probes.push(
      { name: 'down', check: async () => false },
      { name: 'broken', check: () => Promise.reject(new Error('ECONNREFUSED')) },
      {
        name: 'thrown',
        check: () => {
          throw new Error('no client yet');
        },
      },
    );
    const res = await get('/readyz');
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.equal({ status: 'not ready', failing: ['down', 'broken', 'thrown'] });
  });

  it('serves the registry on /metrics in the text format', async () => {
    const res = await get('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).to.match(/^knredis_test_total 3$/m);
  });

  it('answers a path or method no route takes with a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/nothing?x=1'],
      ['POST', '/healthz'],
    ] as const) {
      const res = await get(path, method);
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({
        error: 'not-found',
        reason: `no route for ${method} ${path.split('?')[0]}`,
      });
    }
  });
});
