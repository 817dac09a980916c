// Collects the keys queued by concurrent callers during one turn of the event loop and adds
// them in one Redis pipeline: one round trip for many requests instead of one per key. Every
// caller's promise settles with its batch, so a caller hears "stored" only after Redis
// acknowledged the whole pipeline, and a failure of the pipeline fails every caller of it.
// A key named twice in one batch is added once: the second add would be deduplicated by the
// queue anyway (the first one left the key waiting, or stored its one follow-up).

export interface AddBatcher {
  add(key: string): Promise<void>;
}

export function addBatcher(flush: (keys: readonly string[]) => Promise<void>, maxBatch = 1_000): AddBatcher {
  let pending: { keys: Set<string>; done: Promise<void> } | undefined;
  const open = () => {
    const keys = new Set<string>();
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    // A rejection is seen by every caller; this keeps an empty batch from being "unhandled".
    done.catch(() => {});
    const send = () => {
      if (pending?.keys === keys) pending = undefined;
      flush([...keys]).then(settle.resolve, settle.reject);
    };
    setImmediate(send);
    return { keys, done };
  };
  return {
    add(key) {
      if (!pending || pending.keys.size >= maxBatch) pending = open();
      pending.keys.add(key);
      return pending.done;
    },
  };
}
