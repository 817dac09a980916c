// HTTP request -> validated CloudEvents, in binary, structured and batch mode. The SDK's
// parser does not validate: every event is validate()d here.
import { CloudEvent, HTTP, ValidationError } from 'cloudevents';
import type { EventFields } from './to-keys.ts';

export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
}

/** A batch of more events than one request may carry (INGEST_MAX_EVENTS). */
export class TooManyEventsError extends Error {
  override readonly name = 'TooManyEventsError';
}

/** CloudEvent context attributes; everything else on an event is an extension. */
const contextAttributes = new Set([
  'id',
  'source',
  'specversion',
  'type',
  'datacontenttype',
  'dataschema',
  'subject',
  'time',
  'data',
  'data_base64',
]);

export function parseEvents(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  maxEvents: number,
): EventFields[] {
  let parsed: CloudEvent<unknown> | CloudEvent<unknown>[];
  try {
    // toEvent is typed as returning plain attributes; it returns CloudEvent instances.
    parsed =
      fromBinaryJson(headers, body) ??
      (HTTP.toEvent({ headers: headers as Record<string, string>, body }) as
        CloudEvent<unknown> | CloudEvent<unknown>[]);
  } catch (error) {
    throw new InvalidEventError(`not a CloudEvent: ${describe(error)}`);
  }
  const events = Array.isArray(parsed) ? parsed : [parsed];
  if (events.length === 0) throw new InvalidEventError('empty batch');
  if (events.length > maxEvents)
    throw new TooManyEventsError(`the batch holds ${events.length} events; the limit is ${maxEvents} per request`);
  return events.map((event) => {
    try {
      event.validate();
    } catch (error) {
      throw new InvalidEventError(`invalid CloudEvent: ${describe(error)}`);
    }
    const extensions: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(event)) if (!contextAttributes.has(name)) extensions[name] = value;
    return { type: event.type, data: typeof event.data === 'string' ? parseJson(event.data) : event.data, extensions };
  });
}

/**
 * The one form every sender here uses, read directly: binary mode, spec 1.0, a JSON body (the
 * adapter's and the event source's). The SDK's reader builds two errors (stack traces) per
 * event whether or not anything is wrong, a third of ingest's parsing time. Its validation
 * still judges the result; any other form goes to the SDK.
 */
function fromBinaryJson(headers: Record<string, string | string[] | undefined>, body: string) {
  const contentType = headers['content-type'];
  if (headers['ce-specversion'] !== '1.0' || typeof contentType !== 'string' || !isJson(contentType)) return undefined;
  const attributes: Record<string, unknown> = { datacontenttype: contentType };
  for (const name in headers) {
    const value = headers[name];
    if (name.startsWith('ce-') && typeof value === 'string') attributes[name.slice(3)] = value;
  }
  if (typeof attributes.time === 'string') attributes.time = new Date(attributes.time).toISOString();
  if (body !== '') attributes.data = JSON.parse(body);
  return new CloudEvent<unknown>(attributes as { type: string; source: string }, false);
}

const isJson = (contentType: string) => /^application\/json\s*(;|$)/i.test(contentType);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  if (error instanceof ValidationError)
    return [error.message, ...(error.errors ?? []).map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))]
      .join('; ')
      .slice(0, 500);
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
