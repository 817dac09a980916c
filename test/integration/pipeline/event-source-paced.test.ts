// The built-in event source's first list over the real API server, against a sink that holds
// its replies: what exists is sent EVENT_SOURCE_CONCURRENCY POSTs at a time, not all at once.
import { expect } from 'chai';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';
import { API_VERSION_V1BETA1, KIND } from '../../../shared/core/api/group.ts';
import { start as startEventSource } from '../../../functions/event-source/index.ts';
import { readConfig } from '../../../functions/start-config.ts';
import type { RunningFunction } from '../../../functions/function-context.ts';

describe('event source pacing', function () {
  this.timeout(180_000);
  let api: InstalledApi;
  let source: RunningFunction | undefined;
  const sink = createServer();
  const held: ServerResponse[] = [];
  const subjects: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    api = await installApi('knredis-event-source-paced-test');
    sink.on('request', (req, res: ServerResponse) => {
      subjects.push(String(req.headers['ce-subject']));
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      req.resume();
      req.on('end', () => held.push(res));
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await source?.close();
    await new Promise<void>((r) => {
      sink.close(() => r());
      sink.closeAllConnections();
    });
    await api?.stop();
  });

  it('sends the RedisClusters that exist at start EVENT_SOURCE_CONCURRENCY at a time', async () => {
    const ns = await api.namespace(`esp-${randomUUID().slice(0, 6)}`);
    const total = 30;
    for (let i = 0; i < total; i++)
      await api.objects.create({
        apiVersion: API_VERSION_V1BETA1,
        kind: KIND,
        metadata: { name: `c${i}`, namespace: ns },
        spec: { masters: 3 },
      });
    const config = readConfig({
      K_SINK: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`,
      KUBECONFIG: api.env.kubeconfigPath,
      WATCH_NAMESPACE: ns,
      EVENT_SOURCE_CONCURRENCY: '3',
      // The sink here is the test's own server, which checks no token.
      EVENT_SOURCE_TOKEN_FILE: 'none',
    });
    source = await startEventSource({
      config,
      log: createLogger({ level: 'silent' }),
      expressApp: async () => express(),
      registry: createRegistry({ defaultMetrics: false }),
      env: {},
      addProbe: () => {},
      serveDirect: () => {},
    });
    const clusters = () => subjects.filter((s) => s.includes('/redisclusters/'));
    // Each round: the sink holds what came until 3 are in flight, then answers them all.
    while (clusters().length < total) {
      await api.env.waitFor(() => held.length === 3 || clusters().length === total, {
        what: 'three POSTs held by the sink',
        interval: 10,
      });
      for (const res of held.splice(0)) {
        inFlight--;
        res.writeHead(202).end();
      }
    }
    expect(new Set(clusters()).size).to.equal(total);
    expect(maxInFlight).to.equal(3);
  });
});
