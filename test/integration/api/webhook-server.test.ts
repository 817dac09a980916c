// The webhook server over real HTTPS (test certificates from openssl): malformed requests get
// a clear JSON error, and the server keeps answering afterwards.
import { request } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWebhookServer } from '../../../functions/webhooks/index.ts';
import type { HttpsListening } from '../../../functions/webhooks/server.ts';
import { makeWebhookCerts } from '../../../infra/webhooks/certs.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { freePort } from '../../support/redis-server.ts';

interface Reply {
  status: number;
  body: unknown;
}

describe('webhooks server', function () {
  this.timeout(30_000);
  let dir: string;
  let ca: Buffer;
  let server: HttpsListening;

  before(async () => {
    requireCommand('openssl');
    dir = await mkdtemp(join(tmpdir(), 'knredis-webhook-test-'));
    const certs = await makeWebhookCerts(dir);
    ca = await readFile(certs.caCert);
    server = await startWebhookServer(
      {
        host: '127.0.0.1',
        port: await freePort(),
        maxBodyBytes: 64 * 1024,
        tls: { cert: await readFile(certs.cert), key: await readFile(certs.key) },
      },
      createLogger({ level: 'silent' }),
      async () => undefined,
    );
  });

  after(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function send(
    method: string,
    path: string,
    body?: string | Buffer,
    contentType = 'application/json',
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${server.url}${path}`,
        { method, ca, headers: body === undefined ? {} : { 'content-type': contentType } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers /healthz and /readyz over TLS signed by its CA', async () => {
    expect(await send('GET', '/healthz')).to.deep.equal({ status: 200, body: { status: 'ok' } });
    expect((await send('GET', '/readyz')).status).to.equal(200);
  });

  const cases: [string, string, string | Buffer, number, string][] = [
    ['a body that is not JSON', '/convert', '{"apiVersion": ', 400, 'the body is not JSON: '],
    [
      'an empty JSON object',
      '/validate',
      '{}',
      400,
      'expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got undefined undefined',
    ],
    ['a JSON string', '/convert', '"ConversionReview"', 400, 'the body must be a JSON ConversionReview object'],
    [
      'an AdmissionReview sent to /convert',
      '/convert',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'x' } }),
      400,
      'expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got "admission.k8s.io/v1" "AdmissionReview"',
    ],
    [
      'a ConversionReview without objects',
      '/convert',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'x', desiredAPIVersion: 'cache.redis.io/v1beta1' },
      }),
      400,
      'request.objects must be an array',
    ],
    [
      'an AdmissionReview without a uid',
      '/validate',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } }),
      400,
      'request.uid must be a non-empty string',
    ],
    ['a body over the limit', '/validate', Buffer.alloc(70 * 1024, 'a'), 413, 'the body exceeds 65536 bytes'],
  ];
  for (const [what, path, body, status, reason] of cases) {
    it(`answers ${status} with a JSON reason to ${what}, and keeps serving`, async () => {
      const reply = await send('POST', path, body);
      expect(reply.status).to.equal(status);
      expect((reply.body as { reason: string }).reason).to.contain(reason);
      expect((await send('GET', '/healthz')).status).to.equal(200);
    });
  }

  it('answers a ConversionReview whose object cannot convert with a Failure result naming it', async () => {
    const review = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: {
        uid: 'u',
        desiredAPIVersion: 'cache.redis.io/v1beta1',
        objects: [
          {
            apiVersion: 'cache.redis.io/v1alpha1',
            kind: 'RedisCluster',
            metadata: { name: 'x', namespace: 'n', annotations: { 'cache.redis.io/v1beta1-spec': '[' } },
            spec: { replicas: 3 },
          },
        ],
      },
    };
    const reply = await send('POST', '/convert', JSON.stringify(review));
    expect(reply.status).to.equal(200);
    expect((reply.body as { response: unknown }).response).to.deep.equal({
      uid: 'u',
      convertedObjects: [],
      result: {
        status: 'Failure',
        message:
          'RedisCluster n/x: metadata.annotations[cache.redis.io/v1beta1-spec] is not valid JSON; it holds the v1beta1 fields of this object: remove it or restore it from a v1beta1 read',
      },
    });
  });

  it('answers 404 with the paths it serves to anything else', async () => {
    expect(await send('POST', '/mutate', '{}')).to.deep.equal({
      status: 404,
      body: { error: 'not-found', reason: 'POST /convert (ConversionReview) or /validate (AdmissionReview)' },
    });
  });
});
