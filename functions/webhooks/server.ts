// The HTTPS server of the webhooks: the API server only calls webhooks over TLS.
import { createServer, type Server } from 'node:https';
import type { Express } from 'express';
import { serve, type Listening } from '../../shared/io/http.ts';

export interface TlsFiles {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

/** `url` is https://HOST:PORT. */
export type HttpsListening = Listening & { readonly server: Server };

export function listenHttps(app: Express, tls: TlsFiles, port: number, host: string): Promise<HttpsListening> {
  const server = createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app);
  // A slow or silent client must not hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  return serve(server, port, host, 'https');
}
