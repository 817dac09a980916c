// The HTTPS server of the webhooks: the API server only calls webhooks over TLS.
import { createServer, type Server } from 'node:https';
import type { Express } from 'express';

export interface TlsFiles {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface HttpsListening {
  readonly server: Server;
  readonly port: number;
  /** https://HOST:PORT */
  readonly url: string;
  close(): Promise<void>;
}

export async function listenHttps(app: Express, tls: TlsFiles, port: number, host: string): Promise<HttpsListening> {
  const server = createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app);
  // A slow or silent client must not hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    server, port: bound, url: `https://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
  };
}
