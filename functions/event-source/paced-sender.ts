// Sends the event source's events with a bounded number in flight, in order per object:
//   - at most `concurrency` sends run at once (a relist of 10,000 objects does not open
//     10,000 POSTs; a sink that answers slowly or retries holds its slots, the rest waits);
//   - one send per key at a time, in the order pushed: an object's delete never overtakes
//     its update, nor a later update an earlier one;
//   - an event still waiting (not yet sent) is replaced by a newer one for the same key when
//     `supersedes` says so (an update by a later update: ingest reads only which cluster the
//     object belongs to, and the reconciler re-reads everything): a relist during a backlog
//     adds nothing for the objects already waiting.
// Keys take turns: a key with more to send goes to the back once its send finished.

export interface PacedSender<E> {
  push(key: string, event: E): void;
  /** Events waiting, not yet sent. */
  readonly waiting: number;
  /** Drops every waiting event (sends in flight finish on their own). */
  clear(): void;
}

export interface PacedSenderOptions<E> {
  readonly concurrency: number;
  /** Whether `newer` makes the still-waiting `older` (same key) pointless to send. */
  readonly supersedes: (older: E, newer: E) => boolean;
}

export function pacedSender<E>(send: (event: E) => Promise<unknown>, options: PacedSenderOptions<E>): PacedSender<E> {
  const { concurrency, supersedes } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
  /** Per key, the events not yet sent, oldest first. */
  const queues = new Map<string, E[]>();
  const inFlight = new Set<string>();
  /** Keys with waiting events and nothing in flight, in turn order (a Set keeps insertion order). */
  const ready = new Set<string>();
  let waiting = 0;

  function pump(): void {
    while (inFlight.size < concurrency && ready.size > 0) {
      const key = ready.values().next().value as string;
      ready.delete(key);
      const queue = queues.get(key)!;
      const event = queue.shift()!;
      waiting--;
      if (queue.length === 0) queues.delete(key);
      inFlight.add(key);
      void send(event)
        .catch(() => {})
        .finally(() => {
          inFlight.delete(key);
          if (queues.has(key)) ready.add(key);
          pump();
        });
    }
  }

  return {
    push(key, event) {
      const queue = queues.get(key);
      if (queue === undefined) {
        queues.set(key, [event]);
        if (!inFlight.has(key)) ready.add(key);
      } else if (supersedes(queue[queue.length - 1]!, event)) {
        queue[queue.length - 1] = event;
        return;
      } else {
        queue.push(event);
      }
      waiting++;
      pump();
    },
    get waiting() {
      return waiting;
    },
    clear() {
      queues.clear();
      ready.clear();
      waiting = 0;
    },
  };
}
