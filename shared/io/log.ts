// The one structured logger (pino). Functions create it once from their config and pass
// children down: one child per reconcile carrying the key and a reconcile id.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const settings = {
    level: options.level ?? 'info',
    base: options.name ? { fn: options.name } : {},
    // Secrets never reach a log line: these paths are replaced wherever they appear.
    redact: {
      paths: [
        'password',
        '*.password',
        'auth',
        '*.auth',
        'token',
        '*.token',
        'headers.authorization',
        '*.headers.authorization',
        'data',
        '*.stringData',
      ],
      censor: '[redacted]',
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
