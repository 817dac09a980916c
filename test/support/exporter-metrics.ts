// What a redis_exporter serves on /metrics, read the way Prometheus reads it (text format).

/** The value of a sample of /metrics (first match of name and labels), undefined when absent. */
export async function exporterSample(url: string, name: string, labels = ''): Promise<number | undefined> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}` : ' '}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}
